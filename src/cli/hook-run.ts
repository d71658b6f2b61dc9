import type { Command } from 'commander';
import { Refusal } from '../../deciders/refusal.js';
import { describeError } from '../app/error-envelope.js';
import { isBatonError } from '../errors.js';
import { parseHookInput, type ClaudeHookInput } from '../integrations/claude-code/hook-input.js';
import { INPUT_LIMITS, readInput } from '../input/bounded-input.js';
import { CommandContext, type GlobalFlags } from './context.js';
import { flagFor } from './output.js';

/**
 * What every `baton hook claude-code …` command shares: Claude Code's JSON on stdin, a deadline
 * (`BATON_HOOK_DEADLINE_MS`, default 950) and a short lock wait so a busy store never holds the
 * agent, the workspace from `--dir` / `BATON_DIR` / `CLAUDE_PROJECT_DIR` / the hook's `cwd`, and
 * exit 0 whatever happens: a failure is one line (`say`), never exit 2, which Claude Code shows as
 * a blocking error.
 */
const DEFAULT_DEADLINE_MS = 950;
/** Under a lock held by another appender, give up well before the deadline. */
const DEFAULT_LOCK_TIMEOUT_MS = '500';

export interface HookRun {
  /** Where a failure's one line goes. */
  say: (message: string) => void;
  /** What `say` gets when the deadline passes. */
  timedOut: (deadlineMs: number) => string;
  /** How a failure names an input (the CLI's flag by default). */
  nameField?: (field: string) => string;
  /** Checks the command's own arguments once the input parsed. */
  check?: () => void;
  /** Drop an exported BATON_SESSION: the session acting is Claude Code's, derived from its session_id. */
  ignoreBatonSession?: boolean;
}

/** A failure's one line: its code and message, an input named as `nameField` names it. */
function failure(error: unknown, nameField: (field: string) => string): string {
  if (!isBatonError(error) && !(error instanceof Refusal)) return error instanceof Error ? error.message : String(error);
  const { code, message } = describeError(error, nameField);
  return `${code}: ${message}`;
}

export async function runHook(
  command: Command,
  run: HookRun,
  answer: (ctx: CommandContext, hook: ClaudeHookInput, text: string) => Promise<void>,
): Promise<void> {
  const deadlineRaw = process.env['BATON_HOOK_DEADLINE_MS'];
  const deadline = deadlineRaw !== undefined && /^\d{1,7}$/.test(deadlineRaw) ? Number(deadlineRaw) : DEFAULT_DEADLINE_MS;
  const timer = setTimeout(() => {
    run.say(run.timedOut(deadline));
    process.exit(0);
  }, deadline);
  timer.unref();
  let ctx: CommandContext | undefined;
  try {
    const flags = command.optsWithGlobals<GlobalFlags>();
    const text = (await readInput('-', 'hook input', INPUT_LIMITS.hookInput)).toString('utf8');
    const hook = parseHookInput(text);
    run.check?.();
    const env: NodeJS.ProcessEnv = { ...process.env, BATON_LOCK_TIMEOUT_MS: process.env['BATON_LOCK_TIMEOUT_MS'] ?? DEFAULT_LOCK_TIMEOUT_MS };
    if (run.ignoreBatonSession === true) delete env['BATON_SESSION'];
    const dir = flags.dir ?? env['BATON_DIR'] ?? env['CLAUDE_PROJECT_DIR'] ?? hook.cwd;
    ctx = new CommandContext({ ...(dir !== undefined ? { dir } : {}), json: true }, env);
    await answer(ctx, hook, text);
  } catch (error) {
    run.say(failure(error, run.nameField ?? flagFor));
  } finally {
    clearTimeout(timer);
    await ctx?.close().catch(() => undefined);
    process.exitCode = 0;
  }
}
