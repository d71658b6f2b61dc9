import type { z } from 'zod';
import type {
  OrchestrationSessionViewEnvelope,
  OrchestrationSessionsEnvelope,
  OrchestrationStatusEnvelope,
  OrchestrationSubagentEnvelope,
  OrchestrationTaskEnvelope,
  OrchestrationTasksEnvelope,
  WizardTaskSchema,
  HeldWorkUnitSchema,
} from '../../app/envelopes/tasks.js';
import { table } from '../table.js';

/** Human renderings of the tasks envelopes (tasks.md §10.1, §10.5; "workspace" for "project"). */
const time = (ms: number | null | undefined): string => (ms === null || ms === undefined ? '(none)' : new Date(ms).toISOString());

type Task = z.output<typeof WizardTaskSchema>;

export function humanTasks(e: z.output<typeof OrchestrationTasksEnvelope>): string {
  if (e.tasks.length === 0) return 'No tasks recorded for this workspace.';
  return [`${e.tasks.length} task(s):`, ...e.tasks.map((t) => `${t.id}  ${t.state}  ${t.label}`)].join('\n');
}

export function humanTaskBlock(t: Task): string[] {
  const lines = [
    `${t.id}  ${t.label}`,
    `  state:          ${t.state}`,
    `  session:        ${t.sessionId}`,
    `  subagent kind:  ${t.subagentKind ?? '(none)'}`,
    `  parent:         ${t.parentTaskId ?? '(none)'}`,
    `  created:        ${time(t.createdAt)}`,
    `  started:        ${time(t.startedAt)}`,
    `  updated:        ${time(t.updatedAt)}`,
  ];
  if (t.waitingFor) lines.push(`  waiting for:    ${t.waitingFor.kind} ${t.waitingFor.id}${t.waitingFor.summary ? ` — ${t.waitingFor.summary}` : ''}`);
  if (t.blockedReason) lines.push(`  blocked reason: ${t.blockedReason}`);
  for (const o of t.ownership)
    lines.push(
      `  owns:           ${o.kind} ${o.kind === 'branch' ? o.name : o.kind === 'pull_request' ? `${o.repo}#${o.number}${o.state ? ` (${o.state})` : ''}` : o.path}`,
    );
  if (t.result)
    lines.push(
      `  result:         ${t.result.outcome}${t.result.summary ? ` — ${t.result.summary}` : ''}${t.result.error ? ` [${t.result.error.class}: ${t.result.error.message}]` : ''}`,
    );
  if (t.supersededBy) lines.push(`  superseded by:  ${t.supersededBy}`);
  return lines;
}

export function humanTask(e: z.output<typeof OrchestrationTaskEnvelope>): string {
  const lines = humanTaskBlock(e.task);
  for (const h of e.baton.history)
    lines.push(`  #${h.seq} ${h.at} ${h.type}${h.from ? ` ${h.from} →` : ''}${h.to ? ` ${h.to}` : ''} by ${h.actor}${h.reason ? ` (${h.reason})` : ''}`);
  for (const f of e.baton.integrity_findings) lines.push(`  integrity finding at seq ${f.seq}: ${f.reason}`);
  return lines.join('\n');
}

/** `lapsed (held WU-1, WU-2)` for a session whose recorded lapse stands, else its status. */
function sessionStatusText(s: z.output<typeof OrchestrationSessionsEnvelope>['sessions'][number]): string {
  const lapse = s.baton.lapse;
  return lapse !== undefined && s.status === 'abandoned' ? `lapsed (held ${lapse.held_wus.join(', ')})` : s.status;
}

export function humanSessions(e: z.output<typeof OrchestrationSessionsEnvelope>): string {
  if (e.sessions.length === 0) return 'No sessions recorded for this workspace.';
  return table(
    ['SESSION', 'NAME', 'STATUS', 'CREATED', 'FINISHED', 'GOAL'],
    e.sessions.map((s) => [
      s.id,
      s.baton.display_name,
      sessionStatusText(s),
      time(s.createdAt),
      s.finishedAt !== undefined ? time(s.finishedAt) : '-',
      s.goal ?? '(no goal recorded)',
    ]),
  );
}

export function humanSession(e: z.output<typeof OrchestrationSessionViewEnvelope>): string {
  const s = e.session;
  const lines = [
    `${s.id}  ${sessionStatusText(s)}  (${s.baton.display_name})`,
    ...(s.baton.lapse !== undefined ? [`  lapsed:   ${s.baton.lapse.lapsed_at} (last seen ${s.baton.lapse.last_seen})`] : []),
    `  goal:     ${s.goal ?? '(no goal recorded)'}`,
    `  branch:   ${s.branch ?? '(none)'}`,
    `  worktree: ${s.worktree ?? '(none)'}`,
    `  created:  ${time(s.createdAt)}`,
    `  finished: ${time(s.finishedAt)}`,
    `${e.tasks.length} task(s):`,
    ...e.tasks.map((t) => `  ${t.id}  ${t.state}  ${t.label}`),
  ];
  for (const a of e.baton.subagents) lines.push(`  subagent ${a.id}  ${a.kind}  root ${a.rootTaskId}${a.finishedAt !== null ? '  finished' : ''}`);
  return lines.join('\n');
}

export function humanSubagent(e: z.output<typeof OrchestrationSubagentEnvelope>): string {
  const a = e.subagent;
  return `${a.id}  ${a.kind}  session ${a.sessionId}  root ${a.rootTaskId}  ${a.finishedAt === null ? 'running' : `finished ${time(a.finishedAt)}`}`;
}

type HeldWorkUnit = z.output<typeof HeldWorkUnitSchema>;

const HELD_STATUS: Record<HeldWorkUnit['status'], string> = { in_progress: 'in progress', blocked: 'blocked', returned: 'returned' };

/** The session's held work units: where each stopped, and the commands to go on. */
function heldLines(held: readonly HeldWorkUnit[]): string[] {
  if (held.length === 0) return [];
  const lines = [`Held work units: ${held.length}`];
  for (const w of held) {
    const where = [w.claim.mode, w.claim.worktree_path, w.claim.branch].filter((x) => x !== null).join(' ');
    lines.push(
      `  ${w.wu_id}  ${w.title} — ${HELD_STATUS[w.status]}${w.blocked_reason !== null ? `: ${w.blocked_reason}` : ''} (claimed #${w.claim.seq}, ${where})`,
    );
    const cp = w.last_checkpoint;
    if (cp === null) lines.push('    last checkpoint: none yet');
    else {
      lines.push(`    last checkpoint: #${cp.seq} ${cp.at} ${cp.note}${cp.progress !== null ? ` (${cp.progress})` : ''}`);
      if (cp.next_steps !== null) lines.push(`    next steps:      ${cp.next_steps}`);
    }
    for (const c of w.commands) lines.push(`    $ ${c.command}   # ${c.why}`);
  }
  return lines;
}

export function humanStatus(e: z.output<typeof OrchestrationStatusEnvelope>): string {
  const l = e.lastStoppingPoint;
  const tail = [`Next action: ${l.nextAction.description}`, `Resume: ${l.resumeCommand}`];
  // tasks.md T25 keeps the wizard's answer (exit 0, storeExists false); a person is told plainly.
  if (!e.storeExists)
    return [`No orchestration store recorded yet (${e.storePath}): this folder is no Baton workspace; \`baton init\` makes it one.`, ...tail].join('\n');
  const lines = [
    `Store: ${e.storePath} (generated ${e.generatedAt})`,
    `Active session: ${l.currentSessionId ?? 'none'}`,
    `Goal: ${l.currentGoal ?? '(none)'}`,
    `Branch: ${l.currentBranch ?? '(none)'}`,
    `Worktree: ${l.currentWorktree ?? '(none)'}`,
    `Active tasks: ${l.activeTasks.length}`,
    `Queued tasks: ${l.queuedTasks.length}`,
    `Stopped tasks (24h): ${l.stoppedTasks.length}`,
    `Recently completed: ${l.recentlyCompletedTasks.length}`,
    `Unread signals: ${e.baton.unread_signals.count}`,
    ...heldLines(e.baton.held_work_units),
  ];
  for (const i of e.baton.initiatives) {
    const first = i.next_safe_actions[0];
    if (!first) continue;
    const more = i.next_safe_actions.length > 1 ? ` (+${i.next_safe_actions.length - 1} more)` : '';
    lines.push(`${i.initiative}: ${String(first['type'])} ${String(first['wu_id'] ?? '')} — ${String(first['reason'] ?? '')}${more}`);
  }
  const findings = e.baton.integrity_findings;
  if (e.baton.integrity_finding_count > 0) {
    const shown = findings.length < e.baton.integrity_finding_count ? ` (the latest ${findings.length})` : '';
    lines.push(`Integrity findings: ${e.baton.integrity_finding_count}${shown}`);
    for (const f of findings) lines.push(`  seq ${f.seq} ${f.type} on ${f.stream}: ${f.reason}`);
  }
  return [...lines, ...tail].join('\n');
}
