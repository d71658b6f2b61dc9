import { isWorktreeMode, type ClaimedMode } from '../../events/work-units/terms.js';
import type { DefinitionFields } from '../../events/work-units/definition.js';
import { shellQuote } from '../shell-quote.js';

/**
 * Handoff files (work-units.md §10.4): everything an agent needs to start, and the exact `baton`
 * commands to claim, checkpoint, return and finish. Pure: the content is a function of these inputs
 * (all recorded in the log), so a lost file is rebuilt byte for byte.
 */
export interface HandoffInput {
  wu_id: string;
  def: DefinitionFields;
  initiative: string;
  lane: string;
  logical_wave: number;
  launch_attempt: number;
  relaunch: boolean;
  claimed_mode: ClaimedMode;
  worktree_path: string | null;
  branch: string;
  client: string;
  /** Each dependency with its orchestration state at emission. */
  dependencies: { wu_id: string; state: string }[];
  stall_threshold: string;
  subagent_type: string;
}

function cell(value: string): string {
  return value.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

export function renderHandoffMarkdown(h: HandoffInput): string {
  const title = h.def.title ?? h.wu_id;
  const worktreeMode = isWorktreeMode(h.claimed_mode);
  const rows: [string, string][] = [
    ['initiative', h.initiative],
    ['lane', h.lane],
    ['type', h.def.type ?? 'feature'],
    ['priority', h.def.priority ?? 'P2'],
    ['logical wave', String(h.logical_wave)],
    ['launch attempt', String(h.launch_attempt)],
    ['relaunch', h.relaunch ? 'yes' : 'no'],
    ['claimed mode', h.claimed_mode],
    ...(worktreeMode && h.worktree_path !== null ? ([['worktree', h.worktree_path]] as [string, string][]) : []),
    ['branch', h.branch],
  ];
  const acceptance = h.def.acceptance ?? [];
  const codePaths = h.def.code_paths ?? [];
  const q = shellQuote;
  const claim = [
    `baton wu claim ${q(h.wu_id)} --mode ${q(h.claimed_mode)}`,
    worktreeMode && h.worktree_path !== null ? ` --worktree ${q(h.worktree_path)}` : '',
    ` --branch ${q(h.branch)}`,
  ].join('');
  const lines = [
    `# ${h.wu_id} — ${title}`,
    '',
    '| field | value |',
    '|---|---|',
    ...rows.map(([k, v]) => `| ${k} | ${cell(v)} |`),
    '',
    '## Description',
    '',
    (h.def.description ?? '').trim() === '' ? '(none)' : h.def.description!.trim(),
    '',
    '## Acceptance criteria',
    '',
    ...(acceptance.length === 0 ? ['(none declared)'] : acceptance.map((a, i) => `${i + 1}. ${a}`)),
    '',
    '## Code paths',
    '',
    ...(codePaths.length === 0 ? ['(none declared)'] : codePaths.map((p) => `\`${p}\``)),
    '',
    'Change only files under these paths.',
    '',
    '## Dependencies',
    '',
    ...(h.dependencies.length === 0 ? ['(none)'] : h.dependencies.map((d) => `- ${d.wu_id} — ${d.state}`)),
    '',
    '## Commands',
    '',
    '```sh',
    `baton session start --wu ${q(h.wu_id)} --lane ${q(h.lane)} --client ${q(h.client)}`,
    'export BATON_SESSION=<session_id printed above>',
    worktreeMode && h.worktree_path !== null ? `git worktree add -b ${q(h.branch)} ${q(h.worktree_path)}` : `git switch -c ${q(h.branch)}`,
    claim,
    `baton wu checkpoint ${q(h.wu_id)} --note '<what changed>' --progress '<percent>' --next-steps '<next>'`,
    'baton mem inbox',
    `baton wu block ${q(h.wu_id)} --reason '<why>'`,
    `baton wu return ${q(h.wu_id)} --note '<summary>'`,
    `baton wu prep ${q(h.wu_id)}`,
    `baton wu done ${q(h.wu_id)}`,
    '```',
    '',
    '## Rules',
    '',
    `- Checkpoint at least once every ${h.stall_threshold} (the stall threshold); a WU with no activity for longer is reported stalled.`,
    '- Read your inbox (`baton mem inbox`) before each checkpoint, and answer signals that require an ACK with `baton mem signal … --reply-to <signal_id> --intent AGREE|REJECT`.',
    '- Run `baton wu return` when you hand the work back.',
    '- Run `baton wu prep`, then `baton wu done`, only when every acceptance criterion is met.',
    '',
  ];
  return lines.join('\n');
}

function xmlAttr(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
function xmlText(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A Claude Code Task invocation: the same body as a CDATA prompt (`]]>` split across two sections). */
export function renderHandoffXml(h: HandoffInput): string {
  const body = renderHandoffMarkdown(h);
  const description = `${h.wu_id}: ${h.def.title ?? h.wu_id}`.slice(0, 80);
  const cdata = `<![CDATA[${body.replace(/\]\]>/g, ']]]]><![CDATA[>')}]]>`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<baton_handoff format="1" wu_id="${xmlAttr(h.wu_id)}" initiative="${xmlAttr(h.initiative)}" launch_attempt="${h.launch_attempt}" logical_wave="${h.logical_wave}">`,
    `  <description>${xmlText(description)}</description>`,
    `  <subagent_type>${xmlText(h.subagent_type)}</subagent_type>`,
    `  <prompt>${cdata}</prompt>`,
    '</baton_handoff>',
    '',
  ].join('\n');
}

export function handoffFormatFor(client: string): 'xml' | 'markdown' {
  return client === 'claude-code' ? 'xml' : 'markdown';
}
