import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { ReceiptVia } from '../../../events/coordination/vocabulary.js';
import { displayNameFor, readerIdentityOf } from '../../../projections/coordination/sessions.js';
import { toA2ASignalV1 } from '../../../events/coordination/signal-records.js';
import { inboxRecords } from '../../../projections/coordination/signals.js';
import type { CoordinationState, SessionRecord, SignalRecord } from '../../../projections/coordination/state.js';
import { loadState, type CoordinationEnv } from '../../coordination/env.js';
import { readFilter } from '../../coordination/settings-values.js';
import { BatonError, ErrorCode, invalidInput, isBatonError } from '../../errors.js';
import { parseHookInput, type ClaudeHookInput } from '../../integrations/claude-code/hook-input.js';
import type { HookAnswer } from '../../integrations/claude-code/hook-slow.js';
import { mappedSession } from '../../integrations/claude-code/session-map.js';
import { INPUT_LIMITS, readInput } from '../../input/bounded-input.js';
import { CommandContext, type GlobalFlags } from '../context.js';
import { coordinationEnv } from '../../app/coordination-env.js';
import * as storeAccess from '../../app/store-access.js';
import { storeExists } from '../../store/jsonl/layout.js';

/**
 * `baton hook claude-code <EVENT>`: Claude Code's hook JSON on stdin, Claude Code's hook JSON on
 * stdout. It never blocks the agent: any failure is one line on stderr and exit 0 (never exit 2,
 * which Claude Code shows as a blocking error), and a busy store gets `BATON_HOOK_DEADLINE_MS`
 * (default 950) before the hook gives up the same way. PostToolUse runs after every tool call, so
 * its path with nothing new loads no zod and only this bundled file (scripts/bundle-cli.mjs).
 */
export const HOOK_EVENTS = ['SessionStart', 'UserPromptSubmit', 'PostToolUse', 'SubagentStart', 'SubagentStop', 'Stop', 'SessionEnd'] as const;

const DEFAULT_DEADLINE_MS = 950;
/** Under a lock held by another appender, give up well before the deadline. */
const DEFAULT_LOCK_TIMEOUT_MS = '500';

function fail(message: string): void {
  process.stderr.write(`baton hook: ${message.split('\n')[0]}\n`);
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
    const input = parseHookInput((await readInput('-', 'hook input', INPUT_LIMITS.hookInput)).toString('utf8'));
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) throw invalidInput(`must be one of ${HOOK_EVENTS.join(', ')}, got "${event}"`, 'EVENT');
    const env: NodeJS.ProcessEnv = { ...process.env, BATON_LOCK_TIMEOUT_MS: process.env['BATON_LOCK_TIMEOUT_MS'] ?? DEFAULT_LOCK_TIMEOUT_MS };
    // The session acting is Claude Code's (derived from its session_id), not a BATON_SESSION export.
    delete env['BATON_SESSION'];
    const dir = flags.dir ?? env['BATON_DIR'] ?? env['CLAUDE_PROJECT_DIR'] ?? input.cwd;
    ctx = new CommandContext({ ...(dir !== undefined ? { dir } : {}), json: true }, env);
    ctx.useCompiledValidation(storeAccess);
    const workspace = await ctx.workspace();
    if (!storeExists(workspace, env)) {
      throw new BatonError(ErrorCode.STORE_UNAVAILABLE, `no Baton workspace at ${workspace} (run \`baton init\` there); nothing recorded`);
    }
    const answer = await answerEvent(ctx, event, input, await coordinationEnv(ctx, { actAsSession: false }));
    if (answer.context !== undefined) {
      process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: answer.context } }) + '\n');
    }
    await answer.after?.();
  } catch (error) {
    fail(isBatonError(error) ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error));
  } finally {
    clearTimeout(timer);
    await ctx?.close().catch(() => undefined);
    process.exitCode = 0;
  }
}

async function answerEvent(ctx: CommandContext, event: string, input: ClaudeHookInput, env: CoordinationEnv & { workspace: string }): Promise<HookAnswer> {
  if (event === 'PostToolUse' || event === 'UserPromptSubmit') {
    const { state } = await loadState(env);
    const mapped = mappedSession(state, input.session_id);
    if (mapped.record !== undefined)
      return deliverNew(
        env,
        state.signals.length === 0 ? [] : inboxRecords(state, { reader: readerIdentityOf(mapped.record), all: false, workspace: readFilter(env.settings) }),
        mapped.record,
        state,
      );
  }
  const slow = await import('../../integrations/claude-code/hook-slow.js');
  switch (event) {
    case 'SubagentStart':
      return slow.subagentStartAnswer(ctx, env, input);
    case 'SubagentStop':
      return slow.subagentStopAnswer(ctx, env, input);
    case 'Stop':
      return slow.stopAnswer(env, input);
    case 'SessionEnd':
      return slow.sessionEndAnswer(env, input);
    default:
      // SessionStart, or the first prompt / tool call of a session Baton had not seen yet.
      return slow.sessionStartAnswer(ctx, env, input);
  }
}

/** Every signal this session has not read yet, once: printed, then marked delivered (via hook). */
async function deliverNew(
  env: CoordinationEnv,
  unread: readonly SignalRecord[],
  session: SessionRecord,
  state: Awaited<ReturnType<typeof loadState>>['state'],
): Promise<HookAnswer> {
  const sessionId = session.session_id;
  if (env.pendingDir !== undefined && existsSync(join(env.pendingDir, `${sessionId}.jsonl`))) {
    // The queue `mem signal` fills for Claude Code sessions: the log already says what is unread.
    (await import('../../coordination/pending-queue.js')).takePending(env.pendingDir, sessionId);
  }
  if (unread.length === 0) return { context: undefined };
  const { renderPrompt, replyCommands } = await import('../../coordination/delivery.js');
  const prompts = unread.map((record) => {
    const signal = toA2ASignalV1(record.data);
    return renderPrompt({
      event: 'signal:received',
      signal,
      reply_commands: replyCommands(signal),
      sender_display_name: displayNameFor(state, env.now, signal.sender_identity),
    });
  });
  const reader = readerIdentityOf(session);
  return {
    context: `Baton: ${unread.length} new signal${unread.length === 1 ? '' : 's'} for ${session.display_name}:\n\n${prompts.join('\n\n')}`,
    after: async () => {
      // Loaded only when there is something to mark: the path with nothing new stays this file.
      const { recordReceipts } = await import('../../coordination/record-receipts.js');
      const { actingIn } = await import('../../coordination/acting.js');
      const shown = { signalIds: unread.map((r) => r.data.signal_id), reader, session: sessionId, via: ReceiptVia.hook };
      await recordReceipts(
        { store: env.store, catalog: env.catalog, actor: sessionId, now: env.now, acting: actingIn({ session: sessionId }, (s: CoordinationState) => s) },
        state,
        shown,
      );
    },
  };
}
