import type { NextSafeAction, StatusDocument } from '../../../projections/work-units/documents.js';
import { readInitiativePlan, readInitiativeStatus } from '../../app/commands/initiative-status.js';
import { InitiativePlanEnvelope, InitiativeStatusEnvelope } from '../../work-units/validators.generated.js';
import type { CommandContext } from '../context.js';

/** `orchestrate plan | status`'s flags. */
export interface OrchestrateFlags {
  maxActiveWorkers?: string | undefined;
}

/**
 * `orchestrate plan | status` (work-units.md §9): the document under its envelope. Like `mem inbox`,
 * the status runs on compiled validators (events, config, envelope), so it loads neither zod nor
 * `yaml` nor xstate unless something fails a check, and scripts/bundle-cli.mjs bundles it into one
 * file: `status` of a large initiative has a budget of 3 × `node -e 0`.
 */
export async function orchestratePlan(ctx: CommandContext, initiative: string, options: OrchestrateFlags): Promise<void> {
  ctx.output.nameArguments({ initiative: 'INIT' });
  const envelope = await readInitiativePlan(ctx, { initiative, max_active_workers: options.maxActiveWorkers });
  await ctx.output.emitCompiled(InitiativePlanEnvelope, envelope, (p) =>
    [
      `${p.initiative}: plan for attempt ${p.launch_attempt} (dry run), logical waves [${p.logical_waves.join(', ')}], capacity ${p.max_active_workers ?? 'unlimited'}`,
      ...p.waves.map((w) => `  wave ${w.planned_wave} (logical ${w.logical_waves.join(',')}): ${w.wus.map((u) => `${u.id} [${u.lane}]`).join(', ')}`),
      ...p.deferred.map((d) => `  deferred ${d.wu_id}: ${d.reason}`),
    ].join('\n'),
  );
}

export async function orchestrateStatus(ctx: CommandContext, initiative: string, options: OrchestrateFlags): Promise<void> {
  ctx.output.nameArguments({ initiative: 'INIT' });
  const envelope = await readInitiativeStatus(ctx, { initiative, max_active_workers: options.maxActiveWorkers });
  await ctx.output.emitCompiled(InitiativeStatusEnvelope, envelope, (s) => humanStatus(s as unknown as StatusDocument));
}

export function humanStatus(s: StatusDocument): string {
  const action = (a: NextSafeAction): string => `  ${a.type.padEnd(11)} ${(a.wu_ids ?? [a.wu_id]).join(',')}: ${a.reason}`;
  return [
    `${s.initiative} — attempt ${s.launch_attempt ?? '-'}, capacity ${s.available_capacity ?? '∞'}/${s.max_active_workers ?? '∞'}${s.blocked_by_integrity ? ', BLOCKED BY INTEGRITY' : ''}`,
    ...s.wus.map(
      (w) =>
        `  ${w.wu_id.padEnd(8)} ${w.orchestration_state.padEnd(16)} wave ${w.logical_wave}${w.planned_wave !== null ? `/${w.planned_wave}` : ''}  ${w.lane ?? ''}  ${w.title}`,
    ),
    'Next safe actions:',
    ...(s.next_safe_actions.length === 0 ? ['  (none)'] : s.next_safe_actions.map(action)),
  ].join('\n');
}
