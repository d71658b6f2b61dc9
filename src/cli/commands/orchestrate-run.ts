import { launchInitiative } from '../../app/commands/initiatives.js';
import type { CommandContext } from '../context.js';
import { InitiativeLaunchEnvelope } from '../../app/envelopes/work-units.js';

/** `orchestrate run` (§10.3): the attempt and its handoffs; `--print-handoffs` inlines each file. */
export async function orchestrateRun(
  ctx: CommandContext,
  initiative: string,
  options: { client?: string; maxActiveWorkers?: string; printHandoffs?: boolean },
): Promise<void> {
  ctx.output.nameArguments({ initiative: 'INIT' });
  const print = options.printHandoffs === true;
  const envelope = await launchInitiative(ctx, { initiative, client: options.client, max_active_workers: options.maxActiveWorkers, print_handoffs: print });
  ctx.output.emit(InitiativeLaunchEnvelope, envelope, (e) =>
    e.launch_attempt === null
      ? `${e.initiative}: nothing to launch`
      : e.handoffs.map((h) => (print ? `${h.content ?? ''}` : h.handoff_artifact_path)).join('\n'),
  );
}
