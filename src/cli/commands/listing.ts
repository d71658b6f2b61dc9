import { INITIATIVE_ID_PATTERN, ORCHESTRATION_STATES, SLUG_PATTERN, type OrchestrationState } from '../../../events/work-units/terms.js';
import {
  initiativeIsKnown,
  listInitiatives,
  listWus,
  resolveInitiativeRef,
  showInitiative,
  showWu,
  type WuListRow,
} from '../../../projections/work-units/listing.js';
import { BatonError, ErrorCode, invalidInput } from '../../errors.js';
import { checkWuId, loadWorkUnits } from '../../work-units/env.js';
import type { CommandContext } from '../context.js';
import { InitiativeListEnvelope, InitiativeShowEnvelope, WuListEnvelope, WuShowEnvelope } from '../../app/envelopes/listing.js';
import { workUnitsEnv } from '../../app/work-units-env.js';

/**
 * `wu list | show`, `initiative list | show`: the log as recorded, read through
 * the work-unit fold's snapshot; nothing appended, no probe run (`orchestrate status` observes).
 */
export interface WuListOptions {
  initiative?: string | undefined;
  state?: string | undefined;
  lane?: string | undefined;
}

// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

function checkInitiativeRef(value: string, field: string): string {
  if (!INITIATIVE_ID_PATTERN.test(value) && !SLUG_PATTERN.test(value)) {
    throw invalidInput(`must be an initiative id (${INITIATIVE_ID_PATTERN.source}) or a slug (${SLUG_PATTERN.source}), got ${JSON.stringify(value)}`, field);
  }
  return value;
}

function checkState(value: string): OrchestrationState {
  if (!(ORCHESTRATION_STATES as readonly string[]).includes(value))
    throw invalidInput(`must be one of ${ORCHESTRATION_STATES.join(', ')}, got ${JSON.stringify(value)}`, '--state');
  return value as OrchestrationState;
}

function checkLane(value: string): string {
  const trimmed = value.trim();
  if (trimmed.length < 1 || trimmed.length > 100) throw invalidInput('must be 1–100 characters after trimming', '--lane');
  if (CONTROL_CHARS.test(value)) throw invalidInput('must not contain control characters', '--lane');
  if (value.includes(',')) throw invalidInput('must not contain a comma', '--lane');
  return trimmed;
}

function unknownInitiative(id: string): BatonError {
  return new BatonError(ErrorCode.UNKNOWN_ID, `Initiative ${id} not found`, { initiative: id });
}

const rowLine = (r: WuListRow): string =>
  `${r.wu_id.padEnd(9)} ${r.orchestration_state.padEnd(16)} ${(r.yaml_status ?? '-').padEnd(11)} ${(r.initiative ?? '-').padEnd(10)} ${(r.lane ?? '-').padEnd(14)} ${r.title}`;

export async function wuList(ctx: CommandContext, options: WuListOptions): Promise<void> {
  // Every filter is checked before the log is read: bad input reads nothing.
  const initiativeRef = options.initiative === undefined ? undefined : checkInitiativeRef(options.initiative, '--initiative');
  const state = options.state === undefined ? undefined : checkState(options.state);
  const lane = options.lane === undefined ? undefined : checkLane(options.lane);
  const env = await workUnitsEnv(ctx);
  const { state: fold } = await loadWorkUnits(env);
  let initiative: string | undefined;
  if (initiativeRef !== undefined) {
    initiative = resolveInitiativeRef(fold, initiativeRef);
    if (!initiativeIsKnown(fold, initiative)) throw unknownInitiative(initiativeRef);
  }
  const wus = listWus(fold, env.config, env.now, { initiative, state, lane });
  ctx.output.emit(
    WuListEnvelope,
    {
      v: 1,
      type: 'wu_list',
      generated_at: env.now,
      filters: { initiative: initiative ?? null, state: state ?? null, lane: lane ?? null },
      count: wus.length,
      wus,
    },
    (e) => (e.wus.length === 0 ? '(no work units)' : e.wus.map(rowLine).join('\n')),
  );
}

export async function wuShow(ctx: CommandContext, wuId: string): Promise<void> {
  checkWuId(wuId);
  const env = await workUnitsEnv(ctx);
  const { state } = await loadWorkUnits(env);
  const detail = showWu(state, wuId, env.config, env.now);
  if (detail === null) throw new BatonError(ErrorCode.UNKNOWN_ID, `WU ${wuId} not found`, { wu_id: wuId });
  ctx.output.emit(WuShowEnvelope, { v: 1, type: 'wu_detail', generated_at: env.now, ...detail }, (w) =>
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
  const env = await workUnitsEnv(ctx);
  const { state } = await loadWorkUnits(env);
  const initiatives = listInitiatives(state, env.config, env.now);
  ctx.output.emit(InitiativeListEnvelope, { v: 1, type: 'initiative_list', generated_at: env.now, count: initiatives.length, initiatives }, (e) =>
    e.initiatives.length === 0
      ? '(no initiatives)'
      : e.initiatives
          .map((i) => `${i.initiative.padEnd(10)} ${String(i.wus).padStart(4)} WUs${i.wus > 0 ? ` (${countsText(i.by_state)})` : ''}  ${i.title}`)
          .join('\n'),
  );
}

export async function initiativeShow(ctx: CommandContext, ref: string): Promise<void> {
  checkInitiativeRef(ref, 'INIT');
  const env = await workUnitsEnv(ctx);
  const { state } = await loadWorkUnits(env);
  const detail = showInitiative(state, ref, env.config, env.now);
  if (detail === null) throw unknownInitiative(ref);
  ctx.output.emit(InitiativeShowEnvelope, { v: 1, type: 'initiative_detail', generated_at: env.now, ...detail }, (i) =>
    [
      `${i.initiative}  ${i.title}${i.slug !== null ? ` (${i.slug})` : ''}`,
      `  lanes: ${i.lanes.join(', ') || '(any)'}   attempt: ${i.launch_attempt ?? '-'}   ${i.wus} WUs${i.wus > 0 ? ` (${countsText(i.by_state)})` : ''}`,
      ...i.members.map((r) => `  ${rowLine(r)}`),
    ].join('\n'),
  );
}
