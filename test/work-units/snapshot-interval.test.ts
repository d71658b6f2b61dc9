import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCatalog, type NewEvent } from '../../events/index.js';
import { workUnitsStateProjection } from '../../projections/work-units/fold.js';
import { MemoryEventStore } from '../../src/store/memory-store.js';
import { runProjection } from '../../src/store/projection-runner.js';
import { loadSnapshot, SnapshotLoadKind } from '../../src/store/snapshots.js';
import { makeTempDir, removeTempDirs } from '../helpers/workspace.js';

/**
 * The work-unit fold writes its snapshot once a run has folded five events per WU past it (at least
 * the runner's usual 1,000): a status on a busy log of a large repository does not rewrite a large
 * snapshot for a handful of new events, and never folds more after its snapshot than a write costs.
 */
const NOW = '2026-04-17T12:00:00.000Z';
const catalog = createCatalog();
afterAll(removeTempDirs);

const defined = (n: number): NewEvent => ({
  type: 'wu.defined',
  stream: `wu/WU-${n}`,
  data: { wu_id: `WU-${n}`, initiative: 'INIT-1', lane: 'L1', title: `part ${n}`, dependencies: [] },
});
const note = (i: number): NewEvent => ({ type: 'note.recorded', stream: 'note/filler', data: { text: `filler ${i}` } });

describe('the work-unit snapshot interval', () => {
  it('grows with the WUs the fold holds: 400 WUs write after 2,000 events, not after 1,000', async () => {
    const cacheDir = join(makeTempDir('baton-wu-interval-'), 'cache');
    const store = new MemoryEventStore({ catalog });
    const run = () => runProjection(store, workUnitsStateProjection, { catalog, cacheDir, now: NOW });

    // 400 WUs and 700 notes: 1,100 events folded, 2,000 needed.
    await store.append(Array.from({ length: 400 }, (_, i) => defined(i + 1)));
    await store.append(Array.from({ length: 700 }, (_, i) => note(i)));
    expect(await run()).toMatchObject({ folded: 1100, snapshot_written: false });
    expect(loadSnapshot(cacheDir, workUnitsStateProjection.name, workUnitsStateProjection.version).kind).toBe(SnapshotLoadKind.MISSING);

    await store.append(Array.from({ length: 900 }, (_, i) => note(700 + i)));
    expect(await run()).toMatchObject({ folded: 2000, snapshot_written: true, seq: 2000 });

    // From the snapshot: 1,999 more are not enough, 2,000 are.
    await store.append(Array.from({ length: 1999 }, (_, i) => note(2000 + i)));
    expect(await run()).toMatchObject({ from_snapshot: true, folded: 1999, snapshot_written: false });
    await store.append([note(9999)]);
    expect(await run()).toMatchObject({ from_snapshot: true, folded: 2000, snapshot_written: true, seq: 4000 });
  });

  it('keeps the runner’s 1,000 for a small repository', async () => {
    const cacheDir = join(makeTempDir('baton-wu-interval-'), 'cache');
    const store = new MemoryEventStore({ catalog });
    await store.append(Array.from({ length: 10 }, (_, i) => defined(i + 1)));
    await store.append(Array.from({ length: 989 }, (_, i) => note(i)));
    expect(await runProjection(store, workUnitsStateProjection, { catalog, cacheDir, now: NOW })).toMatchObject({ folded: 999, snapshot_written: false });
    await store.append([note(5000)]);
    expect(await runProjection(store, workUnitsStateProjection, { catalog, cacheDir, now: NOW })).toMatchObject({ folded: 1000, snapshot_written: true });
  });
});
