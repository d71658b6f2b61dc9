import type { z } from 'zod';
import { rosterView } from '../../../projections/coordination/roster.js';
import { loadState } from '../../coordination/env.js';
import { threadConvergence } from '../../coordination/inbox.js';
import { coordinationEnv } from '../coordination-env.js';
import type { AppContext } from '../context.js';
import { checked } from '../envelopes/checked.js';
import { ConvergenceEnvelope, RosterEnvelope } from '../envelopes/coordination.js';

/** The coordination views (coordination.md §4, §8): each reads the coordination fold once and appends nothing. */
export type RosterEnvelope = z.output<typeof RosterEnvelope>;
export type ConvergenceEnvelope = z.output<typeof ConvergenceEnvelope>;

/** `mem roster`: the live sessions, and the abandoned ones too with `include_stale`. */
export async function readRoster(app: AppContext, input: { include_stale?: boolean | undefined }): Promise<RosterEnvelope> {
  const env = await coordinationEnv(app);
  const { state } = await loadState(env);
  return checked(RosterEnvelope, rosterView(state, app.now, { includeStale: input.include_stale === true }));
}

/** `mem converged <thread>`: whether a proposal thread converged; `converged` is false while it is open or was rejected. */
export async function readConvergence(app: AppContext, input: { thread: string }): Promise<{ envelope: ConvergenceEnvelope; converged: boolean }> {
  const env = await coordinationEnv(app);
  const envelope = checked(ConvergenceEnvelope, await threadConvergence(env, input.thread));
  return { envelope, converged: envelope.state === 'converged' };
}
