import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { BATON_BIN, childEnv } from '../helpers/cli.js';
import { T0, workspace } from '../helpers/coordination.js';
import { removeTempDirs } from '../helpers/workspace.js';
import { MCP_TOOL_NAMES } from '../helpers/mcp-client.js';

afterAll(removeTempDirs);

/** The serialized `tools/list` of `baton mcp` stays within ~2,000 tokens (≈ 4 characters a token). */
const TOOLS_LIST_BUDGET_CHARS = 8000;

interface Text {
  type: 'text';
  text: string;
}

async function connect(dir: string, args: readonly string[] = []): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BATON_BIN, '--dir', dir, ...args, 'mcp'],
    env: childEnv({ BATON_NOW: T0 }) as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'baton-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ isError: boolean; envelope: Record<string, unknown>; text: string }> {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as Text[])[0]!.text;
  let envelope: Record<string, unknown> = {};
  try {
    envelope = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // an SDK-level validation message is plain text
  }
  return { isError: result.isError === true, envelope, text };
}

describe('baton mcp through the SDK client (stdio)', () => {
  it('lists terse tools; claims, checkpoints, signals another server once; status shows the next action; bad arguments are tool errors', async () => {
    const ws = await workspace();
    await ws.withWus('WU-1');
    const a = await connect(ws.dir, ['--session', await ws.start(['--agent-identity', 'codex:impl'])]);
    const b = await connect(ws.dir); // starts its own session on the first call
    try {
      const { tools } = await a.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(MCP_TOOL_NAMES);
      const size = JSON.stringify({ tools }).length;
      expect(size).toBeLessThanOrEqual(TOOLS_LIST_BUDGET_CHARS);
      expect(tools.find((t) => t.name === 'checkpoint')!.inputSchema.required).toEqual(['wu', 'note']);

      const claimed = await call(a, 'claim', { wu: 'WU-1' });
      expect(claimed.isError).toBe(false);
      expect(claimed.envelope).toMatchObject({ v: 1, type: 'wu_lifecycle', wu_id: 'WU-1', action: 'claim' });
      const checkpoint = await call(a, 'checkpoint', { wu: 'WU-1', note: 'parser done', progress: '60%' });
      expect(checkpoint.envelope).toMatchObject({ type: 'wu_lifecycle', action: 'checkpoint' });
      const [claimEvent] = ws.events().filter((e) => e.type === 'wu.claimed');
      const checkpointEvent = ws.events().find((e) => e.type === 'wu.checkpointed');
      expect(checkpointEvent!.data).toMatchObject({ note: 'parser done', progress: '60%' });
      expect(checkpointEvent!.actor).toBe(claimEvent!.actor);

      // B's session exists once B has answered a call; A signals it by its display name.
      const bStatus = await call(b, 'status');
      expect(bStatus.envelope).toMatchObject({ type: 'orchestration_status' });
      const bSession = (bStatus.envelope['lastStoppingPoint'] as { currentSessionId: string }).currentSessionId;
      const bName = ws.events().find((e) => e.type === 'session.started' && e.data['session_id'] === bSession)!.data['display_name'] as string;
      const sent = await call(a, 'send_signal', { message: 'WU-1 parser is ready for review', to: bName, intent: 'PROPOSE' });
      expect(sent.envelope).toMatchObject({ type: 'signal_sent' });
      const inbox = await call(b, 'inbox');
      expect((inbox.envelope['signals'] as { message: string }[]).map((s) => s.message)).toEqual(['WU-1 parser is ready for review']);
      expect((await call(b, 'inbox')).envelope['signals']).toEqual([]);

      const status = await call(a, 'status');
      const lsp = status.envelope['lastStoppingPoint'] as { nextAction: { kind: string; description: string } };
      expect(lsp.nextAction.description.length).toBeGreaterThan(0);
      const initiatives = (status.envelope['baton'] as { initiatives: { initiative: string; next_safe_actions: unknown[] }[] }).initiatives;
      expect(initiatives.map((i) => i.initiative)).toEqual(['INIT-1']);
      const orchestrate = await call(a, 'orchestrate_status', { initiative: 'INIT-1' });
      expect(orchestrate.envelope).toMatchObject({ type: 'initiative_status', initiative: 'INIT-1' });

      // Bad arguments: the CLI's own error (code, message naming the field), nothing appended.
      const head = ws.head();
      const noNote = await call(a, 'checkpoint', { wu: 'WU-1', note: '' });
      expect(noNote.isError).toBe(true);
      expect(noNote.envelope).toMatchObject({ v: 1, type: 'error', code: 'INVALID_INPUT' });
      // The input is named as the tool's argument, not as the CLI's flag.
      expect(String(noNote.envelope['message'])).toMatch(/^note: /);
      const badState = await call(a, 'task_transition', { task: 'task_000000000000000000000000', state: 'sleeping' });
      expect(badState.isError).toBe(true);
      expect(badState.envelope['code']).toBe('INVALID_INPUT');
      const wrongType = await call(a, 'claim', { wu: 12 });
      expect(wrongType.isError).toBe(true);
      expect(wrongType.text).toContain('wu');
      const unknownWu = await call(a, 'finish', { wu: 'WU-99' });
      expect([unknownWu.isError, unknownWu.envelope['code']]).toEqual([true, 'UNKNOWN_ID']);
      expect(ws.head()).toBe(head);
    } finally {
      await a.close();
      await b.close();
    }
  }, 120_000);

  it('a server bound to a session that is not live is refused on every write (UNKNOWN_SESSION), nothing appended', async () => {
    const ws = await workspace();
    await ws.withWus('WU-1');
    const head = ws.head();
    const client = await connect(ws.dir, ['--session', 'session_typo']);
    try {
      const claim = await call(client, 'claim', { wu: 'WU-1' });
      expect([claim.isError, claim.envelope['code']]).toEqual([true, 'UNKNOWN_SESSION']);
      const signal = await call(client, 'send_signal', { message: 'hi' });
      expect(signal.isError).toBe(true);
    } finally {
      await client.close();
    }
    expect(ws.head()).toBe(head);
  }, 60_000);
});
