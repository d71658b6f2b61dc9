import type { Command } from 'commander';
import { Refusal } from '../../../deciders/refusal.js';
import { answerPreToolUse, toolFilePath } from '../../app/commands/pre-tool-use.js';
import { describeError } from '../../app/error-envelope.js';
import { isBatonError } from '../../errors.js';
import { parseHookInput } from '../../integrations/claude-code/hook-input.js';
import { INPUT_LIMITS, readInput } from '../../input/bounded-input.js';
import { CommandContext, type GlobalFlags } from '../context.js';
import { flagFor } from '../output.js';

/**
 * `baton hook claude-code PreToolUse`: Claude Code's hook JSON on stdin; a write to a path another
 * live holder reserves gets `permissionDecision: "deny"` on stdout (src/app/commands/pre-tool-use.ts),
 * anything else no output and exit 0. It never blocks the agent because of Baton's own failure: a
 * failure (a broken `.baton/`, a busy store past `BATON_HOOK_DEADLINE_MS`, default 950) is one line
 * on stderr and an allow. It runs before every edit, so it is bundled into one file of its own
 * (scripts/bundle-cli.mjs) and loads no zod.
 */
const DEFAULT_DEADLINE_MS = 950;
const DEFAULT_LOCK_TIMEOUT_MS = '500';

function allowWith(message: string): void {
  process.stderr.write(`baton hook PreToolUse: ${message.split('\n')[0]} (the write is allowed)\n`);
}

function failure(error: unknown): string {
  if (!isBatonError(error) && !(error instanceof Refusal)) return error instanceof Error ? error.message : String(error);
  const { code, message } = describeError(error, flagFor);
  return `${code}: ${message}`;
}

export async function hookPreToolUse(command: Command): Promise<void> {
  const deadlineRaw = process.env['BATON_HOOK_DEADLINE_MS'];
  const deadline = deadlineRaw !== undefined && /^\d{1,7}$/.test(deadlineRaw) ? Number(deadlineRaw) : DEFAULT_DEADLINE_MS;
  const timer = setTimeout(() => {
    allowWith(`no answer within ${deadline} ms (the store is busy)`);
    process.exit(0);
  }, deadline);
  timer.unref();
  let ctx: CommandContext | undefined;
  try {
    const flags = command.optsWithGlobals<GlobalFlags>();
    const text = (await readInput('-', 'hook input', INPUT_LIMITS.hookInput)).toString('utf8');
    const hook = parseHookInput(text);
    const env: NodeJS.ProcessEnv = { ...process.env, BATON_LOCK_TIMEOUT_MS: process.env['BATON_LOCK_TIMEOUT_MS'] ?? DEFAULT_LOCK_TIMEOUT_MS };
    const dir = flags.dir ?? env['BATON_DIR'] ?? env['CLAUDE_PROJECT_DIR'] ?? hook.cwd;
    ctx = new CommandContext({ ...(dir !== undefined ? { dir } : {}), json: true }, env);
    const reason = await answerPreToolUse(ctx, { session_id: hook.session_id, cwd: hook.cwd, file_path: toolFilePath(text) });
    if (reason !== undefined) {
      const answer = { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } };
      process.stdout.write(JSON.stringify(answer) + '\n');
    }
  } catch (error) {
    allowWith(failure(error));
  } finally {
    clearTimeout(timer);
    await ctx?.close().catch(() => undefined);
    process.exitCode = 0;
  }
}
