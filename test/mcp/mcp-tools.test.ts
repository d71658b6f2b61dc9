import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { BATON_BIN, childEnv } from '../helpers/cli.js';
import { T0, workspace } from '../helpers/coordination.js';
import { connectMcp } from '../helpers/mcp-client.js';
import { removeTempDirs } from '../helpers/workspace.js';

afterAll(removeTempDirs);

/** Every MCP client pastes every tool schema into the model's context: at most ~2,000 tokens (≈ 4 characters each). */
const TOOL_TOKEN_BUDGET = 2000;

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<{ isError: boolean; envelope: Record<string, unknown> }> {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as { type: 'text'; text: string }[])[0]!.text;
  return { isError: result.isError === true, envelope: JSON.parse(text) as Record<string, unknown> };
}

describe('baton mcp: the tools an agent needs, within the budget', () => {
  it('instructions say what Baton is and how to start; the tool schemas stay under ~2,000 tokens', async () => {
    const ws = await workspace();
    const client = await connectMcp(ws.dir, await ws.start());
    try {
      const instructions = client.getInstructions() ?? '';
      for (const word of ['Baton', 'session', 'status', 'claim', 'checkpoint', 'send_signal']) expect(instructions).toContain(word);
      expect(instructions.length).toBeLessThan(800);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['wu_list', 'roster', 'return', 'release', 'task_create']));
      expect(JSON.stringify(tools).length / 4).toBeLessThanOrEqual(TOOL_TOKEN_BUDGET);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('wu_list (with a state filter), roster, return, release and task_create run the CLI commands and return their envelopes', async () => {
    const ws = await workspace();
    await ws.withWus('WU-1', 'WU-2', 'WU-3');
    const session = await ws.start(['--agent-identity', 'claude-code:impl']);
    const client = await connectMcp(ws.dir, session);
    try {
      const all = await call(client, 'wu_list');
      expect(all.envelope).toMatchObject({ type: 'wu_list', count: 3 });

      const claim = await call(client, 'claim', { wu: 'WU-1' });
      expect(claim.envelope).toMatchObject({ type: 'wu_lifecycle', action: 'claim' });
      const claimed = await call(client, 'wu_list', { state: 'claimed' });
      expect(claimed.envelope).toMatchObject({ type: 'wu_list', filters: { state: 'claimed' } });
      expect((claimed.envelope['wus'] as { wu_id: string }[]).map((w) => w.wu_id)).toEqual(['WU-1']);
      const badState = await call(client, 'wu_list', { state: 'sleeping' });
      expect(badState.isError).toBe(true);
      expect(badState.envelope).toMatchObject({ code: 'INVALID_INPUT', details: { field: 'state' } });

      const roster = await call(client, 'roster');
      expect(roster.envelope).toMatchObject({ type: 'roster', sessions: [{ session_id: session, agent_identity: 'claude-code:impl' }] });

      const released = await call(client, 'release', { wu: 'WU-1', reason: 'blocked on review' });
      expect(released.envelope).toMatchObject({ type: 'wu_lifecycle', wu_id: 'WU-1', action: 'release' });
      expect(ws.events().find((e) => e.type === 'wu.released')!.data).toMatchObject({ wu_id: 'WU-1', reason: 'blocked on review' });
      const eligible = await call(client, 'wu_list', { state: 'eligible' });
      expect((eligible.envelope['wus'] as { wu_id: string }[]).map((w) => w.wu_id)).toEqual(['WU-1', 'WU-2', 'WU-3']);

      expect((await call(client, 'claim', { wu: 'WU-2' })).envelope).toMatchObject({ type: 'wu_lifecycle', action: 'claim' });
      const returned = await call(client, 'return', { wu: 'WU-2', note: 'parser done' });
      expect(returned.envelope).toMatchObject({ type: 'wu_lifecycle', wu_id: 'WU-2', action: 'return' });
      expect(ws.events().find((e) => e.type === 'wu.worker_returned')!.data).toMatchObject({ wu_id: 'WU-2' });

      const task = await call(client, 'task_create', { label: 'scan the repo', state: 'running' });
      expect(task.envelope).toMatchObject({ type: 'orchestration_task', task: { label: 'scan the repo', state: 'running' } });
      const emptyLabel = await call(client, 'task_create', { label: '' });
      expect(emptyLabel.isError).toBe(true);
      expect(String(emptyLabel.envelope['message'])).toMatch(/^label: /);
    } finally {
      await client.close();
    }
  }, 120_000);

  it('an empty BATON_SESSION: the server still starts, and every tool call answers the error naming BATON_SESSION', async () => {
    const ws = await workspace();
    await ws.withWus('WU-1');
    const head = ws.head();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BATON_BIN, '--dir', ws.dir, 'mcp'],
      env: childEnv({ BATON_NOW: T0, BATON_SESSION: '' }) as Record<string, string>,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const client = new Client({ name: 'baton-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      for (const [name, args] of [
        ['status', {}],
        ['claim', { wu: 'WU-1' }],
        ['wu_list', {}],
      ] as const) {
        const answer = await call(client, name, args);
        expect(answer.isError, name).toBe(true);
        expect(answer.envelope).toMatchObject({ type: 'error', code: 'INVALID_INPUT' });
        expect(String(answer.envelope['message'])).toMatch(/^BATON_SESSION: /);
      }
    } finally {
      await client.close();
    }
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toContain('BATON_SESSION');
    expect(ws.head()).toBe(head);
  }, 60_000);
});
