import { afterAll, describe, expect, it } from 'vitest';
import { errorEnvelopeOf } from '../helpers/cli.js';
import { workspace } from '../helpers/coordination.js';
import { connectMcp as connect, mcpToolError as toolError } from '../helpers/mcp-client.js';
import { removeTempDirs } from '../helpers/workspace.js';

afterAll(removeTempDirs);

/**
 * `task_transition` runs the CLI's `task transition` (src/app/commands/tasks.ts), whose input
 * checks live in the tasks domain (src/tasks/transition-task.ts): a refusal names the tool's
 * argument (`summary`, `reason`), never the CLI's flag (`--summary`), which the CLI still prints.
 */

describe('baton mcp task_transition names the argument at fault', () => {
  it('a summary the target ignores, an empty reason: the MCP argument, while the CLI names --summary and --reason', async () => {
    const ws = await workspace();
    const session = await ws.start();
    const created = await ws.ok(['task', 'create', '--label', 'scan', '--state', 'running'], { as: session });
    const task = (created.json as { task: { id: string } }).task.id;
    const head = ws.head();
    const client = await connect(ws.dir, session);
    try {
      const summary = await toolError(client, 'task_transition', { task, state: 'blocked', summary: 'half done' });
      expect(summary).toMatchObject({
        code: 'INVALID_INPUT',
        message: 'summary: has no effect unless the target is terminal; refused rather than ignored',
        details: { field: 'summary' },
      });
      const reason = await toolError(client, 'task_transition', { task, state: 'blocked', reason: '' });
      expect(reason).toMatchObject({ code: 'INVALID_INPUT', message: 'reason: must not be empty', details: { field: 'reason' } });
      for (const error of [summary, reason]) expect(JSON.stringify(error)).not.toContain('--');
    } finally {
      await client.close();
    }
    expect(ws.head()).toBe(head);

    const cliSummary = errorEnvelopeOf(await ws.run(['task', 'transition', task, 'blocked', '--summary', 'half done'], { as: session }));
    expect(cliSummary).toMatchObject({
      message: '--summary: has no effect unless the target is terminal; refused rather than ignored',
      details: { field: '--summary' },
    });
    const cliReason = errorEnvelopeOf(await ws.run(['task', 'transition', task, 'blocked', '--reason', ''], { as: session }));
    expect(cliReason).toMatchObject({ message: '--reason: must not be empty', details: { field: '--reason' } });
    expect(ws.head()).toBe(head);
  }, 120_000);
});
