import { invalidInput } from '../../errors.js';

/**
 * What Claude Code writes on a hook's stdin (its hooks reference): every event carries
 * `session_id`, `transcript_path`, `cwd` and `hook_event_name`; SessionStart adds `source`
 * (startup, resume, clear, compact); PostToolUse `tool_name`; SubagentStart and SubagentStop
 * `agent_id` and `agent_type`; SessionEnd `reason`. Checked by hand, not by zod: the hook runs after
 * every tool call and must start fast. Unknown fields are ignored.
 */
export interface ClaudeHookInput {
  session_id: string;
  hook_event_name: string | undefined;
  cwd: string | undefined;
  transcript_path: string | undefined;
  source: string | undefined;
  tool_name: string | undefined;
  agent_id: string | undefined;
  agent_type: string | undefined;
  reason: string | undefined;
}

const MAX_ID = 256;

function optionalString(value: Record<string, unknown>, key: string): string | undefined {
  const field = value[key];
  if (field === undefined || field === null) return undefined;
  if (typeof field !== 'string') throw invalidInput('must be a string', `stdin.${key}`);
  return field;
}

export function parseHookInput(text: string): ClaudeHookInput {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalidInput(`is not valid JSON (${(error as Error).message})`, 'stdin');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidInput('must be a JSON object', 'stdin');
  const record = value as Record<string, unknown>;
  const sessionId = record['session_id'];
  // eslint-disable-next-line no-control-regex -- a control character is what it refuses
  if (typeof sessionId !== 'string' || sessionId.length === 0 || sessionId.length > MAX_ID || /[\u0000-\u001f]/.test(sessionId)) {
    throw invalidInput(`must be Claude Code's session id (1–${MAX_ID} characters)`, 'stdin.session_id');
  }
  return {
    session_id: sessionId,
    hook_event_name: optionalString(record, 'hook_event_name'),
    cwd: optionalString(record, 'cwd'),
    transcript_path: optionalString(record, 'transcript_path'),
    source: optionalString(record, 'source'),
    tool_name: optionalString(record, 'tool_name'),
    agent_id: optionalString(record, 'agent_id'),
    agent_type: optionalString(record, 'agent_type'),
    reason: optionalString(record, 'reason'),
  };
}
