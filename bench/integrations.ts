import { spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { generateLog } from './log-fixture.js';
import { envWithout, interleaveWithNode, nodeRatioRow } from './node-reference.js';
import { formatNumber, type BenchResult } from './report.js';
import { BATON_BIN } from './short-command.js';
import { writeHead } from './status.js';
import { median, withTempDir } from './support.js';

/**
 * Issue 18's two budgets. `baton hook claude-code PostToolUse` runs after every tool call an agent
 * makes: with nothing new it must cost ≤ 2 × `node -e 0`. `baton mcp`, once started, answers the
 * `status` tool on a log of 100,000 events in ≤ 20 ms. The serialized `tools/list` (what every MCP
 * client puts in the model's context) is printed beside it.
 */
export const HOOK_POST_TOOL_USE = {
  name: 'hook-post-tool-use',
  work: '`baton hook claude-code PostToolUse`, nothing new (4 sessions, 50 signals read)',
  maxRatio: 2,
};

/** Claude Code's PreToolUse on Edit/Write runs before every edit: the reservation check, allowed (the usual case), ≤ 2 × `node -e 0`. */
export const HOOK_PRE_TOOL_USE = {
  name: 'hook-pre-tool-use',
  work: '`baton hook claude-code PreToolUse` on an Edit of a free path (20 WUs, 10 claimed by 5 live sessions)',
  maxRatio: 2,
};

export const MCP_STATUS = {
  name: 'mcp-status',
  work: '`baton mcp` answering the `status` tool, once started, 100,000-event log',
  maxMs: 20,
  events: 100_000,
};

function runNode(args: readonly string[], input = ''): { ms: number; stdout: string } {
  const start = performance.now();
  const result = spawnSync(process.execPath, args, { env: envWithout(['BATON_', 'CLAUDE_']), input, stdio: ['pipe', 'pipe', 'pipe'], encoding: 'utf8' });
  const ms = performance.now() - start;
  if (result.status !== 0 || String(result.stderr).trim() !== '')
    throw new Error(
      `node ${args.slice(0, 6).join(' ')} exited with ${result.status}: ${String(result.stderr).trim() || String(result.stdout).trim().slice(0, 500)}`,
    );
  return { ms, stdout: result.stdout };
}

const baton = (dir: string, ...args: string[]): Record<string, unknown> =>
  JSON.parse(
    runNode([BATON_BIN, '--dir', dir, '--json', ...args])
      .stdout.trim()
      .split('\n')
      .at(-1)!,
  ) as Record<string, unknown>;

/**
 * The hook's session (started by a SessionStart hook, as Claude Code would), three other sessions,
 * 50 signals among them (some to the hook's session), all delivered once; then each timed run is
 * a PostToolUse with nothing new, interleaved with `node -e 0`.
 */
export async function benchHookPostToolUse(options: { runs: number }): Promise<BenchResult> {
  return withTempDir('hook-post-tool-use', async (dir) => {
    baton(dir, 'init');
    const hookInput = (event: string, extra: Record<string, unknown>) =>
      JSON.stringify({ session_id: 'bench-claude-session', transcript_path: '/tmp/bench.jsonl', cwd: dir, hook_event_name: event, ...extra });
    const hook = (event: string, extra: Record<string, unknown>) => runNode([BATON_BIN, '--dir', dir, 'hook', 'claude-code', event], hookInput(event, extra));
    if (!hook('SessionStart', { source: 'startup' }).stdout.includes('additionalContext')) throw new Error('SessionStart gave no brief');
    const others: string[] = [];
    for (let i = 0; i < 3; i++) others.push((baton(dir, 'session', 'start', '--agent-identity', `bench:agent:${i}`)['session'] as { id: string }).id);
    for (let i = 0; i < 50; i++) {
      const from = others[i % others.length]!;
      baton(
        dir,
        '--session',
        from,
        'mem',
        'signal',
        `message ${i}: please review lane Core`,
        ...(i % 7 === 0 ? [] : ['--to', i % 2 === 0 ? 'Planck' : others[(i + 1) % others.length]!]),
      );
    }
    const postToolUse = { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_response: { stdout: '' }, tool_use_id: 'toolu_bench' };
    const first = hook('PostToolUse', postToolUse);
    if (!first.stdout.includes('new signal')) throw new Error('the first PostToolUse delivered nothing');
    if (hook('PostToolUse', postToolUse).stdout !== '') throw new Error('PostToolUse repeated a delivered signal');
    const { nodeMs, commandMs: hookMs } = interleaveWithNode(
      options.runs,
      () => runNode(['-e', '0']).ms,
      () => {
        const run = hook('PostToolUse', postToolUse);
        if (run.stdout !== '') throw new Error('PostToolUse said something with nothing new');
        return run.ms;
      },
    );
    return nodeRatioRow(HOOK_POST_TOOL_USE, { nodeMs, commandMs: hookMs, runs: 'runs' }, () => [
      `the first PostToolUse after the signals delivered them (${formatNumber(first.ms, 1)} ms, one durable append of receipts; no floor)`,
    ]);
  });
}

/**
 * Twenty WUs with code paths, ten of them claimed by five other live sessions; the hook's session
 * started by a SessionStart hook. A write to a reserved path is denied (checked once); each timed
 * run is an Edit of a free path (allowed: no output), interleaved with `node -e 0`.
 */
export async function benchHookPreToolUse(options: { runs: number }): Promise<BenchResult> {
  return withTempDir('hook-pre-tool-use', async (dir) => {
    baton(dir, 'init');
    baton(dir, 'initiative', 'create', 'INIT-1', '--title', 'Bench', '--lanes', 'L1,L2,L3,L4,L5');
    for (let n = 1; n <= 20; n++) baton(dir, 'wu', 'create', `WU-${n}`, '--initiative', 'INIT-1', '--lane', `L${(n % 5) + 1}`, '--code-paths', `src/m${n}/**`);
    for (let i = 0; i < 5; i++) {
      const session = (baton(dir, 'session', 'start', '--agent-identity', `bench:agent:${i}`)['session'] as { id: string }).id;
      for (const n of [i + 1, i + 11]) baton(dir, '--session', session, 'wu', 'claim', `WU-${n}`, '--force', '--reason', 'bench', '--mode', 'branch-only');
    }
    const input = (path: string) =>
      JSON.stringify({
        session_id: 'bench-claude-session',
        transcript_path: '/tmp/bench.jsonl',
        cwd: dir,
        hook_event_name: 'PreToolUse',
        tool_name: 'Edit',
        tool_input: { file_path: `${dir}/${path}`, old_string: 'a', new_string: 'b' },
        tool_use_id: 'toolu_bench',
      });
    const hook = (path: string) => runNode([BATON_BIN, '--dir', dir, 'hook', 'claude-code', 'PreToolUse'], input(path));
    runNode(
      [BATON_BIN, '--dir', dir, 'hook', 'claude-code', 'SessionStart'],
      JSON.stringify({ session_id: 'bench-claude-session', cwd: dir, source: 'startup' }),
    );
    const denied = hook('src/m1/parser.ts');
    if (!denied.stdout.includes('"permissionDecision":"deny"')) throw new Error(`a reserved path was not denied: ${denied.stdout}`);
    const { nodeMs, commandMs } = interleaveWithNode(
      options.runs,
      () => runNode(['-e', '0']).ms,
      () => {
        const run = hook('src/free/notes.ts');
        if (run.stdout !== '') throw new Error(`PreToolUse denied a free path: ${run.stdout}`);
        return run.ms;
      },
    );
    return nodeRatioRow(HOOK_PRE_TOOL_USE, { nodeMs, commandMs, runs: 'runs' }, () => [
      `a write to a reserved path is denied the same way (${formatNumber(denied.ms, 1)} ms, checked once; no floor)`,
    ]);
  });
}

interface TextContent {
  type: string;
  text: string;
}

export async function benchMcpStatus(options: { runs: number; events: number }): Promise<BenchResult> {
  return withTempDir('mcp-status', async (dir) => {
    const headEvents = 20;
    generateLog(dir, Math.max(1, options.events - headEvents));
    baton(dir, 'init');
    const { session, events } = writeHead(dir);
    const client = new Client({ name: 'baton-bench', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BATON_BIN, '--dir', dir, '--session', session, 'mcp'],
        env: envWithout(['BATON_', 'CLAUDE_']),
        stderr: 'pipe',
      }),
    );
    try {
      const { tools } = await client.listTools();
      const toolsChars = JSON.stringify({ tools }).length;
      const status = async (): Promise<number> => {
        const start = performance.now();
        const result = await client.callTool({ name: 'status', arguments: {} });
        const ms = performance.now() - start;
        const envelope = JSON.parse((result.content as TextContent[])[0]!.text) as { type?: string };
        if (result.isError === true || envelope.type !== 'orchestration_status') throw new Error(`status failed: ${JSON.stringify(envelope).slice(0, 300)}`);
        return ms;
      };
      const cold = await status(); // builds the snapshots
      for (let i = 0; i < 3; i++) await status();
      const listMs: number[] = [];
      const statusMs: number[] = [];
      const runs = options.runs * 2;
      for (let i = 0; i < runs; i++) {
        const start = performance.now();
        await client.listTools();
        listMs.push(performance.now() - start);
        statusMs.push(await status());
      }
      const value = median(statusMs);
      const list = median(listMs);
      return {
        name: MCP_STATUS.name,
        work: MCP_STATUS.work,
        baton: {
          value,
          unit: 'ms',
          detail: `median of ${runs} \`status\` calls through the SDK client over stdio (min ${formatNumber(Math.min(...statusMs), 1)})`,
        },
        limit: { value: list, unit: 'ms', detail: `median of ${runs} \`tools/list\` round trips (the protocol and pipe alone)` },
        ratio: value / list,
        ratioLabel: 'status call / tools/list round trip',
        floor: `≤ ${MCP_STATUS.maxMs} ms`,
        pass: value <= MCP_STATUS.maxMs,
        notes: [
          `log: ${formatNumber(events)} events; the first call (no snapshot yet) took ${formatNumber(cold, 1)} ms (no floor)`,
          `serialized tools/list: ${formatNumber(toolsChars)} characters (~${formatNumber(toolsChars / 4)} tokens) for ${tools.length} tools (test/mcp holds it ≤ 8,000)`,
        ],
      };
    } finally {
      await client.close();
    }
  });
}
