import { z } from 'zod';
import { DELIVERY_STATES, INTENTS, SessionStatus } from '../../../events/coordination/identities.js';
import { A2ASignalV1 } from '../../../events/coordination/signal.js';

/** The JSON envelopes of coordination.md (and tasks.md's `orchestration_session`), validated before printing. */
const generatedAt = z.iso.datetime();
function envelope<T extends string, S extends z.ZodRawShape>(type: T, shape: S) {
  return z.strictObject({ v: z.literal(1), type: z.literal(type), generated_at: generatedAt, ...shape });
}
const STATUSES = Object.values(SessionStatus);
const nullableString = z.string().nullable();
const epochMs = z.number().int();

/** tasks.md §10.3 Session: camelCase parity keys, epoch-ms times, Baton's fields under `baton`. */
export const OrchestrationSession = z.strictObject({
  id: z.string(),
  installDir: z.string(),
  createdAt: epochMs,
  updatedAt: epochMs,
  goal: z.string().optional(),
  branch: z.string().optional(),
  worktree: z.string().optional(),
  status: z.enum(STATUSES),
  finishedAt: epochMs.optional(),
  baton: z.strictObject({
    display_name: z.string(),
    agent_identity: z.string().optional(),
    role: z.string().optional(),
    wu_id: z.string().optional(),
    lane: z.string().optional(),
    client_type: z.string().optional(),
    last_heartbeat_at: generatedAt,
    stored_status: z.enum(STATUSES),
    /** Its recorded lapse while it stands (no sign of life since): when its lease lapsed and the WUs it held. */
    lapse: z
      .strictObject({
        last_seen: generatedAt,
        lapsed_at: generatedAt,
        ttl_seconds: z.number().int().min(1),
        held_wus: z.array(z.string()),
        seq: z.number().int().min(1),
        recorded_at: generatedAt,
      })
      .optional(),
  }),
});

export const OrchestrationSessionEnvelope = envelope('orchestration_session', {
  generatedAt,
  installDir: z.string(),
  session: OrchestrationSession,
  tasks: z.array(z.unknown()),
  baton: z.strictObject({ subagents: z.array(z.unknown()) }),
});

/** A fact the coordination fold could not apply: an event that fails its schema, a receipt for an unknown signal, … */
const CoordinationFinding = z.strictObject({ seq: z.number().int().min(1), type: z.string(), reason: z.string() });

export const RosterEnvelope = envelope('roster', {
  sessions: z.array(
    z.strictObject({
      session_id: z.string(),
      display_name: z.string(),
      agent_identity: nullableString,
      reader_identity: z.string(),
      role: nullableString,
      wu_id: nullableString,
      lane: nullableString,
      client_type: nullableString,
      status: z.enum(STATUSES),
      created_at: generatedAt,
      last_heartbeat_at: generatedAt,
    }),
  ),
  integrity_findings: z.array(CoordinationFinding),
});

export const SignalSentEnvelope = envelope('signal_sent', {
  seq: z.number().int().min(1),
  deduplicated: z.boolean(),
  signal: A2ASignalV1,
  promoted_receipts: z.number().int().min(0),
  hook_enqueued: z.array(z.string()),
});

const InboxSignal = z.looseObject({
  signal_id: z.string(),
  seq: z.number().int().min(1),
  read: z.boolean(),
  delivery_state: z.enum(DELIVERY_STATES).nullable(),
  sender_display_name: nullableString,
});

export const InboxEnvelope = envelope('inbox', {
  reader_identity: nullableString,
  session_id: nullableString,
  marked: z.number().int().min(0),
  signals: z.array(InboxSignal),
  integrity_findings: z.array(CoordinationFinding),
});

export const ConvergenceEnvelope = envelope('convergence', {
  thread_id: z.string(),
  state: z.enum(['open', 'converged', 'rejected']),
  root_signal_id: z.string(),
  proposal_signal_id: z.string(),
  proposal_author: z.string(),
  required: z.array(z.string()),
  agreed: z.array(z.string()),
  rejected: z.array(z.string()),
  pending: z.array(z.string()),
  other_votes: z.array(z.strictObject({ identity: z.string(), intent: z.enum(INTENTS), signal_id: z.string() })),
});

export const HooksInstalledEnvelope = envelope('hooks_installed', {
  client: z.literal('claude-code'),
  files: z.array(z.string()),
  changed: z.boolean(),
});

const DeliveredEvent = z.strictObject({ event: z.literal('signal:received'), signal: A2ASignalV1, reply_commands: z.array(z.string()) });

export const HookDrainEnvelope = envelope('hook_drain', {
  session_id: nullableString,
  reader_identity: nullableString,
  events: z.array(DeliveredEvent),
});

export const SignalReceivedEnvelope = envelope('signal_received', {
  session_id: z.string(),
  reader_identity: z.string(),
  latency_ms: z.number().int().min(0),
  signal: A2ASignalV1,
  reply_commands: z.array(z.string()),
});

export const WuPrepEnvelope = envelope('wu_prep', {
  wu_id: z.string(),
  passed: z.literal(true),
  reader_identity: nullableString,
  checks: z.array(z.strictObject({ name: z.string(), passed: z.boolean(), detail: z.string() })),
  overridden_signal_ids: z.array(z.string()),
});
