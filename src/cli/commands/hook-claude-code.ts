import type { Command } from 'commander';
import { answerClaudeCodeHook, checkHookEvent } from '../../app/commands/hooks.js';
import { runHook } from '../hook-run.js';
import { flagFor } from '../output.js';

/**
 * `baton hook claude-code <EVENT>`: Claude Code's hook JSON on stdin, Claude Code's hook JSON on
 * stdout; what it records and answers is src/app/commands/hooks.ts. It never blocks the agent: any
 * failure is one line on stderr and exit 0 (never exit 2, which Claude Code shows as a blocking
 * error), and a busy store gets `BATON_HOOK_DEADLINE_MS` (default 950) before the hook gives up the
 * same way (src/cli/hook-run.ts). PostToolUse runs after every tool call, so its path with nothing new loads no zod and
 * only this bundled file (scripts/bundle-cli.mjs).
 */
export { HOOK_EVENTS } from '../../app/commands/hooks.js';

function fail(message: string): void {
  process.stderr.write(`baton hook: ${message.split('\n')[0]}\n`);
}

export async function hookClaudeCode(command: Command, event: string): Promise<void> {
  const run = {
    say: fail,
    timedOut: (ms: number) => `no answer within ${ms} ms (the store is busy); skipped, nothing recorded by this hook`,
    // The input at fault is named as the command line names it (`EVENT`).
    nameField: (field: string) => (field === 'event' ? 'EVENT' : flagFor(field)),
    check: () => checkHookEvent(event),
    ignoreBatonSession: true,
  };
  await runHook(command, run, async (ctx, hook) => {
    const answer = await answerClaudeCodeHook(ctx, { event, hook });
    if (answer.context !== undefined) {
      process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: answer.context } }) + '\n');
    }
    await answer.after?.();
  });
}
