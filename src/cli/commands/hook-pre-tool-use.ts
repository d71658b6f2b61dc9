import type { Command } from 'commander';
import { answerPreToolUse, toolFilePath } from '../../app/commands/pre-tool-use.js';
import { runHook } from '../hook-run.js';

/**
 * `baton hook claude-code PreToolUse`: Claude Code's hook JSON on stdin; a write to a path another
 * live holder reserves gets `permissionDecision: "deny"` on stdout (src/app/commands/pre-tool-use.ts),
 * anything else no output and exit 0. It never blocks the agent because of Baton's own failure: a
 * failure (a broken `.baton/`, a busy store past `BATON_HOOK_DEADLINE_MS`, default 950) is one line
 * on stderr and an allow. It runs before every edit, so it is bundled into one file of its own
 * (scripts/bundle-cli.mjs) and loads no zod.
 */
function allowWith(message: string): void {
  process.stderr.write(`baton hook PreToolUse: ${message.split('\n')[0]} (the write is allowed)\n`);
}

export async function hookPreToolUse(command: Command): Promise<void> {
  const run = { say: allowWith, timedOut: (ms: number) => `no answer within ${ms} ms (the store is busy)` };
  await runHook(command, run, async (ctx, hook, text) => {
    const reason = await answerPreToolUse(ctx, { session_id: hook.session_id, cwd: hook.cwd, file_path: toolFilePath(text) });
    if (reason !== undefined) {
      const answer = { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } };
      process.stdout.write(JSON.stringify(answer) + '\n');
    }
  });
}
