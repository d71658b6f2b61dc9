import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { BATON_BIN, childEnv } from '../helpers/cli.js';
import { T0, workspace } from '../helpers/coordination.js';
import { removeTempDirs } from '../helpers/workspace.js';

afterAll(removeTempDirs);

/**
 * A tool error names the input at fault as the tool's argument (`intent`, `reply_to`, `wu`), never
 * as the CLI's flag (`--intent`, `--reply-to`): the MCP server runs the application commands and
 * names their inputs itself, while the CLI, running the same functions, keeps naming its flags.
 */
async function connect(dir: string, session: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BATON_BIN, '--dir', dir, '--session', session, 'mcp'],
    env: childEnv({ BATON_NOW: T0 }) as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'baton-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

async function toolError(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
  return JSON.parse((result.content as { type: 'text'; text: string }[])[0]!.text) as Record<string, unknown>;
}

describe('baton mcp names the argument at fault', () => {
  it('send_signal with a bad intent or reply_to, claim and checkpoint with a bad wu or note: the MCP argument, while the CLI names its flag', async () => {
    const ws = await workspace();
    await ws.withWus('WU-1');
    const session = await ws.start(['--agent-identity', 'codex:impl']);
    const client = await connect(ws.dir, session);
    const head = ws.head();
    let intentMessage = '';
    try {
      const intent = await toolError(client, 'send_signal', { message: 'hello', intent: 'SHOUT' });
      expect(intent).toMatchObject({ v: 1, type: 'error', code: 'INVALID_INPUT', details: { problems: [{ field: 'intent' }] } });
      expect(intent['message']).toMatch(/^intent: must be one of INFO, /);
      intentMessage = String(intent['message']);

      const replyTo = await toolError(client, 'send_signal', { message: 'hello', reply_to: 'not a signal id' });
      expect(String(replyTo['message'])).toMatch(/^reply_to: /);
      expect(String(replyTo['message'])).not.toContain('--');

      const wu = await toolError(client, 'claim', { wu: 'WU-x' });
      expect(wu).toMatchObject({ code: 'INVALID_INPUT', message: 'wu: must match ^WU-[0-9]{1,9}$, got "WU-x"', details: { field: 'wu' } });

      const note = await toolError(client, 'checkpoint', { wu: 'WU-1', note: '   ' });
      expect(note).toMatchObject({ code: 'INVALID_INPUT', details: { problems: [{ field: 'note' }] } });
      expect(note['message']).toMatch(/^note: /);
    } finally {
      await client.close();
    }
    expect(ws.head()).toBe(head);

    // The same inputs on the command line: the same rules, named by the CLI's flags and arguments.
    const cliIntent = await ws.run(['mem', 'signal', 'hello', '--intent', 'SHOUT'], { as: session });
    expect(cliIntent.json).toMatchObject({ code: 'INVALID_INPUT', details: { problems: [{ field: '--intent' }] } });
    expect(String((cliIntent.json as Record<string, unknown>)['message'])).toBe(intentMessage.replace(/^intent/, '--intent'));
    const cliReplyTo = await ws.run(['mem', 'signal', 'hello', '--reply-to', 'not a signal id'], { as: session });
    expect(String((cliReplyTo.json as Record<string, unknown>)['message'])).toMatch(/^--reply-to: /);
    const cliWu = await ws.run(['wu', 'claim', 'WU-x'], { as: session });
    expect(cliWu.json).toMatchObject({ message: 'WU: must match ^WU-[0-9]{1,9}$, got "WU-x"', details: { field: 'WU' } });
    expect(ws.head()).toBe(head);
  }, 120_000);
});
