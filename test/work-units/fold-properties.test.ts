import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BatonEvent } from '../../events/baton-event.js';
import { dataOf, decoded, mustAccept } from '../helpers/decoded.js';
import { stepWu } from '../../machines/work-unit-steps.js';
import { computeInitiative, statusDocument } from '../../projections/work-units/initiative-view.js';
import { depsOf, evidenceOf, evidenceValues, stallSeconds, valuesOf } from '../../projections/work-units/evidence.js';
import { DEFAULT_WORK_UNITS_CONFIG, laneSettings } from '../../projections/work-units/settings.js';
import { WorkUnitsConfigSchema } from '../../projections/work-units/settings-schema.js';
import { applyWorkUnits, initWorkUnits, machineEventOf, type WorkUnitsState } from '../../projections/work-units/state.js';
import type { WuLifecycle } from '../../machines/work-unit-table.js';
import { INITIAL_WU_LIFECYCLE } from '../../machines/work-unit-table.js';

/**
 * Fold properties (work-units.md §5–§7) on random evidence sequences: incremental folding (through
 * a JSON snapshot) equals folding from scratch; an event the machine rejects is reported and changes
 * nothing; planned waves never violate a dependency, a lane WIP limit or the capacity.
 */
const WUS = ['WU-1', 'WU-2', 'WU-3', 'WU-4', 'WU-5', 'WU-6'];
const LANES = ['L1', 'L2', 'L3'];
const T0 = Date.parse('2026-04-17T10:00:00Z');

type Raw = { type: string; stream: string; data: Record<string, unknown>; minutes: number };

const wuEvent = fc.oneof(
  fc.record({
    wu: fc.constantFrom(...WUS),
    kind: fc.constantFrom(
      'wu.claimed',
      'wu.checkpointed',
      'wu.worker_returned',
      'wu.blocked',
      'wu.unblocked',
      'wu.released',
      'wu.stamped',
      'delegation.picked_up',
      'delegation.completed',
    ),
  }),
  fc.record({ wu: fc.constantFrom(...WUS), kind: fc.constant('observation.worktree'), present: fc.boolean() }),
  fc.record({ wu: fc.constantFrom(...WUS), kind: fc.constant('observation.stamp_file'), present: fc.boolean() }),
  fc.record({
    wu: fc.constantFrom(...WUS),
    kind: fc.constant('observation.wu_yaml'),
    status: fc.constantFrom('ready', 'in_progress', 'blocked', 'done', 'backlog'),
  }),
  fc.record({ wu: fc.constantFrom(...WUS), kind: fc.constant('handoff.emitted'), relaunch: fc.boolean() }),
  fc.record({ wu: fc.constantFrom(...WUS), kind: fc.constant('observation.dirty_paths'), dirty: fc.boolean() }),
);

function toRaw(e: { wu: string; kind: string; present?: boolean; status?: string; relaunch?: boolean; dirty?: boolean }, i: number): Raw {
  const wu_id = e.wu;
  const stream = `wu/${wu_id}`;
  const minutes = i * 7;
  switch (e.kind) {
    case 'wu.claimed':
      return {
        type: e.kind,
        stream,
        minutes,
        data: { wu_id, session_id: null, mode: 'worktree', worktree_path: `worktrees/l-${wu_id}`, branch: `lane/l/${wu_id}`, takeover_from: null },
      };
    case 'wu.checkpointed':
      return { type: e.kind, stream, minutes, data: { wu_id, session_id: null, note: 'n', progress: null, next_steps: null } };
    case 'wu.worker_returned':
      return { type: e.kind, stream, minutes, data: { wu_id, session_id: null, note: null, source: 'manual' } };
    case 'wu.blocked':
      return { type: e.kind, stream, minutes, data: { wu_id, reason: 'r' } };
    case 'wu.released':
      return { type: e.kind, stream, minutes, data: { wu_id, reason: 'r', previous_claimant: null } };
    case 'wu.stamped':
      return { type: e.kind, stream, minutes, data: { wu_id, title: wu_id, completed_date: '2026-04-17', stamp_path: `.baton/stamps/${wu_id}.done` } };
    case 'delegation.picked_up':
      return { type: e.kind, stream, minutes, data: { wu_id, delegation_id: 'd', picked_up_by: 'x' } };
    case 'observation.worktree':
      return { type: e.kind, stream, minutes, data: { wu_id, path: `worktrees/l-${wu_id}`, present: e.present, branch: null } };
    case 'observation.stamp_file':
      return { type: e.kind, stream, minutes, data: { wu_id, path: `.lumenflow/stamps/${wu_id}.done`, present: e.present, valid: true } };
    case 'observation.wu_yaml':
      return {
        type: e.kind,
        stream,
        minutes,
        data: { wu_id, path: `${wu_id}.yaml`, content_hash: '0'.repeat(64), fields: { status: e.status }, removed_fields: [] },
      };
    case 'handoff.emitted':
      return {
        type: e.kind,
        stream: 'initiative/INIT-1',
        minutes,
        data: {
          initiative: 'INIT-1',
          wu_id,
          launch_attempt: 0,
          lane: 'L1',
          logical_wave: 0,
          handoff_format: 'markdown',
          handoff_artifact_path: 'x',
          content_sha256: '0'.repeat(64),
          claimed_mode: 'worktree',
          worktree_path: `worktrees/l-${wu_id}`,
          branch: `lane/l/${wu_id}`,
          relaunch: e.relaunch,
        },
      };
    case 'observation.dirty_paths':
      return { type: e.kind, stream: 'workspace/root', minutes, data: { paths: e.dirty ? ['src/a.ts'] : [] } };
    case 'wu.unblocked':
      return { type: e.kind, stream, minutes, data: { wu_id } };
    default:
      return { type: e.kind, stream, minutes, data: { wu_id, delegation_id: 'd' } };
  }
}

const definitions = fc.tuple(...WUS.map((_, i) => fc.record({ lane: fc.constantFrom(...LANES), deps: fc.subarray(WUS.slice(0, i)) })));

function history(defs: { lane: string; deps: string[] }[], raws: Raw[]): BatonEvent[] {
  const all: Raw[] = [
    { type: 'initiative.created', stream: 'initiative/INIT-1', minutes: 0, data: { initiative: 'INIT-1', title: 'One', slug: null, lanes: [] } },
    ...defs.map((d, i) => ({
      type: 'wu.defined',
      stream: `wu/${WUS[i]}`,
      minutes: 0,
      data: { wu_id: WUS[i]!, initiative: 'INIT-1', lane: d.lane, title: WUS[i]!, dependencies: d.deps, code_paths: ['src/**'] },
    })),
    ...raws,
  ];
  return all.map((r, i) =>
    decoded({
      v: 1,
      seq: i + 1,
      id: `e${i + 1}`,
      type: r.type,
      stream: r.stream,
      at: new Date(T0 + r.minutes * 60_000).toISOString(),
      actor: 'system',
      data: r.data,
      prev: '',
      hash: '',
    }),
  );
}

const fold = (events: BatonEvent[], state: WorkUnitsState = initWorkUnits()): WorkUnitsState => events.reduce(applyWorkUnits, state);
const NOW = new Date(T0 + 10 * 3600_000).toISOString();

describe('work-unit fold properties', () => {
  it('incremental folding through a JSON snapshot equals folding from scratch', () => {
    fc.assert(
      fc.property(definitions, fc.array(wuEvent, { maxLength: 40 }), fc.nat(), (defs, events, cut) => {
        const log = history(defs, events.map(toRaw));
        const k = cut % (log.length + 1);
        const scratch = fold(log);
        const snapshot = JSON.parse(JSON.stringify(fold(log.slice(0, k)))) as WorkUnitsState;
        const incremental = fold(log.slice(k), snapshot);
        const view = (s: WorkUnitsState) =>
          JSON.stringify(statusDocument(computeInitiative(s, 'INIT-1', { config: DEFAULT_WORK_UNITS_CONFIG, now: NOW }), NOW));
        expect(view(incremental)).toBe(view(scratch));
      }),
      { numRuns: 150 },
    );
  });

  it('evidenceValues gives exactly the values of evidenceOf, for every WU, clock and setting', () => {
    fc.assert(
      fc.property(
        definitions,
        fc.array(wuEvent, { maxLength: 40 }),
        fc.integer({ min: 0, max: 48 * 60 }),
        fc.constantFrom('30m', '4h', '2d'),
        fc.option(fc.integer({ min: 0, max: 600 })),
        fc.constantFrom('worktree', 'branch-pr'),
        (defs, events, nowMinutes, stall, heartbeatMinutes, defaultMode) => {
          const state = fold(history(defs, events.map(toRaw)));
          // A live claimant whose heartbeat may be the latest activity.
          if (heartbeatMinutes !== null) {
            state.sessions['session_x'] = { last_heartbeat_at: new Date(T0 + heartbeatMinutes * 60_000).toISOString(), ended: false, ttl_seconds: 14_400 };
            for (const wu of Object.values(state.wus)) if (wu.claim !== null) wu.claim = { ...wu.claim, session_id: 'session_x' };
          }
          const config = WorkUnitsConfigSchema.parse({
            orchestration: { stall_threshold: stall, default_claim_mode: defaultMode, contamination_ignore: nowMinutes % 3 === 0 ? ['src/a.ts'] : [] },
          });
          const ctx = { state, config, now: new Date(T0 + nowMinutes * 60_000).toISOString(), stall_seconds: stallSeconds(config) };
          for (const wu of Object.values(state.wus)) {
            for (const assumePastEligible of [false, true]) {
              expect(evidenceValues(wu, ctx, { assumePastEligible })).toStrictEqual(valuesOf(evidenceOf(wu, ctx, { assumePastEligible })));
            }
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('an event the machine rejects is reported as REJECTED_BY_MACHINE and changes nothing', () => {
    fc.assert(
      fc.property(definitions, fc.array(wuEvent, { maxLength: 40 }), (defs, events) => {
        const log = history(defs, events.map(toRaw));
        let state = initWorkUnits();
        for (const event of log) {
          const wuId = dataOf(event)['wu_id'] as string | undefined;
          const before = wuId === undefined ? undefined : state.wus[wuId];
          const machineEvent = machineEventOf(mustAccept(event));
          const expected = before === undefined || machineEvent === null ? undefined : stepWu(before.lifecycle, machineEvent);
          const snapshot = before === undefined ? undefined : JSON.stringify({ ...before, findings: [] });
          const findings = before?.findings.length ?? 0;
          state = applyWorkUnits(state, event);
          if (before !== undefined && machineEvent !== null && expected === null) {
            const after = state.wus[wuId!]!;
            expect(after.findings.length).toBe(findings + 1);
            expect(after.findings.at(-1)).toMatchObject({ seq: event.seq, code: 'REJECTED_BY_MACHINE', type: event.type });
            expect(JSON.stringify({ ...after, findings: [] })).toBe(snapshot);
          } else if (expected) {
            expect(state.wus[wuId!]!.lifecycle).toEqual(expected);
          }
        }
      }),
      { numRuns: 150 },
    );
  });

  it('planned waves never violate a dependency, a lane WIP limit or the capacity', () => {
    fc.assert(
      fc.property(
        definitions,
        fc.array(wuEvent, { maxLength: 25 }),
        fc.option(fc.integer({ min: 1, max: 4 }), { nil: null }),
        fc.integer({ min: 1, max: 2 }),
        (defs, events, cap, wip) => {
          const state = fold(history(defs, events.map(toRaw)));
          const config = WorkUnitsConfigSchema.parse({ orchestration: { max_active_workers: cap }, lane_defaults: { wip_limit: wip } });
          const c = computeInitiative(state, 'INIT-1', { config, now: NOW });
          const placed = new Map(c.waves.flatMap((w) => w.wus.map((u) => [u.id, w.planned_wave] as const)));
          for (const [id, k] of placed) {
            for (const d of depsOf(state.wus[id]!)) {
              const dk = placed.get(d);
              if (dk !== undefined) expect(dk, `${d} before ${id}`).toBeLessThan(k);
            }
          }
          for (const w of c.waves) {
            const perLane = new Map<string, number>();
            for (const u of w.wus) perLane.set(u.lane, (perLane.get(u.lane) ?? 0) + 1);
            for (const [lane, n] of perLane) expect(n).toBeLessThanOrEqual(laneSettings(config, lane).wip_limit);
            if (cap !== null) expect(w.wus.length).toBeLessThanOrEqual(w.planned_wave === 0 ? c.available_capacity! : cap);
          }
          if (cap !== null)
            expect(c.next_safe_actions.filter((a) => a.type === 'launch_wu' || a.type === 'relaunch_wu').length).toBeLessThanOrEqual(c.available_capacity!);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('the state each WU gets is the decision table applied to evidence derived directly from the events', () => {
    fc.assert(
      fc.property(definitions, fc.array(wuEvent, { maxLength: 40 }), (defs, events) => {
        const log = history(defs, events.map(toRaw));
        const c = computeInitiative(fold(log), 'INIT-1', { config: DEFAULT_WORK_UNITS_CONFIG, now: NOW });
        const oracle = oracleStates(log, defs);
        for (const id of WUS) expect(c.assessments.get(id)!.decision.state, id).toBe(oracle.get(id));
      }),
      { numRuns: 200 },
    );
  });
});

/**
 * An independent reading of work-units.md §3.4, §5.3 and §6.2 over the raw events: which events the
 * machine accepts is the only thing taken from the implementation (stepWu is the machine's table).
 * The generator never makes branch observations or PR modes, so rows 4 and 6 are not exercised here
 * (the CLI scenarios 29 and 30 cover them).
 */
function oracleStates(log: BatonEvent[], defs: { lane: string; deps: string[] }[]): Map<string, string> {
  type E = BatonEvent;
  const accepted = new Map<string, E[]>(WUS.map((w) => [w, []]));
  const lifecycle = new Map<string, WuLifecycle>(WUS.map((w) => [w, { ...INITIAL_WU_LIFECYCLE }]));
  let dirty: string[] = [];
  for (const e of log) {
    if (e.type === 'observation.dirty_paths') dirty = dataOf(e)['paths'] as string[];
    const wu = dataOf(e)['wu_id'] as string | undefined;
    if (wu === undefined || !accepted.has(wu) || e.type === 'wu.defined') continue;
    const me = machineEventOf(mustAccept(e));
    if (me !== null) {
      const next = stepWu(lifecycle.get(wu)!, me);
      if (next === null) continue;
      lifecycle.set(wu, next);
    }
    accepted.get(wu)!.push(e);
  }
  const terminal = new Set(['done', 'completed', 'cancelled', 'abandoned', 'deferred', 'closed', 'superseded']);
  const facts = new Map<string, { DONE: boolean; evs: E[]; yaml: string; start: number }>();
  for (const wu of WUS) {
    const evs = accepted.get(wu)!;
    let yaml = 'ready';
    let start = 0;
    let stampedFact = false;
    let stampFile = false;
    for (const e of evs) {
      if (e.type === 'wu.claimed') yaml = 'in_progress';
      if (e.type === 'wu.blocked') yaml = 'blocked';
      if (e.type === 'wu.unblocked') yaml = yamlBefore(evs, e);
      if (e.type === 'wu.released' || (e.type === 'handoff.emitted' && dataOf(e)['relaunch'] === true)) {
        start = e.seq;
        yaml = 'ready';
      }
      if (e.type === 'wu.stamped') [yaml, stampedFact] = ['done', true];
      if (e.type === 'observation.wu_yaml') yaml = (dataOf(e)['fields'] as { status: string }).status;
      if (e.type === 'observation.stamp_file') stampFile = dataOf(e)['present'] === true && dataOf(e)['valid'] === true;
    }
    facts.set(wu, { DONE: stampedFact || stampFile || terminal.has(yaml), evs, yaml, start });
  }
  const out = new Map<string, string>();
  WUS.forEach((wu, i) => {
    const { DONE, evs, yaml, start } = facts.get(wu)!;
    const win = evs.filter((e) => e.seq >= start);
    const last = (types: string[]) => win.filter((e) => types.includes(e.type)).at(-1);
    const claim = last(['wu.claimed']);
    const handoff = last(['handoff.emitted']);
    const pickup = last(['delegation.picked_up']);
    const claimed = yaml === 'in_progress' || yaml === 'blocked' || pickup !== undefined;
    const path = ((claim && dataOf(claim)['worktree_path']) ?? (handoff && dataOf(handoff)['worktree_path']) ?? null) as string | null;
    const wtObs = evs.filter((e) => e.type === 'observation.worktree' && dataOf(e)['path'] === path).at(-1);
    const present = path !== null && wtObs !== undefined && dataOf(wtObs)['present'] === true;
    const returned = last(['wu.worker_returned', 'delegation.completed']) !== undefined;
    let claimedSince = 0;
    let wasClaimed = false;
    for (const e of evs) {
      const before = wasClaimed;
      wasClaimed = claimedAfter(evs, e);
      if (e.type === 'wu.claimed' || ((e.type === 'delegation.picked_up' || e.type === 'observation.wu_yaml') && wasClaimed && !before)) claimedSince = e.seq;
    }
    const cp = last(['wu.checkpointed']);
    const executing = present || (cp !== undefined && cp.seq > claimedSince);
    const past = handoff !== undefined || claimed || returned || present;
    const overlap = past && dirty.length > 0;
    const activity = win.filter((e) => ['wu.claimed', 'wu.checkpointed', 'wu.unblocked', 'delegation.picked_up'].includes(e.type)).map((e) => Date.parse(e.at));
    const lastAt = activity.length > 0 ? Math.max(...activity) : present ? Date.parse(wtObs!.at) : null;
    const inactive = lastAt !== null && Date.parse(NOW) - lastAt > 4 * 3600_000;
    const depsDone = defs[i]!.deps.every((d) => facts.get(d)!.DONE);
    const state = DONE
      ? 'done'
      : overlap
        ? 'contaminated'
        : yaml === 'blocked'
          ? 'blocked'
          : returned && present
            ? 'ready_for_finish'
            : returned
              ? 'needs_relaunch'
              : present && inactive
                ? 'stalled'
                : executing
                  ? 'active'
                  : claimed
                    ? 'claimed'
                    : handoff !== undefined
                      ? 'handoff_emitted'
                      : depsDone
                        ? 'eligible'
                        : 'planned';
    out.set(wu, state);
  });
  return out;
}

/** The YAML status an unblock returns to: in_progress when the block came from a claimed state. */
function yamlBefore(evs: BatonEvent[], unblock: BatonEvent): string {
  // The block is the last wu.blocked before the unblock, or a YAML observation that set `blocked`.
  const block = evs
    .slice(0, evs.indexOf(unblock))
    .reverse()
    .find((x) => x.type === 'wu.blocked' || (x.type === 'observation.wu_yaml' && (dataOf(x)['fields'] as { status?: string }).status === 'blocked'));
  // A block that came from the YAML (status `blocked`, which counts as claimed — see claimedAfter)
  // returns to in_progress, like a block from a claimed state.
  if (block === undefined || block.type === 'observation.wu_yaml') return 'in_progress';
  const prior = evs.slice(0, evs.indexOf(block));
  let yaml = 'ready';
  for (const e of prior) {
    if (e.type === 'wu.claimed') yaml = 'in_progress';
    if (e.type === 'wu.unblocked') yaml = yamlBefore(evs, e);
    if (e.type === 'wu.released' || (e.type === 'handoff.emitted' && dataOf(e)['relaunch'] === true)) yaml = 'ready';
    if (e.type === 'observation.wu_yaml') yaml = (dataOf(e)['fields'] as { status: string }).status;
  }
  return yaml === 'in_progress' || yaml === 'blocked' ? 'in_progress' : 'ready';
}

/** Is the WU claimed right after `e` (YAML in_progress/blocked, or a pickup in the window)? */
function claimedAfter(evs: BatonEvent[], e: BatonEvent): boolean {
  const upTo = evs.slice(0, evs.indexOf(e) + 1);
  let yaml = 'ready';
  let windowStart = 0;
  for (const x of upTo) {
    if (x.type === 'wu.claimed') yaml = 'in_progress';
    if (x.type === 'wu.blocked') yaml = 'blocked';
    if (x.type === 'wu.unblocked') yaml = yamlBefore(evs, x);
    if (x.type === 'wu.released' || (x.type === 'handoff.emitted' && dataOf(x)['relaunch'] === true)) [yaml, windowStart] = ['ready', x.seq];
    if (x.type === 'wu.stamped') yaml = 'done';
    if (x.type === 'observation.wu_yaml') yaml = (dataOf(x)['fields'] as { status: string }).status;
  }
  return yaml === 'in_progress' || yaml === 'blocked' || upTo.some((x) => x.type === 'delegation.picked_up' && x.seq >= windowStart);
}
