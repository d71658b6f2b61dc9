import { describe, expect, it } from 'vitest';
import { decideLaunch, type LaunchInitiative, type LaunchState } from '../../deciders/initiatives.js';
import { workUnitsStateProjection } from '../../projections/work-units/fold.js';
import { computeInitiative } from '../../projections/work-units/initiative-view.js';
import { DEFAULT_WORK_UNITS_CONFIG } from '../../projections/work-units/settings.js';
import { given, refusalOf, specify, T0, versionOf, type Fact } from './given.js';

/** `orchestrate run` (work-units.md §10) decided without a store, files or the binary. */
const INIT = 'INIT-1';
const stream = `initiative/${INIT}`;
const created: Fact = { type: 'initiative.created', stream, data: { initiative: INIT, title: 'One', slug: null, lanes: ['Core API', 'Docs'] } };
const defined = (id: string, lane: string, dependencies: string[] = []): Fact => ({
  type: 'wu.defined',
  stream: `wu/${id}`,
  data: { wu_id: id, initiative: INIT, title: id, lane, dependencies, code_paths: [] },
});

const command: LaunchInitiative = {
  initiative: INIT,
  client: 'claude-code',
  now: T0,
  orchestration: DEFAULT_WORK_UNITS_CONFIG.orchestration,
  attemptDir: (n) => `.baton/artifacts/orchestration/${INIT}/attempt-${n}`,
  digest: (text) => `digest-of-${text.length}`,
};

function launchState(facts: readonly Fact[], attempt = 0): LaunchState {
  const fold = given(workUnitsStateProjection, facts);
  return { version: versionOf(facts, stream), fold, computation: computeInitiative(fold, INIT, { config: DEFAULT_WORK_UNITS_CONFIG, now: T0 }), attempt };
}

const launch = specify({ decide: decideLaunch, state: (facts) => launchState(facts) });

describe('orchestrate run', () => {
  it('records the attempt and a handoff per launchable WU in one batch, at the initiative version read', () => {
    const decision = launch
      .given([created, defined('WU-1', 'Core API'), defined('WU-2', 'Docs', ['WU-1'])])
      .when(command)
      .decision()!;
    expect(decision.events.map((e) => [e.type, e.stream, e.data['wu_id'] ?? null])).toEqual([
      ['orchestration.attempt_started', stream, null],
      ['handoff.emitted', stream, 'WU-1'],
    ]);
    expect(decision.expected).toEqual({ [stream]: 1 });
    const handoff = decision.events[1]!.data;
    expect(handoff).toMatchObject({
      initiative: INIT,
      launch_attempt: 0,
      lane: 'Core API',
      handoff_format: 'xml',
      handoff_artifact_path: `.baton/artifacts/orchestration/${INIT}/attempt-0/handoffs/WU-1.xml`,
      branch: 'lane/core-api/wu-1',
      relaunch: false,
    });
    const outcome = decision.outcome;
    expect(outcome.attempt).toBe(0);
    if (outcome.attempt === null) return;
    // The digest recorded is the digest of the content the shell writes.
    expect(handoff['content_sha256']).toBe(command.digest(outcome.handoffs[0]!.content));
    expect(outcome.handoffs[0]!.content).toContain('WU-1');
  });

  it('a new initiative stream is claimed with no_stream', () => {
    const fold = launchState([created, defined('WU-1', 'Core API')]);
    expect(decideLaunch(command, { ...fold, version: 0 }).expected).toEqual({ [stream]: 'no_stream' });
  });

  it('nothing launchable appends nothing', () => {
    launch.given([created]).when(command).thenNothing();
    expect(launch.given([created]).when(command).decision()!.outcome).toEqual({ attempt: null });
  });

  it('a contaminated member blocks every launch: INTEGRITY_BLOCKED, naming it', () => {
    const state = launchState([created, defined('WU-1', 'Core API'), defined('WU-2', 'Docs')]);
    const c = state.computation;
    const contaminated = new Map(
      [...c.assessments].map(([id, a]) => [id, id === 'WU-1' ? { ...a, decision: { ...a.decision, state: 'contaminated' as const } } : a]),
    );
    const refusal = refusalOf(() => decideLaunch(command, { ...state, computation: { ...c, blocked_by_integrity: true, assessments: contaminated } }));
    expect(refusal).toEqual({ code: 'INTEGRITY_BLOCKED', message: 'launch refused until integrity is restored: contaminated WU-1 (recover first)' });
  });

  it('the attempt number comes from the state read', () => {
    const decision = decideLaunch(command, launchState([created, defined('WU-1', 'Core API')], 3));
    expect(decision.events[0]!.data['launch_attempt']).toBe(3);
    expect(decision.events[1]!.data['handoff_artifact_path']).toBe(`.baton/artifacts/orchestration/${INIT}/attempt-3/handoffs/WU-1.xml`);
  });
});
