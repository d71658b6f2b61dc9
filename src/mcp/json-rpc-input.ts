import { JSONRPCMessageSchema, JSONRPCNotificationSchema, JSONRPCRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/**
 * What `baton mcp` does with one line of input: hand a valid JSON-RPC message to the SDK, or answer
 * what is not one with the standard JSON-RPC 2.0 error response. "Valid" is the SDK's own
 * `JSONRPCMessageSchema`, so everything handed on is something the SDK's protocol layer accepts.
 */
export const JsonRpcErrorCode = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
} as const;
export type JsonRpcErrorCode = (typeof JsonRpcErrorCode)[keyof typeof JsonRpcErrorCode];

/** The error response Baton writes itself: the SDK's types have no `id: null`, which JSON-RPC requires when the id cannot be read. */
export const JsonRpcErrorReply = z.strictObject({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string(), z.number(), z.null()]),
  error: z.strictObject({ code: z.number().int(), message: z.string().min(1) }),
});
export type JsonRpcErrorReply = z.infer<typeof JsonRpcErrorReply>;

export const InputVerdictKind = {
  /** A valid message, for the SDK. */
  MESSAGE: 'message',
  /** Malformed: answer with this error response. */
  ANSWER: 'answer',
  /** Nothing to act on: a blank line, or a malformed response (an answer is never answered). */
  IGNORE: 'ignore',
} as const;

export type InputVerdict =
  | { kind: typeof InputVerdictKind.MESSAGE; message: JSONRPCMessage }
  | { kind: typeof InputVerdictKind.ANSWER; reply: JsonRpcErrorReply }
  | { kind: typeof InputVerdictKind.IGNORE; reason: string | undefined };

export function errorReply(code: JsonRpcErrorCode, message: string, id: string | number | null = null): JsonRpcErrorReply {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });
/** JSON's own whitespace (RFC 8259); a line of only that carries no message. */
const BLANK = /^[ \t\r]*$/;

export function judgeLine(bytes: Uint8Array): InputVerdict {
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    return answer(errorReply(JsonRpcErrorCode.PARSE_ERROR, 'Parse error: the message is not valid UTF-8'));
  }
  if (BLANK.test(text)) return { kind: InputVerdictKind.IGNORE, reason: undefined };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return answer(errorReply(JsonRpcErrorCode.PARSE_ERROR, `Parse error: ${(error as Error).message}`));
  }
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (parsed.success) return { kind: InputVerdictKind.MESSAGE, message: parsed.data };
  return judgeInvalid(value);
}

function answer(reply: JsonRpcErrorReply): InputVerdict {
  return { kind: InputVerdictKind.ANSWER, reply };
}

function invalid(reason: string, id: string | number | null = null): InputVerdict {
  return answer(errorReply(JsonRpcErrorCode.INVALID_REQUEST, `Invalid Request: ${reason}`, id));
}

/** JSON that the SDK refuses: say which rule it breaks, with its id when one can be read. */
function judgeInvalid(value: unknown): InputVerdict {
  // MCP's current protocol has no batches: one error for the whole array, as for an empty one.
  if (Array.isArray(value)) return invalid('batches (JSON arrays) are not supported; send one message per line');
  if (typeof value !== 'object' || value === null) return invalid('a message must be a JSON object');
  const message = value as Record<string, unknown>;
  // A malformed response is the peer's answer to us; answering it could start two peers trading errors forever.
  if (!('method' in message) && ('result' in message || 'error' in message)) return { kind: InputVerdictKind.IGNORE, reason: 'a malformed JSON-RPC response' };
  const id = message['id'];
  const readableId = typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
  if (message['jsonrpc'] !== '2.0') return invalid('"jsonrpc" must be "2.0"', readableId);
  if ('id' in message && !(typeof id === 'string' || Number.isInteger(id)))
    return invalid(`"id" must be a string or an integer, got ${id === null || typeof id === 'number' ? String(id) : typeof id}`, readableId);
  if (typeof message['method'] !== 'string') return invalid('"method" must be a string', readableId);
  const schema = 'id' in message ? JSONRPCRequestSchema : JSONRPCNotificationSchema;
  const issue = schema.safeParse(value).error?.issues[0];
  const where = issue === undefined || issue.path.length === 0 ? '' : `"${issue.path.map(String).join('.')}": `;
  return invalid(`${where}${issue?.message ?? 'not a JSON-RPC 2.0 request or notification'}`, readableId);
}
