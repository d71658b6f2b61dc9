import type { z } from 'zod';
import { drainHook, renderPrompt, watchSignals } from '../../coordination/delivery.js';
import { invalidField } from '../../errors.js';
import { coordinationEnv } from '../coordination-env.js';
import type { AppContext } from '../context.js';
import { checked } from '../envelopes/checked.js';
import { HookDrainEnvelope, SignalReceivedEnvelope } from '../envelopes/coordination.js';

/**
 * Delivery to a session (coordination.md §9.3, §9.4): `session` names the session delivered to (a
 * session id, agent identity or display name). The deliverer is not that session: it records its
 * receipts as `system` (or BATON_AGENT_IDENTITY), so it never keeps a dead agent looking alive.
 * Each delivery is handed to `show` before its receipts are recorded (a crash repeats, never loses).
 */
export type SignalReceivedEnvelope = z.output<typeof SignalReceivedEnvelope>;
export type HookDrainEnvelope = z.output<typeof HookDrainEnvelope>;

/** What a surface shows of a delivery: the envelope, and the prompt a person or an agent reads (§9.5). */
export interface Shown<E> {
  envelope: E;
  prompts: string[];
}

function target(session: string | undefined, what: string): string {
  if (session === undefined) throw invalidField(`names the session to ${what} (session id, agent identity or display name); it is required`, 'session');
  return session;
}

/** `mem watch`: the catch-up set, then (unless `once`) each new visible signal until the session ends. */
export async function watchSession(
  app: AppContext,
  input: { session: string | undefined; once?: boolean | undefined; show: (delivery: Shown<SignalReceivedEnvelope>) => void },
): Promise<void> {
  const token = target(input.session, 'deliver to');
  const env = await coordinationEnv(app, { actAsSession: false });
  // A watcher is long-running: it reads the clock at each delivery, unless BATON_NOW fixes it.
  const fixed = app.env['BATON_NOW'];
  const clock = (): string => (fixed !== undefined && fixed !== '' ? app.now : new Date().toISOString());
  const handle = await watchSignals(env, token, {
    once: input.once === true,
    clock,
    onDelivery: (d) =>
      input.show({
        envelope: checked(SignalReceivedEnvelope, {
          v: 1,
          type: 'signal_received',
          generated_at: d.at,
          session_id: d.session_id,
          reader_identity: d.reader_identity,
          latency_ms: d.latency_ms,
          signal: d.signal,
          reply_commands: d.reply_commands,
        }),
        prompts: [renderPrompt(d)],
      }),
  });
  await handle.done;
}

/** `hooks drain`: the session's pending interrupt/priority signals, shown, then marked delivered (via hook). */
export async function drainSession(app: AppContext, input: { session: string | undefined; show: (drained: Shown<HookDrainEnvelope>) => void }): Promise<void> {
  const token = target(input.session, 'drain');
  const env = await coordinationEnv(app, { actAsSession: false });
  await drainHook(env, token, (result) =>
    input.show({
      envelope: checked(HookDrainEnvelope, {
        v: 1,
        type: 'hook_drain',
        generated_at: app.now,
        session_id: result.session_id,
        reader_identity: result.reader_identity,
        events: result.events.map((e) => ({ event: e.event, signal: e.signal, reply_commands: e.reply_commands })),
      }),
      prompts: result.events.map(renderPrompt),
    }),
  );
}
