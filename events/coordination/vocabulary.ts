/**
 * Identity and id rules of coordination.md §1 and §5, and the coordination enums: the zod-free half
 * of identities.ts, so the fold, the projections and the CLI's read path check the same patterns
 * without loading zod. identities.ts re-exports all of it next to the zod schemas built from it.
 */
export const SESSION_ID_PATTERN = /^session_[A-Za-z0-9_-]{1,120}$/;
export const DISPLAY_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,31}$/;
/** An explicit stable identity; never `session_…`, so it can never be mistaken for a session id. */
export const AGENT_IDENTITY_PATTERN = /^(?!session_)[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/;
/** A canonical identity as persisted: a session id, an agent identity, or `system`. */
export const CANONICAL_IDENTITY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/;
export const ROLE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;
export const SIGNAL_ID_PATTERN = /^sig-[0-9a-z]{4,64}$/;
export const THREAD_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
export const WORKSPACE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
export const ORIGIN_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;
export const WU_ID_PATTERN = /^WU-[0-9]{1,9}$/;
/** LumenFlow's own rule (`INIT-MCP`, `INIT-056`), bounded so an id stays a short file name. */
export const INITIATIVE_ID_PATTERN = /^INIT-[0-9A-Z][0-9A-Z-]{0,63}$/;
export const INITIATIVE_ID_RULE = 'must match ^INIT-[0-9A-Z][0-9A-Z-]*$ (at most 69 characters)';
// eslint-disable-next-line no-control-regex
export const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

export const SYSTEM_IDENTITY = 'system';
export const A2A_SCHEMA_VERSION = 'A2A.V1';
export const MAX_MESSAGE_LENGTH = 16_384;
export const MAX_RECIPIENTS = 64;

export const ClientType = { claude_code: 'claude-code', codex: 'codex', gemini: 'gemini', generic: 'generic' } as const;
export type ClientType = (typeof ClientType)[keyof typeof ClientType];
export const CLIENT_TYPES = Object.values(ClientType);

/** Stored end statuses; `active` is the status before any end, `abandoned` is never stored. */
export const EndStatus = { succeeded: 'succeeded', failed: 'failed', cancelled: 'cancelled' } as const;
export type EndStatus = (typeof EndStatus)[keyof typeof EndStatus];
export const END_STATUSES = Object.values(EndStatus);

export const SessionStatus = { active: 'active', abandoned: 'abandoned', ...EndStatus } as const;
export type SessionStatus = (typeof SessionStatus)[keyof typeof SessionStatus];

export const Intent = { INFO: 'INFO', PROPOSE: 'PROPOSE', COUNTER: 'COUNTER', AGREE: 'AGREE', REJECT: 'REJECT' } as const;
export type Intent = (typeof Intent)[keyof typeof Intent];
export const INTENTS = Object.values(Intent);

export const InterruptClass = { interrupt: 'interrupt', priority: 'priority', advisory: 'advisory' } as const;
export type InterruptClass = (typeof InterruptClass)[keyof typeof InterruptClass];
export const INTERRUPT_CLASSES = Object.values(InterruptClass);

export const DeliveryState = { delivered: 'delivered', acked: 'acked', rejected: 'rejected' } as const;
export type DeliveryState = (typeof DeliveryState)[keyof typeof DeliveryState];
export const DELIVERY_STATES = Object.values(DeliveryState);

export const ReceiptVia = { inbox: 'inbox', watch: 'watch', hook: 'hook', reply: 'reply' } as const;
export type ReceiptVia = (typeof ReceiptVia)[keyof typeof ReceiptVia];
export const RECEIPT_VIAS = Object.values(ReceiptVia);
