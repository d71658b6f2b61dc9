import { DeepDiveEventType, type DeepDiveCompiledData, type DeepDiveInitializedData, type ExtraSection } from '../events/flow/deep-dive-events.js';
import { DEEP_DIVE_SECTIONS, type DEEP_DIVE_SCOPES } from '../events/flow/vocabulary.js';
import type { DeepDiveRecord } from '../projections/flow/deep-dive-state.js';
import { fileTime } from '../projections/flow/render-text.js';
import type { FlowState } from '../projections/flow/flow-state.js';
import type { Decision } from './decision.js';
import { FlowErrorCode, refuseFlow } from './flow-refusal.js';
import { refuseField } from './refusal.js';

/**
 * The deep dive's rules (phase-gates.md §8): one at a time unless refreshed; a compile merges
 * sections into the one initialized, never past its agent counts; an outside edit of its file
 * becomes a compile when it changes only what a compile may. Ids and the backup path come in the
 * command (the shell backs the file up); the stream's version guards every compile.
 */
export interface InitDeepDive {
  deepDiveId: string;
  scope: (typeof DEEP_DIVE_SCOPES)[number];
  focusPath: string | null;
  agentCount: number;
  refresh: boolean;
  /** The deep-dive file is on disk (a file Baton has not recorded counts too). */
  fileExists: boolean;
  /** Where the shell kept the old file on a refresh (null: nothing kept). */
  backupPath: string | null;
}

/** `deep-dive init` (§8.2): refused while one exists, unless refreshed. */
export function decideDeepDiveInit(command: InitDeepDive, state: FlowState): Decision<null> {
  const dd = state.deep_dive;
  if (!command.refresh && (dd !== null || command.fileExists)) {
    const where = dd !== null ? `phase: ${dd.phase}, generated: ${fileTime(dd.generated)}` : 'phase: unknown, generated: unknown';
    throw refuseFlow(
      FlowErrorCode.DEEP_DIVE_EXISTS,
      `A deep dive already exists (${where}). Use --refresh to start over; the current file is backed up first.`,
    );
  }
  const stream = `deep_dive/${command.deepDiveId}`;
  const data: DeepDiveInitializedData = {
    deep_dive_id: command.deepDiveId,
    scope: command.scope,
    focus_path: command.focusPath,
    agent_count: command.agentCount,
    refresh: command.refresh,
    backup_path: command.backupPath,
  };
  return { events: [{ type: DeepDiveEventType.initialized, stream, data }], expected: { [stream]: 'no_stream' }, outcome: null };
}

export interface CompileDeepDive {
  sections: DeepDiveCompiledData['sections'];
  agentsSpawned?: number | undefined;
  agentsCompleted?: number | undefined;
  markComplete: boolean;
}

/** `deep-dive compile` (§8.3): sections merge, never wipe; completed never exceeds spawned after merging. */
export function decideDeepDiveCompile(command: CompileDeepDive, state: FlowState): Decision<null> {
  const dd = state.deep_dive;
  if (dd === null) throw refuseFlow(FlowErrorCode.NO_DEEP_DIVE, 'No deep dive initialized. Run baton deep-dive init first.');
  const spawned = command.agentsSpawned;
  const completed = command.agentsCompleted;
  if ((completed ?? dd.agents_completed) > (spawned ?? dd.agents_spawned)) {
    throw refuseField('INVALID_INPUT', 'agents_completed', (name) => `${name} must not exceed ${name.replace(/completed/, 'spawned')} (after merging)`);
  }
  const data: DeepDiveCompiledData = {
    deep_dive_id: dd.deep_dive_id,
    sections: command.sections,
    ...(spawned === undefined ? {} : { agents_spawned: spawned }),
    ...(completed === undefined ? {} : { agents_completed: completed }),
    mark_complete: command.markComplete,
  };
  return { events: [{ type: DeepDiveEventType.compiled, stream: dd.stream, data }], expected: { [dd.stream]: dd.version }, outcome: null };
}

/** The deep-dive file as the shell read it back. */
export interface DeepDiveFileContent {
  scope: string;
  focus_path: string | null;
  phase: string;
  agent_count: number;
  agents_spawned: number;
  agents_completed: number;
  sections: DeepDiveCompiledData['sections'];
  extra_sections: readonly ExtraSection[];
}

/** Why an edit of the file is not a compile: the key and the rule. */
export interface EditProblem {
  key: string;
  rule: string;
}

/** What an edit changed, as a compile's data; or the key it may not change. */
export function compiledFromEdit(f: DeepDiveFileContent, dd: DeepDiveRecord): DeepDiveCompiledData | EditProblem {
  if (f.scope !== dd.scope) return { key: 'scope', rule: `the scope is set by deep-dive init (it is '${dd.scope}')` };
  if (f.focus_path !== dd.focus_path) return { key: 'focus_path', rule: 'the focus path is set by deep-dive init' };
  if (f.agent_count !== dd.agent_count) return { key: 'agent_count', rule: `the agent count is set by deep-dive init (it is ${dd.agent_count})` };
  const sections: DeepDiveCompiledData['sections'] = {};
  for (const name of DEEP_DIVE_SECTIONS) {
    const now = f.sections[name] ?? '';
    if (now !== (dd.sections[name] ?? '')) sections[name] = now;
  }
  const extra: ExtraSection[] = f.extra_sections.filter((e) => dd.extra_sections.find((d) => d.title === e.title)?.text !== e.text);
  for (const gone of dd.extra_sections) if (!f.extra_sections.some((e) => e.title === gone.title)) extra.push({ title: gone.title, text: '' });
  const counters = f.agents_spawned !== dd.agents_spawned || f.agents_completed !== dd.agents_completed;
  const markComplete = f.phase === 'complete' && dd.phase !== 'complete';
  if (Object.keys(sections).length === 0 && extra.length === 0 && !counters && !markComplete) {
    return { key: '(body)', rule: 'only the sections and the agent counters can be edited; the rest is rendered from the log' };
  }
  return {
    deep_dive_id: dd.deep_dive_id,
    sections,
    ...(extra.length > 0 ? { extra_sections: extra } : {}),
    ...(counters ? { agents_spawned: f.agents_spawned, agents_completed: f.agents_completed } : {}),
    mark_complete: markComplete,
  };
}

/**
 * An outside edit of the deep-dive file (read back, or unreadable with its key and rule): a legal
 * one is a compile at the version the fold saw; otherwise nothing is appended and the outcome names
 * why (the shell keeps the file aside and restores the rendering).
 */
export function decideDeepDiveFileEdit(read: { file: DeepDiveFileContent } | EditProblem, state: FlowState): Decision<EditProblem | null> | null {
  const dd = state.deep_dive;
  if (dd === null) return null;
  const data = 'file' in read ? compiledFromEdit(read.file, dd) : read;
  if ('key' in data) return { events: [], expected: {}, outcome: data };
  return { events: [{ type: DeepDiveEventType.compiled, stream: dd.stream, data }], expected: { [dd.stream]: dd.version }, outcome: null };
}
