import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { getAdjacencyMap, getShortestPaths } from '@xstate/graph';
import fc from 'fast-check';
import { createActor } from 'xstate';
import { afterAll, describe, expect, it } from 'vitest';
import { INITIAL_WU_LIFECYCLE, machineStep, type WuLifecycle } from '../../machines/work-unit-table.js';
import { stepWu } from '../../machines/work-unit-steps.js';
import { ALL_WU_MACHINE_EVENTS, INITIAL_WU_CONTEXT, WU_LIFECYCLE_STATES, wuMachine, type WuMachineEvent } from '../../machines/work-unit.js';
import { WU_LIFECYCLES } from '../../machines/work-unit-lifecycle.js';
import { inParallel } from '../helpers/cli.js';
import { removeTempDirs } from '../helpers/workspace.js';
import { row, WuWorkspace } from './helpers.js';

/**
 * The `wu` machine (work-units.md §3.3): model-based tests generated from its graph — every state
 * and every command transition driven through the built binary — and the property that the fold's
 * table always agrees with the machine.
 */
afterAll(removeTempDirs);

const COMMAND_EVENTS: readonly WuMachineEvent[] = ['CLAIM', 'CHECKPOINT', 'RETURN', 'BLOCK', 'UNBLOCK', 'RELEASE', 'STAMP'].map(
  (type) => ({ type }) as WuMachineEvent,
);

function lifecycleOf(snapshot: { value: unknown; context: object }): WuLifecycle {
  return { state: snapshot.value, ...snapshot.context } as WuLifecycle;
}

describe('the wu machine and its table', () => {
  it('reaches all four lifecycle states; every shortest path replays identically on the table', () => {
    const paths = getShortestPaths(wuMachine, { events: [...ALL_WU_MACHINE_EVENTS] });
    expect(new Set(paths.map((p) => String(p.state.value)))).toEqual(new Set(WU_LIFECYCLE_STATES));
    for (const path of paths) {
      let l: WuLifecycle = { ...INITIAL_WU_LIFECYCLE };
      for (const step of path.steps) {
        if ((step.event.type as string) === 'xstate.init') continue;
        const next = stepWu(l, step.event as WuMachineEvent);
        expect(next, `${l.state} + ${step.event.type}`).not.toBeNull();
        l = next!;
        expect(l).toEqual(lifecycleOf(step.state));
      }
    }
  });

  it('every vertex of the graph: the table accepts exactly the events the machine accepts, with the same result', () => {
    const map = getAdjacencyMap(wuMachine, { events: [...ALL_WU_MACHINE_EVENTS] });
    for (const vertex of Object.values(map)) {
      const from = lifecycleOf(vertex.state);
      for (const event of ALL_WU_MACHINE_EVENTS) {
        expect(stepWu(from, event)).toEqual(machineStep(from, event));
      }
    }
  });

  it('property: on random event sequences a live actor and the fold table agree step by step; rejected events change nothing', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...ALL_WU_MACHINE_EVENTS), { maxLength: 40 }), (events) => {
        const actor = createActor(wuMachine).start();
        let l: WuLifecycle = { ...INITIAL_WU_LIFECYCLE };
        for (const event of events) {
          const can = actor.getSnapshot().can(event);
          const next = stepWu(l, event);
          expect(next !== null).toBe(can);
          if (can) actor.send(event);
          if (next !== null) l = next;
          expect(l).toEqual(lifecycleOf(actor.getSnapshot()));
        }
        actor.stop();
      }),
      { numRuns: 300 },
    );
  });

  it('the generated table (scripts/generate-machine-tables.ts) is current', async () => {
    const root = new URL('../..', import.meta.url);
    const result = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/generate-machine-tables.ts', '--check'], {
      cwd: root,
      encoding: 'utf8',
    }).catch((error: { stderr?: string; code?: number }) => error);
    expect((result as { stderr?: string }).stderr ?? '').toBe('');
    expect((result as { code?: number }).code ?? 0).toBe(0);
  }, 120_000);

  it("the whole lifecycle space, reachable or not: the table gives the machine's answer for every event, keys in the same order", () => {
    expect(INITIAL_WU_LIFECYCLE).toStrictEqual({ state: 'ready', ...INITIAL_WU_CONTEXT });
    expect(WU_LIFECYCLES).toHaveLength(128);
    for (const from of WU_LIFECYCLES) {
      for (const event of ALL_WU_MACHINE_EVENTS) {
        const expected = machineStep(from, event);
        const actual = stepWu(from, event);
        expect(actual, `${JSON.stringify(from)} + ${JSON.stringify(event)}`).toStrictEqual(expected);
        expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
      }
    }
  });

  it('refuses what is no lifecycle rather than guess', () => {
    expect(() => stepWu({ ...INITIAL_WU_LIFECYCLE, state: 'nowhere' } as unknown as WuLifecycle, { type: 'CLAIM' })).toThrow(/not a wu lifecycle/);
    expect(() => stepWu({ ...INITIAL_WU_LIFECYCLE, stamped: 'yes' } as unknown as WuLifecycle, { type: 'CLAIM' })).toThrow(/not a wu lifecycle/);
  });

  it('done by a stamp is terminal: only the YAML and stamp-file facts are accepted after it', () => {
    const done = stepWu(stepWu(INITIAL_WU_LIFECYCLE, { type: 'CLAIM' })!, { type: 'STAMP' })!;
    const accepted = ALL_WU_MACHINE_EVENTS.filter((e) => stepWu(done, e) !== null).map((e) => e.type);
    expect([...new Set(accepted)].sort()).toEqual(['STAMP_FILE', 'YAML_STATUS']);
    expect(stepWu(done, { type: 'YAML_STATUS', status: 'unclaimed' })!.state).toBe('done');
  });
});

/**
 * The CLI command for a machine event. Every step acts as the scenario's one agent identity, so it
 * holds every claim; the WUs share lane L1, so a claim is forced past the lane's WIP limit.
 */
function commandFor(event: WuMachineEvent, wu: string): string[] {
  switch (event.type) {
    case 'CLAIM':
      return ['wu', 'claim', wu, '--force', '--reason', 'scenario: one WU per machine path, all in flight in lane L1'];
    case 'CHECKPOINT':
      return ['wu', 'checkpoint', wu, '--note', 'n'];
    case 'RETURN':
      return ['wu', 'return', wu];
    case 'BLOCK':
      return ['wu', 'block', wu, '--reason', 'r'];
    case 'UNBLOCK':
      return ['wu', 'unblock', wu];
    case 'RELEASE':
      return ['wu', 'release', wu, '--reason', 'r'];
    case 'STAMP':
      return ['wu', 'done', wu];
    default:
      throw new Error(`no command for ${event.type}`);
  }
}

describe('model-based through the binary: every command transition of the graph', () => {
  it("each legal command edge (a shortest path to its source, then the edge) leaves the WU in the machine's state", async () => {
    const paths = getShortestPaths(wuMachine, { events: [...COMMAND_EVENTS] });
    const edgePaths: { events: WuMachineEvent[]; expected: string }[] = [];
    const seen = new Set<string>();
    for (const path of paths) {
      const prefix = path.steps.map((s) => s.event as WuMachineEvent).filter((e) => (e.type as string) !== 'xstate.init');
      const from = lifecycleOf(path.state);
      for (const event of COMMAND_EVENTS) {
        const next = stepWu(from, event);
        // One path per (state, event, next state): the graph's distinct command transitions.
        const key = `${from.state}>${event.type}>${next?.state ?? ''}`;
        if (next === null || seen.has(key)) continue;
        seen.add(key);
        edgePaths.push({ events: [...prefix, event], expected: next.state });
      }
    }
    const covered = new Set(edgePaths.map((p) => p.events.at(-1)!.type));
    expect([...covered].sort()).toEqual(COMMAND_EVENTS.map((e) => e.type).sort());
    const ws = await WuWorkspace.create();
    // One WU per path; its commands run in order, the WUs side by side.
    await ws.defineMany(1, edgePaths.length);
    await inParallel(
      4,
      edgePaths.map((p, i) => async () => {
        for (const event of p.events) await ws.ok(commandFor(event, `WU-${i + 1}`));
      }),
    );
    const status = await ws.status();
    const yaml: Record<string, string> = { ready: 'ready', in_progress: 'in_progress', blocked: 'blocked', done: 'done' };
    edgePaths.forEach((p, i) => expect(row(status, `WU-${i + 1}`).yaml_status, p.events.map((e) => e.type).join(' ')).toBe(yaml[p.expected]));
    expect(status.integrity_findings).toEqual([]);
    // An illegal command from each lifecycle state is refused with exit 2 and appends nothing.
    const head = ws.headSeq();
    const illegal = edgePaths.find((p) => p.expected === 'done')!;
    const doneWu = `WU-${edgePaths.indexOf(illegal) + 1}`;
    expect((await ws.fail(['wu', 'block', doneWu, '--reason', 'r'], 2)).code).toBe('ILLEGAL_TRANSITION');
    const readyWu = `WU-${edgePaths.findIndex((p) => p.expected === 'ready') + 1}`;
    expect((await ws.fail(['wu', 'unblock', readyWu], 2)).code).toBe('ILLEGAL_TRANSITION');
    expect((await ws.fail(['wu', 'return', readyWu], 2)).code).toBe('NOT_CLAIMED');
    expect((await ws.fail(['wu', 'done', readyWu], 2)).code).toBe('ILLEGAL_TRANSITION');
    expect(ws.headSeq()).toBe(head);
  });
});
