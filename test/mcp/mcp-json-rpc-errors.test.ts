import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startBaton } from '../helpers/cli.js';
import { MCP_TOOL_NAMES } from '../helpers/mcp-client.js';
import { T0, workspace } from '../helpers/coordination.js';
import { removeTempDirs } from '../helpers/workspace.js';

afterAll(removeTempDirs);

/** A hung server fails the test instead of stalling it: the child is killed after this long. */
const CHILD_DEADLINE_MS = 45_000;
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

const JsonRpcError = z.strictObject({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string(), z.number(), z.null()]),
  error: z.strictObject({ code: z.number().int(), message: z.string().min(1), data: z.unknown().optional() }),
});
const JsonRpcResult = z.strictObject({ jsonrpc: z.literal('2.0'), id: z.union([z.string(), z.number()]), result: z.record(z.string(), z.unknown()) });
const Reply = z.union([JsonRpcError, JsonRpcResult]);
type Reply = z.infer<typeof Reply>;

const line = (message: unknown): string => `${JSON.stringify(message)}\n`;
const INITIALIZE = line({
  jsonrpc: '2.0',
  id: 'init',
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-test', version: '1.0.0' } },
});
const INITIALIZED = line({ jsonrpc: '2.0', method: 'notifications/initialized' });
const TOOLS_LIST = line({ jsonrpc: '2.0', id: 'list', method: 'tools/list' });
/** A client's whole handshake and first request: its last reply is the tools/list result. */
const HANDSHAKE = INITIALIZE + INITIALIZED + TOOLS_LIST;

interface Served {
  replies: Reply[];
  stderr: string;
  /** The exit code, or null when the server was still up once the tools were listed. */
  code: number | null;
}

/**
 * Start `baton mcp`, write `chunks` to its stdin one after another, and read replies until the
 * `tools/list` answer arrives (then close stdin) or the server exits; the deadline kills a hang.
 */
async function serve(chunks: readonly (string | Buffer)[]): Promise<Served> {
  const ws = await workspace();
  const child = startBaton(['--dir', ws.dir, 'mcp'], { env: { BATON_NOW: T0 } });
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    let listed = false;
    const replies: Reply[] = [];
    const deadline = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`baton mcp gave no tools/list answer within ${CHILD_DEADLINE_MS} ms; replies so far: ${JSON.stringify(replies)}; stderr: ${stderr}`));
    }, CHILD_DEADLINE_MS);
    const finish = (code: number | null): void => {
      clearTimeout(deadline);
      resolve({ replies, stderr, code });
    };
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString('utf8')));
    child.stdout.on('data', (data: Buffer) => {
      stdout += data.toString('utf8');
      let newline: number;
      while ((newline = stdout.indexOf('\n')) !== -1) {
        const text = stdout.slice(0, newline);
        stdout = stdout.slice(newline + 1);
        replies.push(Reply.parse(JSON.parse(text)));
        if (replies.at(-1)!.id === 'list' && !listed) {
          listed = true;
          child.stdin.end();
          finish(null);
        }
      }
    });
    child.on('exit', (code) => {
      if (!listed) finish(code);
    });
    child.stdin.on('error', () => undefined); // a server that exited early closes the pipe
    writeAll(child, chunks);
  });
}

function writeAll(child: ChildProcessWithoutNullStreams, chunks: readonly (string | Buffer)[]): void {
  for (const chunk of chunks) child.stdin.write(chunk);
}

function toolNames(reply: Reply | undefined): string[] {
  const result = JsonRpcResult.parse(reply);
  return (result.result['tools'] as { name: string }[]).map((t) => t.name).sort();
}

const TOOLS = MCP_TOOL_NAMES;

/** Every malformed line, the code it must be answered with and the id the answer must carry. */
const MALFORMED: readonly { name: string; input: string | Buffer; code: number; id: string | number | null }[] = [
  { name: 'text that is not JSON', input: 'hello, server\n', code: PARSE_ERROR, id: null },
  { name: 'truncated JSON', input: '{"jsonrpc":"2.0","id":1,"method":"tools/list"\n', code: PARSE_ERROR, id: null },
  { name: 'a NUL byte inside the JSON', input: Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/\u0000list"}\n', 'utf8'), code: PARSE_ERROR, id: null },
  { name: 'NUL bytes alone', input: Buffer.from([0, 0, 0, 0x0a]), code: PARSE_ERROR, id: null },
  {
    name: 'bytes that are not UTF-8',
    input: Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}\n')]),
    code: PARSE_ERROR,
    id: null,
  },
  { name: 'an empty object', input: '{}\n', code: INVALID_REQUEST, id: null },
  { name: 'an empty array', input: '[]\n', code: INVALID_REQUEST, id: null },
  {
    name: 'a batch',
    input: line([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
    ]),
    code: INVALID_REQUEST,
    id: null,
  },
  { name: 'a JSON string', input: '"tools/list"\n', code: INVALID_REQUEST, id: null },
  { name: 'JSON null', input: 'null\n', code: INVALID_REQUEST, id: null },
  { name: 'a request missing jsonrpc', input: line({ id: 7, method: 'tools/list' }), code: INVALID_REQUEST, id: 7 },
  { name: 'a request with jsonrpc "1.0"', input: line({ jsonrpc: '1.0', id: 'x', method: 'ping' }), code: INVALID_REQUEST, id: 'x' },
  { name: 'a notification missing jsonrpc', input: line({ method: 'notifications/initialized' }), code: INVALID_REQUEST, id: null },
  { name: 'a request with a null id', input: line({ jsonrpc: '2.0', id: null, method: 'tools/list' }), code: INVALID_REQUEST, id: null },
  { name: 'a request with an object id', input: line({ jsonrpc: '2.0', id: { n: 1 }, method: 'tools/list' }), code: INVALID_REQUEST, id: null },
  { name: 'a numeric method', input: line({ jsonrpc: '2.0', id: 3, method: 5 }), code: INVALID_REQUEST, id: 3 },
  { name: 'a notification with a numeric method', input: line({ jsonrpc: '2.0', method: 1, params: 'bar' }), code: INVALID_REQUEST, id: null },
  { name: 'params that are not an object', input: line({ jsonrpc: '2.0', id: 4, method: 'tools/list', params: 'all' }), code: INVALID_REQUEST, id: 4 },
];

describe('baton mcp answers malformed input per JSON-RPC 2.0 and stays up', () => {
  it.each(MALFORMED)(
    '$name: one error reply ($code) with the id it could read, then initialize and tools/list still work',
    async ({ input, code, id }) => {
      const served = await serve([input, HANDSHAKE]);
      expect(served.code).toBeNull();
      expect(served.replies).toHaveLength(3);
      const [error, initialized, listed] = served.replies;
      expect(JsonRpcError.parse(error)).toMatchObject({ id, error: { code } });
      expect(JsonRpcResult.parse(initialized).id).toBe('init');
      expect(toolNames(listed)).toEqual(TOOLS);
    },
    60_000,
  );

  it('answers malformed lines sent after the handshake, one error each in the order read, never a peer error reply, and a request split across writes', async () => {
    const served = await serve([
      INITIALIZE + INITIALIZED,
      // A peer's error reply is an answer, never answered in turn: no reply to it.
      `garbage\n{}\n${line({ jsonrpc: '2.0', id: null, error: { code: PARSE_ERROR, message: 'Parse error' } })}${line({ jsonrpc: '2.0', id: 9, method: 'ping' })}[1]\n{"jsonrpc":"2.0","id":"li`,
      'st","method":"tools/list"}\n',
    ]);
    expect(served.code).toBeNull();
    // Errors are answered as each line is read, results when their handler is done: JSON-RPC lets
    // replies come in any order, so each kind is checked on its own.
    const errors = served.replies.filter((r) => 'error' in r).map((r) => JsonRpcError.parse(r));
    expect(errors.map((r) => [r.id, r.error.code])).toEqual([
      [null, PARSE_ERROR],
      [null, INVALID_REQUEST],
      [null, INVALID_REQUEST],
    ]);
    const results = served.replies.filter((r) => 'result' in r);
    expect(results.map((r) => r.id).sort()).toEqual([9, 'init', 'list'].sort());
    expect(served.replies).toHaveLength(6);
    expect(toolNames(results.find((r) => r.id === 'list'))).toEqual(TOOLS);
  }, 60_000);

  it('answers a message over 10 MiB with an error naming the limit, discards it up to its newline, and keeps serving', async () => {
    const padding = 'a'.repeat(11 * 1024 * 1024);
    const oversized = line({ jsonrpc: '2.0', id: 99, method: 'tools/call', params: { name: 'status', arguments: { padding } } });
    const served = await serve([oversized + HANDSHAKE]);
    expect(served.code).toBeNull();
    expect(served.replies).toHaveLength(3);
    const [error, initialized, listed] = served.replies;
    const parsed = JsonRpcError.parse(error);
    expect(parsed.id).toBeNull();
    expect([INVALID_REQUEST, PARSE_ERROR]).toContain(parsed.error.code);
    expect(parsed.error.message).toMatch(/10 MiB/);
    expect(JsonRpcResult.parse(initialized).id).toBe('init');
    expect(toolNames(listed)).toEqual(TOOLS);
  }, 60_000);
});
