import { describe, expect, it } from 'vitest';
import { decideDeepDiveCompile, decideDeepDiveFileEdit, decideDeepDiveInit, type DeepDiveFileContent, type InitDeepDive } from '../../deciders/deep-dive.js';
import { flowProjection } from '../../projections/flow/index.js';
import { given, specify, type Fact } from './given.js';

/** The deep dive's rules (phase-gates.md §8), decided without a store or the file. */
const ID = 'deepdive_aaaaaaaaaaaaaaaaaaaaaaaa';
const stream = `deep_dive/${ID}`;
const fold = (facts: readonly Fact[]) => given(flowProjection, facts);
const init = (over: Partial<InitDeepDive> = {}): InitDeepDive => ({
  deepDiveId: ID,
  scope: 'full',
  focusPath: null,
  agentCount: 5,
  refresh: false,
  fileExists: false,
  backupPath: null,
  ...over,
});
const initialized: Fact = {
  type: 'deep_dive.initialized',
  stream,
  data: { deep_dive_id: ID, scope: 'full', focus_path: null, agent_count: 5, refresh: false, backup_path: null },
};
const inits = specify({ decide: decideDeepDiveInit, state: fold });
const compiles = specify({ decide: decideDeepDiveCompile, state: fold });

describe('deep-dive init', () => {
  it('starts a deep dive on a new stream', () => {
    const decision = inits
      .given([])
      .when(init())
      .then([{ type: 'deep_dive.initialized', stream, data: initialized.data }]);
    expect(decision.expected).toEqual({ [stream]: 'no_stream' });
  });

  it('one that exists, in the log or only as a file, is DEEP_DIVE_EXISTS unless refreshed', () => {
    inits
      .given([initialized])
      .when(init({ deepDiveId: 'deepdive_bbbbbbbbbbbbbbbbbbbbbbbb' }))
      .thenRefuses('DEEP_DIVE_EXISTS');
    inits
      .given([])
      .when(init({ fileExists: true }))
      .thenRefuses(
        'DEEP_DIVE_EXISTS',
        'A deep dive already exists (phase: unknown, generated: unknown). Use --refresh to start over; the current file is backed up first.',
      );
    const refreshed = inits
      .given([initialized])
      .when(init({ deepDiveId: 'deepdive_bbbbbbbbbbbbbbbbbbbbbbbb', refresh: true, fileExists: true, backupPath: 'kept.bak' }))
      .decision()!;
    expect(refreshed.events[0]!.data).toMatchObject({ refresh: true, backup_path: 'kept.bak' });
  });
});

describe('deep-dive compile', () => {
  it('without a deep dive is NO_DEEP_DIVE', () => {
    compiles.given([]).when({ sections: {}, markComplete: false }).thenRefuses('NO_DEEP_DIVE', 'No deep dive initialized. Run baton deep-dive init first.');
  });

  it('merges the given sections at the version read', () => {
    const decision = compiles
      .given([initialized])
      .when({ sections: { overview: 'o' }, agentsSpawned: 2, markComplete: false })
      .then([{ type: 'deep_dive.compiled', stream, data: { deep_dive_id: ID, sections: { overview: 'o' }, agents_spawned: 2, mark_complete: false } }]);
    expect(decision.expected).toEqual({ [stream]: 1 });
  });

  it('more agents completed than spawned (after merging) is refused, naming the field', () => {
    compiles
      .given([initialized])
      .when({ sections: {}, agentsCompleted: 1, markComplete: false })
      .thenRefuses('INVALID_INPUT', 'agents_completed must not exceed agents_spawned (after merging)');
  });
});

describe('an outside edit of the deep-dive file', () => {
  const file = (over: Partial<DeepDiveFileContent> = {}): { file: DeepDiveFileContent } => ({
    file: {
      scope: 'full',
      focus_path: null,
      phase: 'initializing',
      agent_count: 5,
      agents_spawned: 0,
      agents_completed: 0,
      sections: {},
      extra_sections: [],
      ...over,
    },
  });
  const edits = specify({ decide: decideDeepDiveFileEdit, state: fold });

  it('a changed section is a compile of that section alone', () => {
    edits
      .given([initialized])
      .when(file({ sections: { overview: 'new' } }))
      .then([{ type: 'deep_dive.compiled', stream, data: { deep_dive_id: ID, sections: { overview: 'new' }, mark_complete: false } }]);
  });

  it('a changed scope, or nothing a compile may change, appends nothing and names the key', () => {
    expect(
      edits
        .given([initialized])
        .when(file({ scope: 'focused' }))
        .decision(),
    ).toMatchObject({ events: [], outcome: { key: 'scope' } });
    expect(edits.given([initialized]).when(file()).decision()).toMatchObject({ events: [], outcome: { key: '(body)' } });
    expect(edits.given([initialized]).when({ key: '(frontmatter)', rule: 'unreadable' }).decision()).toMatchObject({
      events: [],
      outcome: { key: '(frontmatter)' },
    });
  });

  it('with no deep dive recorded there is nothing to decide', () => {
    edits.given([]).when(file()).thenNothing();
  });
});
