import { describe, expect, it } from 'vitest';
import { decideLumenflowImport, type ImportLumenflow, type LumenflowSources } from '../../deciders/lumenflow-import.js';
import type { ProposedEvent } from '../../deciders/decision.js';
import type { ParsedWuFile } from '../../deciders/wu-yaml.js';
import { workUnitsStateProjection } from '../../projections/work-units/fold.js';
import { given, specify, type Fact } from './given.js';

/**
 * `import lumenflow` decided on the fold, without a repository, a store or the binary: the
 * sources as the shell read them, compared with what the log last recorded; only what is new or
 * changed is appended, history first, in one batch bound to the log position read.
 */
const HASH = (c: string): string => c.repeat(64);
const wuFields = { initiative: 'INIT-1', title: 'Parser', lane: 'Core', status: 'in_progress' };
const wuFile: ParsedWuFile = { path: '/repo/wu/WU-1.yaml', display: 'wu/WU-1.yaml', wu_id: 'WU-1', fields: wuFields, content_hash: HASH('2') };

function sources(over: Partial<LumenflowSources> = {}): LumenflowSources {
  return {
    repo: '/repo',
    directories: { wu_dir: 'wu', initiatives_dir: 'initiatives', stamps_dir: '.lumenflow/stamps', state_dir: '.lumenflow/state' },
    settings: { path: 'workspace.yaml', from_file: true, lanes: [{ name: 'Core', wip_limit: 1 }], max_active_workers: 2 },
    failures: [],
    initiatives: [
      { display: 'initiatives/INIT-1.yaml', named: 'INIT-1', content_hash: HASH('1'), parsed: { id: 'INIT-1', fields: { title: 'Checkout' }, problems: [] } },
    ],
    history: {
      path: '.lumenflow/state/wu-events.jsonl',
      lines: [{ line: 1, text: JSON.stringify({ type: 'claim', wuId: 'WU-1', timestamp: '2026-05-01T09:00:00.000Z', lane: 'Core' }), key: HASH('c') }],
    },
    wus: {
      same: [],
      parsed: [{ path: '/repo/wu/WU-1.yaml', display: 'wu/WU-1.yaml', wu_id: 'WU-1', fields: wuFields, content_hash: HASH('2') }],
      failures: [],
    },
    stamps: [],
    ...over,
  };
}

const command = (s: LumenflowSources, options: Partial<ImportLumenflow> = {}): ImportLumenflow => ({
  sources: s,
  dryRun: false,
  skipInvalid: false,
  digest: (text) => `digest-${text.length}`,
  ...options,
});

const lumenflow = specify({ decide: decideLumenflowImport, state: (facts) => ({ fold: given(workUnitsStateProjection, facts), seq: facts.length }) });

/** The events a first import of `sources()` proposes, as the facts of a log that holds them. */
function firstImport(): ProposedEvent[] {
  return lumenflow.given([]).when(command(sources())).decision()!.events;
}

describe('import lumenflow', () => {
  it('a first import: settings, initiatives, the history, then the WU YAML, in one batch bound to the log position', () => {
    const decision = lumenflow.given([]).when(command(sources())).decision()!;
    expect(decision.events.map((e) => [e.type, e.stream])).toEqual([
      ['settings.recorded', 'settings/lumenflow'],
      ['observation.initiative_yaml', 'initiative/INIT-1'],
      ['observation.lumenflow_wu_event', 'wu/WU-1'],
      ['observation.wu_yaml', 'wu/WU-1'],
    ]);
    expect(decision.events[2]!.data).toEqual({
      wu_id: 'WU-1',
      kind: 'claim',
      timestamp: '2026-05-01T09:00:00.000Z',
      line: 1,
      line_key: HASH('c'),
      lane: 'Core',
    });
    expect(decision.idempotencyKey).toBe(`lumenflow-import-digest-${`0\n${JSON.stringify(decision.events)}`.length}`);
    expect(decision.outcome).toMatchObject({
      settings: { lanes: 1, max_active_workers: 2, recorded: true },
      initiatives: { defined: 1, changed: 0, unchanged: 0 },
      wus: { defined: 1, changed: 0, unchanged: 0 },
      wu_events: { lines: 1, imported: 1, already_imported: 0, malformed: 0 },
      findings: [],
    });
  });

  it('a second run over a log that holds the first appends nothing: nothing already imported is appended twice', () => {
    const facts: Fact[] = firstImport();
    lumenflow.given(facts).when(command(sources())).thenNothing();
    const again = lumenflow.given(facts).when(command(sources())).decision()!;
    expect(again.idempotencyKey).toBeUndefined();
    expect(again.outcome).toMatchObject({
      settings: { recorded: false },
      initiatives: { defined: 0, changed: 0, unchanged: 1 },
      wus: { defined: 0, changed: 0, unchanged: 1 },
      wu_events: { lines: 1, imported: 0, already_imported: 1 },
    });
  });

  it('a changed file appends only what changed; a file whose bytes the log holds is unchanged without being parsed', () => {
    const facts: Fact[] = firstImport();
    const changed = sources({
      initiatives: [{ display: 'initiatives/INIT-1.yaml', named: 'INIT-1', content_hash: HASH('1'), parsed: null }],
      wus: {
        same: [],
        parsed: [{ path: '/repo/wu/WU-1.yaml', display: 'wu/WU-1.yaml', wu_id: 'WU-1', fields: { ...wuFields, title: 'Parser v2' }, content_hash: HASH('3') }],
        failures: [],
      },
    });
    lumenflow
      .given(facts)
      .when(command(changed))
      .then([
        {
          type: 'observation.wu_yaml',
          stream: 'wu/WU-1',
          data: { wu_id: 'WU-1', path: 'wu/WU-1.yaml', content_hash: HASH('3'), fields: { title: 'Parser v2' }, removed_fields: [] },
        },
      ]);
  });

  it('a malformed history line is a finding and appends nothing; a stamp recorded present and now gone is recorded gone', () => {
    const stamp: Fact = {
      type: 'observation.stamp_file',
      stream: 'wu/WU-1',
      data: { wu_id: 'WU-1', path: '.lumenflow/stamps/WU-1.done', present: true, valid: true, content_hash: HASH('d') },
    };
    const facts: Fact[] = [...firstImport(), stamp];
    const history = { path: '.lumenflow/state/wu-events.jsonl', lines: [...sources().history.lines, { line: 2, text: '{not json', key: HASH('e') }] };
    const decision = lumenflow
      .given(facts)
      .when(command(sources({ history })))
      .then([
        {
          type: 'observation.stamp_file',
          stream: 'wu/WU-1',
          data: { wu_id: 'WU-1', path: '.lumenflow/stamps/WU-1.done', present: false, valid: false, content_hash: null },
        },
      ]);
    expect(decision.outcome.findings).toEqual([
      {
        severity: 'warning',
        code: 'MALFORMED_LINE',
        path: '.lumenflow/state/wu-events.jsonl',
        line: 2,
        wu_id: null,
        message: '.lumenflow/state/wu-events.jsonl line 2: not valid JSON; skipped',
      },
    ]);
  });

  it('an invalid file refuses the whole import; with skipInvalid the rest is imported and the file counted', () => {
    const bad = sources({ wus: { ...sources().wus, failures: ['wu/WU-9.yaml: title: required'] } });
    lumenflow.given([]).when(command(bad)).thenRefuses('INVALID_INPUT', 'import lumenflow failed; nothing was imported:\nwu/WU-9.yaml: title: required');
    const skipped = lumenflow
      .given([])
      .when(command(bad, { skipInvalid: true }))
      .decision()!;
    expect(skipped.events).toHaveLength(4);
    expect(skipped.outcome.skipped_invalid).toBe(1);
    expect(skipped.outcome.findings).toContainEqual(
      expect.objectContaining({ severity: 'error', code: 'INVALID_FILE', path: 'wu/WU-9.yaml', message: 'wu/WU-9.yaml: title: required (skipped)' }),
    );
  });

  it('a dry run decides the same and appends nothing', () => {
    const dry = lumenflow
      .given([])
      .when(command(sources(), { dryRun: true }))
      .decision()!;
    expect(dry.events).toEqual([]);
    expect(dry.outcome).toMatchObject({ dry_run: true, wu_events: { imported: 1 }, wus: { defined: 1 }, settings: { recorded: true } });
  });

  it('a WU id in two files is a failure naming both, the unchanged file first', () => {
    const twice = sources({
      wus: { same: [{ display: 'wu/WU-1.yaml', wu_id: 'WU-1' }], parsed: [{ ...wuFile, display: 'wu/copy.yaml' }], failures: [] },
    });
    lumenflow
      .given([])
      .when(command(twice))
      .thenRefuses('INVALID_INPUT', 'import lumenflow failed; nothing was imported:\nwu/copy.yaml: id: WU-1 is also defined by wu/WU-1.yaml');
  });
});
