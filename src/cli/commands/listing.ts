import type { WuListRow } from '../../../projections/work-units/listing.js';
import { listInitiativesEnvelope, listWorkUnits, showInitiativeEnvelope, showWorkUnit, type WuListInput } from '../../app/commands/listing.js';
import type { CommandContext } from '../context.js';
import { InitiativeListEnvelope, InitiativeShowEnvelope, WuListEnvelope, WuShowEnvelope } from '../../app/envelopes/listing.js';

/** `wu list | show`, `initiative list | show`: src/app/commands/listing.ts, printed. */
export type WuListOptions = WuListInput;

const rowLine = (r: WuListRow): string =>
  `${r.wu_id.padEnd(9)} ${r.orchestration_state.padEnd(16)} ${(r.yaml_status ?? '-').padEnd(11)} ${(r.initiative ?? '-').padEnd(10)} ${(r.lane ?? '-').padEnd(14)} ${r.title}`;

export async function wuList(ctx: CommandContext, options: WuListOptions): Promise<void> {
  const envelope = await listWorkUnits(ctx, { initiative: options.initiative, state: options.state, lane: options.lane });
  ctx.output.emit(WuListEnvelope, envelope, (e) => (e.wus.length === 0 ? '(no work units)' : e.wus.map(rowLine).join('\n')));
}

export async function wuShow(ctx: CommandContext, wu: string): Promise<void> {
  ctx.output.nameArguments({ wu: 'WU' });
  ctx.output.emit(WuShowEnvelope, await showWorkUnit(ctx, { wu }), (w) =>
    [
      `${w.wu_id}  ${w.title}`,
      `  state:        ${w.orchestration_state} (rule ${w.rule})${w.reason !== null ? ` — ${w.reason}` : ''}`,
      `  yaml_status:  ${w.yaml_status ?? '-'}`,
      `  initiative:   ${w.initiative ?? '-'}   lane: ${w.lane ?? '-'}   type: ${w.wu_type}   priority: ${w.priority}`,
      `  depends on:   ${[...new Set([...w.blocked_by, ...w.dependencies])].join(', ') || '-'}`,
      `  code paths:   ${w.code_paths.join(', ') || '-'}`,
      `  claim:        ${w.claim === null ? '-' : `#${w.claim.seq} ${w.claim.at} ${w.claim.session_id ?? '(no session)'} ${w.claim.mode}${w.claim.worktree_path !== null ? ` ${w.claim.worktree_path}` : ''}`}`,
      `  checkpoint:   ${w.last_checkpoint === null ? '-' : `#${w.last_checkpoint.seq} ${w.last_checkpoint.at} ${w.last_checkpoint.summary}`}`,
      ...(w.blocked_reason !== null ? [`  blocked:      ${w.blocked_reason}`] : []),
      ...(w.stamped !== null ? [`  stamped:      #${w.stamped.seq} ${w.stamped.completed_date} ${w.stamped.stamp_path}`] : []),
      ...w.integrity_findings.map((f) => `  finding ${f.code} at seq ${f.seq}: ${f.message}`),
    ].join('\n'),
  );
}

const countsText = (byState: Partial<Record<string, number>>): string =>
  Object.entries(byState)
    .map(([s, n]) => `${n} ${s}`)
    .join(', ');

export async function initiativeList(ctx: CommandContext): Promise<void> {
  ctx.output.emit(InitiativeListEnvelope, await listInitiativesEnvelope(ctx), (e) =>
    e.initiatives.length === 0
      ? '(no initiatives)'
      : e.initiatives
          .map((i) => `${i.initiative.padEnd(10)} ${String(i.wus).padStart(4)} WUs${i.wus > 0 ? ` (${countsText(i.by_state)})` : ''}  ${i.title}`)
          .join('\n'),
  );
}

export async function initiativeShow(ctx: CommandContext, initiative: string): Promise<void> {
  ctx.output.nameArguments({ initiative: 'INIT' });
  ctx.output.emit(InitiativeShowEnvelope, await showInitiativeEnvelope(ctx, { initiative }), (i) =>
    [
      `${i.initiative}  ${i.title}${i.slug !== null ? ` (${i.slug})` : ''}`,
      `  lanes: ${i.lanes.join(', ') || '(any)'}   attempt: ${i.launch_attempt ?? '-'}   ${i.wus} WUs${i.wus > 0 ? ` (${countsText(i.by_state)})` : ''}`,
      ...i.members.map((r) => `  ${rowLine(r)}`),
    ].join('\n'),
  );
}
