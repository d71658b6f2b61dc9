import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ReceiptVia } from '../../../events/coordination/vocabulary.js';
import { toA2ASignalV1 } from '../../../events/coordination/signal-records.js';
import { displayNameFor, readerIdentityOf } from '../../../projections/coordination/sessions.js';
import { inboxRecords } from '../../../projections/coordination/signals.js';
import type { CoordinationState, SessionRecord, SignalRecord } from '../../../projections/coordination/state.js';
import { loadState, type CoordinationEnv } from '../../coordination/env.js';
import { readFilter } from '../../coordination/settings-values.js';
import { BatonError, ErrorCode, invalidField } from '../../errors.js';
import type { ClaudeHookInput } from '../../integrations/claude-code/hook-input.js';
import type { HookAnswer } from '../../integrations/claude-code/hook-slow.js';
import { mappedSession } from '../../integrations/claude-code/session-map.js';
import { storeExists } from '../../store/jsonl/layout.js';
import { coordinationEnv } from '../coordination-env.js';
import type { AppContext } from '../context.js';
import * as storeAccess from '../store-access.js';

/**
 * A Claude Code hook event (coordination.md §9.2): what Baton records for it and the context it
 * hands the agent. PostToolUse runs after every tool call, so its path with nothing new loads no zod
 * and no module beyond this one (the CLI's bundle holds it: scripts/bundle-cli.mjs); the events that
 * write more load integrations/claude-code/hook-slow.ts.
 */
export const HOOK_EVENTS = ['SessionStart', 'UserPromptSubmit', 'PostToolUse', 'SubagentStart', 'SubagentStop', 'Stop', 'SessionEnd'] as const;
export type { HookAnswer };

/** The hook event, one of HOOK_EVENTS (a surface may check it before it builds its context). */
export function checkHookEvent(event: string): void {
  if (!(HOOK_EVENTS as readonly string[]).includes(event)) throw invalidField(`must be one of ${HOOK_EVENTS.join(', ')}, got "${event}"`, 'event');
}

/** The answer to one hook `event` with Claude Code's `input`; the caller prints its context, then runs its `after`. */
export async function answerClaudeCodeHook(app: AppContext, input: { event: string; hook: ClaudeHookInput }): Promise<HookAnswer> {
  checkHookEvent(input.event);
  app.useCompiledValidation(storeAccess);
  const workspace = await app.workspace();
  if (!storeExists(workspace, app.env)) {
    throw new BatonError(ErrorCode.STORE_UNAVAILABLE, `no Baton workspace at ${workspace} (run \`baton init\` there); nothing recorded`);
  }
  return answerEvent(app, input.event, input.hook, await coordinationEnv(app, { actAsSession: false }));
}

async function answerEvent(app: AppContext, event: string, input: ClaudeHookInput, env: CoordinationEnv & { workspace: string }): Promise<HookAnswer> {
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
      return slow.subagentStartAnswer(app, env, input);
    case 'SubagentStop':
      return slow.subagentStopAnswer(app, env, input);
    case 'Stop':
      return slow.stopAnswer(app, env, input);
    case 'SessionEnd':
      return slow.sessionEndAnswer(app, env, input);
    default:
      // SessionStart, or the first prompt / tool call of a session Baton had not seen yet.
      return slow.sessionStartAnswer(app, env, input);
  }
}

/** Every signal this session has not read yet, once: printed, then marked delivered (via hook). */
async function deliverNew(env: CoordinationEnv, unread: readonly SignalRecord[], session: SessionRecord, state: CoordinationState): Promise<HookAnswer> {
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
