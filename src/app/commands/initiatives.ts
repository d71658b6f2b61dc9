import type { z } from 'zod';
import { runInitiative } from '../../work-units/bundle.js';
import type { AppContext } from '../context.js';
import { checked } from '../envelopes/checked.js';
import { InitiativeLaunchEnvelope } from '../envelopes/work-units.js';
import { workUnitsEnv } from '../work-units-env.js';

export type InitiativeLaunchEnvelope = z.output<typeof InitiativeLaunchEnvelope>;

export interface LaunchInitiativeInput {
  initiative: string;
  /** The client the handoffs are written for (default: config `orchestration.default_client`). */
  client?: string | undefined;
  /** This run's capacity, as given (an integer from 0 to 1000). */
  max_active_workers?: string | undefined;
  /** Carry each handoff's text in the envelope, not only its path. */
  print_handoffs?: boolean | undefined;
}

/**
 * `orchestrate run` (work-units.md §10.3): claims the next attempt, records it and its handoffs in
 * one batch (deciders/initiatives.ts through the command handler), writes the attempt bundle, and
 * answers with the attempt and its handoffs (their text too when asked).
 */
export async function launchInitiative(app: AppContext, input: LaunchInitiativeInput): Promise<InitiativeLaunchEnvelope> {
  const env = await workUnitsEnv(app);
  const result = await runInitiative(env, input.initiative, { client: input.client, max_active_workers: input.max_active_workers });
  const inline = input.print_handoffs === true;
  return checked(InitiativeLaunchEnvelope, {
    v: 1,
    type: 'initiative_launch',
    generated_at: app.now,
    initiative: result.initiative,
    launch_attempt: result.launch_attempt,
    attempt_path: result.attempt_path,
    handoffs: result.handoffs.map(({ content, ...h }) => (inline ? { ...h, content } : h)),
    status: result.status,
  });
}
