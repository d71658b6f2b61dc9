import { afterAll, describe, expect, it } from 'vitest';
import { workspace } from '../helpers/coordination.js';
import { connectMcp as connect, mcpToolError as toolError } from '../helpers/mcp-client.js';
import { removeTempDirs } from '../helpers/workspace.js';

afterAll(removeTempDirs);

/**
 * A tool error names the input at fault as the tool's argument (`intent`, `reply_to`, `wu`), never
 * as the CLI's flag (`--intent`, `--reply-to`): the MCP server runs the application commands and
 * names their inputs itself, while the CLI, running the same functions, keeps naming its flags.
 */

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

  it('claim with a bad mode and orchestrate_status with a bad initiative: the MCP argument, while the CLI names --mode and INIT', async () => {
    const ws = await workspace();
    await ws.withWus('WU-1');
    const session = await ws.start(['--agent-identity', 'codex:impl']);
    const client = await connect(ws.dir, session);
    const head = ws.head();
    try {
      const mode = await toolError(client, 'claim', { wu: 'WU-1', mode: 'fork' });
      expect(mode).toMatchObject({ code: 'INVALID_INPUT', details: { problems: [{ field: 'mode' }] } });
      expect(mode['message']).toMatch(/^mode: must be one of /);

      const initiative = await toolError(client, 'orchestrate_status', { initiative: '../etc' });
      expect(initiative).toMatchObject({
        code: 'INVALID_INPUT',
        message: 'initiative: must match ^INIT-[0-9A-Z][0-9A-Z-]*$, got "../etc"',
        details: { field: 'initiative' },
      });
    } finally {
      await client.close();
    }
    expect(ws.head()).toBe(head);

    const cliMode = await ws.run(['wu', 'claim', 'WU-1', '--mode', 'fork'], { as: session });
    expect(cliMode.json).toMatchObject({ code: 'INVALID_INPUT', details: { problems: [{ field: '--mode' }] } });
    const cliInitiative = await ws.run(['orchestrate', 'status', '../etc'], { as: session });
    expect(cliInitiative.json).toMatchObject({ message: 'INIT: must match ^INIT-[0-9A-Z][0-9A-Z-]*$, got "../etc"', details: { field: 'INIT' } });
    expect(ws.head()).toBe(head);
  }, 120_000);
});
