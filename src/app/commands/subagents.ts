import type { z } from 'zod';
import type { SubagentRecord } from '../../../projections/tasks/state.js';
import { wizardSubagent } from '../../../projections/tasks/wizard-shapes.js';
import { finishSubagent, startSubagent, type SubagentStartInput } from '../../tasks/subagents.js';
import type { AppContext } from '../context.js';
import { checked } from '../envelopes/checked.js';
import { OrchestrationSubagentEnvelope } from '../envelopes/tasks.js';
import { tasksEnv } from '../tasks-env.js';

export type SubagentEnvelope = z.output<typeof OrchestrationSubagentEnvelope>;
export type { SubagentStartInput };

/** `subagent start` (tasks.md §8): a subagent of the acting session, rooted at one of its tasks (once per idempotency key). */
export async function startSubagentEnvelope(app: AppContext, input: SubagentStartInput): Promise<SubagentEnvelope> {
  const env = await tasksEnv(app);
  return subagentEnvelope(app.now, env.workspace, await startSubagent(env, input));
}

/** `subagent finish <subagent>`: finished once; again appends nothing. */
export async function finishSubagentEnvelope(app: AppContext, input: { subagent: string }): Promise<SubagentEnvelope> {
  const env = await tasksEnv(app);
  return subagentEnvelope(app.now, env.workspace, await finishSubagent(env, input.subagent));
}

function subagentEnvelope(now: string, workspace: string, subagent: SubagentRecord): SubagentEnvelope {
  return checked(OrchestrationSubagentEnvelope, {
    v: 1,
    type: 'orchestration_subagent',
    generated_at: now,
    generatedAt: now,
    installDir: workspace,
    subagent: wizardSubagent(subagent),
  });
}
