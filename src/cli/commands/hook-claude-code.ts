import type { Command } from 'commander';
import { Refusal } from '../../../deciders/refusal.js';
import { answerClaudeCodeHook, checkHookEvent } from '../../app/commands/hooks.js';
import { describeError } from '../../app/error-envelope.js';
import { isBatonError } from '../../errors.js';
import { parseHookInput } from '../../integrations/claude-code/hook-input.js';
import { INPUT_LIMITS, readInput } from '../../input/bounded-input.js';
import { CommandContext, type GlobalFlags } from '../context.js';
import { flagFor } from '../output.js';

/**
 * `baton hook claude-code <EVENT>`: Claude Code's hook JSON on stdin, Claude Code's hook JSON on
 * stdout; what it records and answers is src/app/commands/hooks.ts. It never blocks the agent: any
 * failure is one line on stderr and exit 0 (never exit 2, which Claude Code shows as a blocking
 * error), and a busy store gets `BATON_HOOK_DEADLINE_MS` (default 950) before the hook gives up the
 * same way. PostToolUse runs after every tool call, so its path with nothing new loads no zod and
 * only this bundled file (scripts/bundle-cli.mjs).
 */
export { HOOK_EVENTS } from '../../app/commands/hooks.js';

const DEFAULT_DEADLINE_MS = 950;
/** Under a lock held by another appender, give up well before the deadline. */
const DEFAULT_LOCK_TIMEOUT_MS = '500';

function fail(message: string): void {
  process.stderr.write(`baton hook: ${message.split('\n')[0]}\n`);
}

/** A failure's one line: its code and message, an input named as the command line names it (`EVENT`). */
function failure(error: unknown): string {
  if (!isBatonError(error) && !(error instanceof Refusal)) return error instanceof Error ? error.message : String(error);
  const { code, message } = describeError(error, (field) => (field === 'event' ? 'EVENT' : flagFor(field)));
  return `${code}: ${message}`;
}

export async function hookClaudeCode(command: Command, event: string): Promise<void> {
  const deadlineRaw = process.env['BATON_HOOK_DEADLINE_MS'];
  const deadline = deadlineRaw !== undefined && /^\d{1,7}$/.test(deadlineRaw) ? Number(deadlineRaw) : DEFAULT_DEADLINE_MS;
  const timer = setTimeout(() => {
    fail(`no answer within ${deadline} ms (the store is busy); skipped, nothing recorded by this hook`);
    process.exit(0);
  }, deadline);
  timer.unref();
  let ctx: CommandContext | undefined;
  try {
    const flags = command.optsWithGlobals<GlobalFlags>();
    const hook = parseHookInput((await readInput('-', 'hook input', INPUT_LIMITS.hookInput)).toString('utf8'));
    checkHookEvent(event);
    const env: NodeJS.ProcessEnv = { ...process.env, BATON_LOCK_TIMEOUT_MS: process.env['BATON_LOCK_TIMEOUT_MS'] ?? DEFAULT_LOCK_TIMEOUT_MS };
    // The session acting is Claude Code's (derived from its session_id), not a BATON_SESSION export.
    delete env['BATON_SESSION'];
    const dir = flags.dir ?? env['BATON_DIR'] ?? env['CLAUDE_PROJECT_DIR'] ?? hook.cwd;
    ctx = new CommandContext({ ...(dir !== undefined ? { dir } : {}), json: true }, env);
    const answer = await answerClaudeCodeHook(ctx, { event, hook });
    if (answer.context !== undefined) {
      process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: answer.context } }) + '\n');
    }
    await answer.after?.();
  } catch (error) {
    fail(failure(error));
  } finally {
    clearTimeout(timer);
    await ctx?.close().catch(() => undefined);
    process.exitCode = 0;
  }
}
