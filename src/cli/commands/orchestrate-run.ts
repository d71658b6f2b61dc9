import { runInitiative } from '../../work-units/bundle.js';
import type { CommandContext } from '../context.js';
import { InitiativeLaunchEnvelope } from '../../app/envelopes/work-units.js';
import { workUnitsEnv } from '../../app/work-units-env.js';

/** `orchestrate run` (§10.3): the attempt and its handoffs; `--print-handoffs` inlines each file. */
export async function orchestrateRun(
  ctx: CommandContext,
  initiative: string,
  options: { client?: string; maxActiveWorkers?: string; printHandoffs?: boolean },
): Promise<void> {
  const result = await runInitiative(await workUnitsEnv(ctx), initiative, { client: options.client, maxActiveWorkers: options.maxActiveWorkers });
  const print = options.printHandoffs === true;
  ctx.output.emit(
    InitiativeLaunchEnvelope,
    {
      v: 1,
      type: 'initiative_launch',
      generated_at: ctx.now,
      initiative: result.initiative,
      launch_attempt: result.launch_attempt,
      attempt_path: result.attempt_path,
      handoffs: result.handoffs.map(({ content, ...h }) => (print ? { ...h, content } : h)),
      status: result.status,
    },
    (e) =>
      e.launch_attempt === null
        ? `${e.initiative}: nothing to launch`
        : e.handoffs.map((h) => (print ? `${h.content ?? ''}` : h.handoff_artifact_path)).join('\n'),
  );
}
