import type { WuListRow } from '../../../projections/work-units/listing.js';
import { listInitiativesEnvelope, listWorkUnits, showInitiativeEnvelope, showWorkUnit, type WuListInput } from '../../app/commands/listing.js';
import type { CommandContext } from '../context.js';
import { table } from '../table.js';
import { InitiativeListEnvelope, InitiativeShowEnvelope, WuListEnvelope, WuShowEnvelope } from '../../app/envelopes/listing.js';

/** `wu list | show`, `initiative list | show`: src/app/commands/listing.ts, printed. */
export type WuListOptions = WuListInput;

/**
 * The WU table: one state column, the orchestration state (`eligible` is what LumenFlow calls
 * `ready`; the YAML status is in `wu show` and the JSON).
 */
const wuTable = (rows: readonly WuListRow[], indent = ''): string =>
  table(
    ['WU', 'STATE', 'INITIATIVE', 'LANE', 'TITLE'],
    rows.map((r) => [r.wu_id, r.orchestration_state, r.initiative ?? '-', r.lane ?? '-', r.title]),
    indent,
  );

export async function wuList(ctx: CommandContext, options: WuListOptions): Promise<void> {
  const envelope = await listWorkUnits(ctx, { initiative: options.initiative, state: options.state, lane: options.lane });
  ctx.output.emit(WuListEnvelope, envelope, (e) => (e.wus.length === 0 ? '(no work units)' : wuTable(e.wus)));
}

export async function wuShow(ctx: CommandContext, wu: string): Promise<void> {
  ctx.output.nameArguments({ wu: 'WU' });
  ctx.output.emit(WuShowEnvelope, await showWorkUnit(ctx, { wu }), (w) =>
    [
      `${w.wu_id}  ${w.title}`,
      `  state:        ${w.orchestration_state} (rule ${w.rule})${w.reason !== null ? ` — ${w.reason}` : ''}`,
      ...(w.has_yaml ? [`  yaml_status:  ${w.yaml_status ?? '-'}`] : []),
      `  initiative:   ${w.initiative ?? '-'}   lane: ${w.lane ?? '-'}   type: ${w.wu_type}   priority: ${w.priority}`,
      `  depends on:   ${[...new Set([...w.blocked_by, ...w.dependencies])].join(', ') || '-'}`,
      `  code paths:   ${w.code_paths.join(', ') || '-'}`,
      `  claim:        ${w.claim === null ? '-' : `#${w.claim.seq} ${w.claim.at} ${w.claim.session_id ?? '(no session)'} ${w.claim.mode}${w.claim.worktree_path !== null ? ` ${w.claim.worktree_path}` : ''}`}`,
      `  checkpoint:   ${w.last_checkpoint === null ? '-' : `#${w.last_checkpoint.seq} ${w.last_checkpoint.at} ${w.last_checkpoint.note}${w.last_checkpoint.progress !== null ? ` (${w.last_checkpoint.progress})` : ''}`}`,
      ...(w.last_checkpoint !== null && w.last_checkpoint.next_steps !== null ? [`  next steps:   ${w.last_checkpoint.next_steps}`] : []),
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
      : table(
          ['INITIATIVE', 'WUS', 'BY STATE', 'TITLE'],
          e.initiatives.map((i) => [i.initiative, String(i.wus), countsText(i.by_state) || '-', i.title]),
        ),
  );
}

export async function initiativeShow(ctx: CommandContext, initiative: string): Promise<void> {
  ctx.output.nameArguments({ initiative: 'INIT' });
  ctx.output.emit(InitiativeShowEnvelope, await showInitiativeEnvelope(ctx, { initiative }), (i) =>
    [
      `${i.initiative}  ${i.title}${i.slug !== null ? ` (${i.slug})` : ''}`,
      `  lanes: ${i.lanes.join(', ') || '(any)'}   attempt: ${i.launch_attempt ?? '-'}   ${i.wus} WUs${i.wus > 0 ? ` (${countsText(i.by_state)})` : ''}`,
      ...(i.members.length > 0 ? [wuTable(i.members, '  ')] : []),
    ].join('\n'),
  );
}
