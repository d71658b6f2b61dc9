import type { AcceptedEvent, BatonEvent } from '../../events/baton-event.js';
import { rejectionText } from '../rejection-text.js';
import type { Projection } from '../projection.js';

/**
 * `baton audit why WU-7`: the causal chain behind a WU's state across streams, one line per event
 * in log order: its definition and claims, the sessions that made them (their start, end and
 * lapses), the signals about it and the receipts they got, checkpoints, blocks, returns, takeovers,
 * releases, observations and the stamp. A fold over the whole log, for one WU.
 */
export interface WhyLine {
  seq: number;
  at: string;
  actor: string;
  stream: string;
  type: string;
  text: string;
}

export interface WhyState {
  wu_id: string;
  /** The WU was seen (an event on its stream, or one naming it). */
  known: boolean;
  lines: WhyLine[];
  /** Sessions that claimed, worked on or took over the WU: their start and end join the chain. */
  involved: string[];
  /** Every session's start and end (which sessions matter is known only once their claims are read). */
  session_lines: Record<string, WhyLine[]>;
  /** Signals about the WU: their receipts join the chain. */
  signals: string[];
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const clip = (s: string, n = 120): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

function lineOf(event: BatonEvent, text: string): WhyLine {
  return { seq: event.seq, at: event.at, actor: event.actor, stream: event.stream, type: event.type, text };
}

/** One event's words in the chain; an event `baton audit --fix` appended says so, with the finding it settled. */
export function describeEvent(event: AcceptedEvent): string {
  const audit = (event.data as { audit?: { code: string; reason: string } }).audit;
  return baseText(event) + (audit !== undefined ? ` [baton audit --fix: ${audit.code}]` : '');
}

function baseText(event: AcceptedEvent): string {
  const d: Record<string, unknown> = event.data;
  switch (event.type) {
    case 'wu.claimed': {
      const by = str(d['session_id']) ?? `agent ${str(d['agent_identity']) ?? '?'}`;
      const where = [str(d['mode']), str(d['worktree_path']), str(d['branch'])].filter((x) => x !== null).join(', ');
      const over = str(d['takeover_from']) !== null ? `; took over from ${str(d['takeover_from'])}` : '';
      const why = str(d['reason']) !== null ? ` (reason: ${clip(str(d['reason'])!)})` : '';
      return `claimed by ${by} (${where})${over}${why}`;
    }
    case 'wu.checkpointed':
      return `checkpoint: ${clip(str(d['note']) ?? '')}${str(d['next_steps']) !== null ? ` (next: ${clip(str(d['next_steps'])!, 60)})` : ''}`;
    case 'wu.released':
      return `released${str(d['previous_claimant']) !== null ? ` from ${str(d['previous_claimant'])}` : ''}${str(d['reason']) !== null ? ` (reason: ${clip(str(d['reason'])!)})` : ''}`;
    case 'wu.stamped':
      return `stamped done on ${str(d['completed_date']) ?? '?'} (${str(d['stamp_path']) ?? '?'})${str(d['finished_for']) !== null ? ` for ${str(d['finished_for'])}` : ''}`;
    case 'wu.blocked':
      return `blocked: ${clip(str(d['reason']) ?? '')}`;
    case 'wu.worker_returned':
      return `worker returned it${str(d['note']) !== null ? `: ${clip(str(d['note'])!)}` : ''}`;
    case 'session.started':
      return `session ${str(d['session_id'])} (${str(d['display_name'])}) started${str(d['agent_identity']) !== null ? ` as ${str(d['agent_identity'])}` : ''}`;
    case 'session.ended':
      return `session ${str(d['session_id'])} ended ${str(d['status'])}`;
    case 'session.lapsed':
      return `session ${str(d['session_id'])}'s lease lapsed at ${str(d['lapsed_at'])} (last seen ${str(d['last_seen'])})`;
    case 'signal.sent':
      return `signal ${str(d['signal_id'])} ${str(d['intent'])} from ${str(d['sender_identity'])}${d['requires_ack'] === true ? ' (ACK required)' : ''}: ${clip(str(d['message']) ?? '')}`;
    case 'receipt.recorded':
      return `${str(d['reader_identity'])} ${str(d['delivery_state'])} signal ${str(d['signal_id'])}`;
    default:
      return defaultText(event.type, d);
  }
}

function defaultText(type: string, d: Record<string, unknown>): string {
  const bits = ['path', 'branch', 'present', 'valid', 'reason', 'note', 'launch_attempt', 'relaunch', 'status']
    .filter((k) => d[k] !== undefined && d[k] !== null)
    .map((k) => `${k}=${typeof d[k] === 'string' ? clip(d[k] as string, 80) : JSON.stringify(d[k])}`);
  return [type, ...bits].join(' ');
}

function involve(state: WhyState, session: string | null): void {
  if (session !== null && !state.involved.includes(session)) state.involved.push(session);
}

export function initWhy(wuId: string): WhyState {
  return { wu_id: wuId, known: false, lines: [], involved: [], session_lines: {}, signals: [] };
}

export function applyWhy(state: WhyState, event: BatonEvent): WhyState {
  const wuId = state.wu_id;
  if (event.rejected !== undefined) {
    if (event.stream === `wu/${wuId}` || event.data['wu_id'] === wuId) state.lines.push(lineOf(event, `refused by the catalog: ${rejectionText(event)}`));
    return state;
  }
  const d: Record<string, unknown> = event.data;
  if (event.type === 'session.started' || event.type === 'session.ended') {
    const id = event.data.session_id;
    const lines = Object.hasOwn(state.session_lines, id) ? state.session_lines[id]! : [];
    if (!Object.hasOwn(state.session_lines, id))
      Object.defineProperty(state.session_lines, id, { value: lines, enumerable: true, writable: true, configurable: true });
    lines.push(lineOf(event, describeEvent(event)));
    if (event.type === 'session.started' && event.data.wu_id === wuId) involve(state, id);
    return state;
  }
  const aboutWu = event.stream === `wu/${wuId}` || d['wu_id'] === wuId;
  const lapse = event.type === 'session.lapsed' && event.data.held_wus.includes(wuId);
  const receipt = event.type === 'receipt.recorded' && state.signals.includes(event.data.signal_id);
  if (!aboutWu && !lapse && !receipt) return state;
  if (aboutWu) state.known = true;
  state.lines.push(lineOf(event, describeEvent(event)));
  if (event.type === 'signal.sent' && str(d['signal_id']) !== null) state.signals.push(str(d['signal_id'])!);
  if (event.type === 'wu.claimed') {
    involve(state, event.data.session_id);
    involve(state, event.data.takeover_from);
  }
  if (event.type === 'wu.checkpointed' || event.type === 'wu.worker_returned') involve(state, event.data.session_id);
  return state;
}

/** The chain in log order: the WU's own lines and the start and end of every session involved. */
export function whyChain(state: WhyState): WhyLine[] | null {
  if (!state.known) return null;
  const lines = [...state.lines];
  for (const id of state.involved) lines.push(...(Object.hasOwn(state.session_lines, id) ? state.session_lines[id]! : []));
  return lines.sort((a, b) => a.seq - b.seq);
}

/** The chain as a projection (no snapshot: `name` is per WU and the runner is given no cache). */
export function whyProjection(wuId: string): Projection<WhyState, WhyLine[] | null> {
  return { name: 'audit_why', version: 1, init: () => initWhy(wuId), apply: applyWhy, view: whyChain };
}
