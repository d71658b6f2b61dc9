import { describe, expect, it } from 'vitest';
import { decideWuImport, ImportResult, type ParsedWuFile } from '../../deciders/wu-yaml.js';
import { workUnitsStateProjection } from '../../projections/work-units/fold.js';
import { given, specify, type Fact } from './given.js';

/** `wu import` (work-units.md §4.5) decided on the fold, without a store or files: what the log already holds is not appended again. */
const HASH_A = 'a'.repeat(64);
const HASH_B = 'b'.repeat(64);
const file = (fields: Record<string, unknown>, content_hash = HASH_A, wu_id: string | null = 'WU-1'): ParsedWuFile => ({
  path: `/repo/wu/${wu_id ?? 'notes'}.yaml`,
  display: `wu/${wu_id ?? 'notes'}.yaml`,
  wu_id,
  fields,
  content_hash,
});
const fields = { title: 'Parser', lane: 'Core', status: 'ready' };
const observed: Fact = {
  type: 'observation.wu_yaml',
  stream: 'wu/WU-1',
  data: { wu_id: 'WU-1', path: 'wu/WU-1.yaml', content_hash: HASH_A, fields, removed_fields: [] },
};

const wuImport = specify({ decide: decideWuImport, state: (facts) => given(workUnitsStateProjection, facts) });

describe('wu import', () => {
  it('a WU the log has not seen: one observation.wu_yaml with every read field, reported as defined', () => {
    const decision = wuImport
      .given([])
      .when({ files: [file(fields)] })
      .then([observed]);
    expect(decision.outcome.files).toEqual([
      { path: 'wu/WU-1.yaml', wu_id: 'WU-1', result: ImportResult.defined, changed_fields: ['title', 'lane', 'status'] },
    ]);
  });

  it('the same fields again append nothing: what is already imported is not appended twice', () => {
    wuImport
      .given([observed])
      .when({ files: [file(fields)] })
      .thenNothing();
    const decision = wuImport
      .given([observed])
      .when({ files: [file(fields, HASH_B)] })
      .decision()!;
    expect(decision.outcome.files).toEqual([{ path: 'wu/WU-1.yaml', wu_id: 'WU-1', result: ImportResult.unchanged, changed_fields: [] }]);
  });

  it('a changed file appends only the fields that changed, and names the ones it no longer has', () => {
    const decision = wuImport
      .given([observed])
      .when({ files: [file({ title: 'Parser v2', lane: 'Core' }, HASH_B)] })
      .then([
        {
          type: 'observation.wu_yaml',
          stream: 'wu/WU-1',
          data: { wu_id: 'WU-1', path: 'wu/WU-1.yaml', content_hash: HASH_B, fields: { title: 'Parser v2' }, removed_fields: ['status'] },
        },
      ]);
    expect(decision.outcome.files[0]).toMatchObject({ result: ImportResult.changed, changed_fields: ['title', 'status'] });
  });

  it('a YAML file that is no WU is skipped and reported; nothing is appended for it', () => {
    const decision = wuImport
      .given([])
      .when({ files: [file({}, HASH_A, null)] })
      .decision()!;
    expect(decision.events).toEqual([]);
    expect(decision.outcome.files).toEqual([{ path: 'wu/notes.yaml', wu_id: null, result: ImportResult.skipped, changed_fields: [] }]);
  });
});
