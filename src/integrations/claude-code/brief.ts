import { inboxRecords } from '../../../projections/coordination/signals.js';
import { displayNameFor } from '../../../projections/coordination/sessions.js';
import type { SignalRecord } from '../../../projections/coordination/state.js';
import type { TasksState } from '../../../projections/tasks/state.js';
import type { StatusEnvelope } from '../../../projections/tasks/views.js';

/**
 * The brief an agent gets at session start and after a compaction: who it is, what it holds (its
 * claimed work units with their last checkpoint, its tasks), the next action of `baton status`'s
 * last stopping point, and its unread signals — within a budget, so it never floods the context.
 */
export const BRIEF_BUDGET = 2000;

export interface BriefInputs {
  sessionId: string;
  /** startup, resume, clear or compact (Claude Code's `source`). */
  source: string | undefined;
  tasks: TasksState;
  /** `status` scoped to the session: its held work units and the next action. */
  status: StatusEnvelope;
  unread: readonly SignalRecord[];
  now: string;
}

const oneLine = (text: string, max: number): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

export function sessionBrief(inputs: BriefInputs): { text: string; shown: SignalRecord[] } {
  const { sessionId, tasks, status, unread, now } = inputs;
  const session = tasks.coordination.sessions.get(sessionId);
  const name = session?.display_name ?? sessionId;
  const how =
    inputs.source === 'compact'
      ? 'continued after a context compaction'
      : inputs.source === 'resume'
        ? 'resumed'
        : inputs.source === 'clear'
          ? 'continued after /clear'
          : 'started';
  const head = [
    `Baton: you are ${name} (session ${sessionId}), ${how}.`,
    `BATON_SESSION=${sessionId}; pass \`--session ${name}\` to baton commands if it is not set in your shell.`,
  ];

  const held: string[] = [];
  // The work units the session holds, as `status` scoped to it lists them (the first is the one to go on with).
  for (const [i, wu] of status.baton.held_work_units.entries()) {
    const cp = wu.last_checkpoint;
    const checkpoint =
      cp === null
        ? '; no checkpoint yet'
        : `; last checkpoint #${cp.seq} ${cp.at}: ${oneLine(cp.note, 160)}${cp.next_steps !== null ? `; next steps: ${oneLine(cp.next_steps, 160)}` : ''}`;
    held.push(`Work unit ${wu.wu_id} — ${oneLine(wu.title, 80)} (claimed, ${wu.status.replace('_', ' ')})${checkpoint}`);
    if (i === 0) for (const c of wu.commands) held.push(`- ${c.why}: \`${c.command}\``);
  }
  const lsp = status.lastStoppingPoint;
  for (const t of [...lsp.activeTasks, ...lsp.queuedTasks].slice(0, 3)) held.push(`Task ${t.id} "${oneLine(t.label, 80)}": ${t.state}`);
  if (held.length === 0) held.push('No claimed work unit and no open task.');

  const next = [`Next action: ${lsp.nextAction.description}${lsp.nextAction.command.length > 0 ? ` (\`${lsp.nextAction.command.join(' ')}\`)` : ''}`];
  for (const initiative of status.baton.initiatives.slice(0, 2)) {
    const action = initiative.next_safe_actions[0];
    if (action)
      next.push(`${initiative.initiative} next safe action: ${String(action['type'])} ${String(action['wu_id'])}: ${oneLine(String(action['reason']), 160)}`);
  }

  const fixed = [...head, ...held, ...next].join('\n');
  const signals: string[] = [];
  const shown: SignalRecord[] = [];
  if (unread.length > 0) {
    signals.push(`Unread signals (${unread.length}):`);
    let room = BRIEF_BUDGET - fixed.length - signals[0]!.length - 40;
    for (const [i, record] of unread.entries()) {
      const s = record.data;
      const sender = displayNameFor(tasks.coordination, now, s.sender_identity);
      const line = `- ${s.signal_id} ${s.intent} from ${s.sender_identity}${sender ? ` (${sender})` : ''}: ${oneLine(s.message, 300)}`;
      if (line.length + 1 > room) {
        signals.push(`- … and ${unread.length - i} more: \`baton mem inbox\``);
        break;
      }
      signals.push(line);
      shown.push(record);
      room -= line.length + 1;
    }
  } else signals.push('No unread signals.');
  const brief = `${fixed}\n${signals.join('\n')}`;
  return { text: brief.length > BRIEF_BUDGET ? `${brief.slice(0, BRIEF_BUDGET - 1)}…` : brief, shown };
}

/** The unread signals of a reader, in log order (what `mem inbox` lists unread). */
export function unreadFor(tasks: TasksState, reader: string, workspace: string | undefined): SignalRecord[] {
  return inboxRecords(tasks.coordination, { reader, all: false, workspace });
}
