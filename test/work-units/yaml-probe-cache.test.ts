import { existsSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { decoded } from '../helpers/decoded.js';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyWorkUnits, initWorkUnits, type WorkUnitsState } from '../../projections/work-units/state.js';
import { probeWuYaml } from '../../src/work-units/yaml-probe.js';
import { makeTempDir, removeTempDirs } from '../helpers/workspace.js';
import { WuWorkspace } from './helpers.js';

/**
 * the WU YAML probe (`probes.wu_yaml_paths`) keeps what each file said in
 * `.baton/cache/wu-yaml-probe.json` (by path, size, mtime, ctime, inode; then by content hash),
 * parses only files whose content changed, and says a bad file's problems once, not on every status.
 */
afterAll(removeTempDirs);

const VALID = (title: string): string => `id: WU-1\ntitle: ${title}\ninitiative: INIT-1\nlane: L1\nstatus: ready\n`;

describe('the YAML probe cache (library)', () => {
  it('parses a file only when its content is new: first run all, then none, then the edited one', async () => {
    const dir = makeTempDir('baton-yaml-cache-');
    const cache = join(dir, '.baton', 'cache');
    mkdirSync(join(dir, 'wus'), { recursive: true });
    writeFileSync(join(dir, 'wus', 'WU-1.yaml'), VALID('One'));
    writeFileSync(join(dir, 'wus', 'WU-2.yaml'), 'id: WU-2\ntitle: Two\nstatus: ready\n');
    writeFileSync(join(dir, 'wus', 'INIT-1.yaml'), 'id: INIT-1\ntitle: An initiative file\n');
    const state = initWorkUnits();

    const first = await probeWuYaml(dir, cache, state, ['wus']);
    expect(first.parsed).toBe(3);
    expect(first.warnings).toEqual(['wus/WU-2.yaml: lane: required']);
    expect(first.events.map((e) => e.stream)).toEqual(['wu/WU-1']);
    expect(first.rows.map((r) => [r.path, r.result])).toEqual([
      ['wus/INIT-1.yaml', 'skipped'],
      ['wus/WU-1.yaml', 'defined'],
    ]);
    expect(existsSync(join(cache, 'wu-yaml-probe.json'))).toBe(true);

    // Unchanged: nothing parsed, nothing said again, the same observation planned (the log decides).
    const second = await probeWuYaml(dir, cache, state, ['wus']);
    expect(second.parsed).toBe(0);
    expect(second.warnings).toEqual([]);
    expect(second.failures).toEqual(['wus/WU-2.yaml: lane: required']);
    expect(second.events).toEqual(first.events);

    // Touched but the same bytes: hashed, not parsed.
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(dir, 'wus', 'WU-1.yaml'), later, later);
    expect((await probeWuYaml(dir, cache, state, ['wus'])).parsed).toBe(0);

    // Edited: only that file is parsed; a bad file edited and still bad is said again, once.
    writeFileSync(join(dir, 'wus', 'WU-1.yaml'), VALID('Uno'));
    writeFileSync(join(dir, 'wus', 'WU-2.yaml'), 'id: WU-2\ntitle: Two, still no lane\nstatus: ready\n');
    const edited = await probeWuYaml(dir, cache, state, ['wus']);
    expect(edited.parsed).toBe(2);
    expect(edited.warnings).toEqual(['wus/WU-2.yaml: lane: required']);
    expect(edited.events[0]!.data['fields']).toMatchObject({ title: 'Uno' });
    expect((await probeWuYaml(dir, cache, state, ['wus'])).warnings).toEqual([]);

    // Once the log holds what a file says, the file agrees: its fields are not compared again while
    // neither the file nor the WU's last YAML observation changes.
    const observed: WorkUnitsState = initWorkUnits();
    edited.events.forEach((e, i) =>
      applyWorkUnits(
        observed,
        decoded({
          v: 1,
          seq: i + 1,
          id: `e${i}`,
          type: e.type,
          stream: e.stream,
          at: '2026-04-17T10:00:00.000Z',
          actor: 'system',
          data: e.data,
          prev: '',
          hash: '',
        }),
      ),
    );
    const agreeing = await probeWuYaml(dir, cache, observed, ['wus']);
    expect(agreeing).toMatchObject({ events: [], parsed: 0, compared: 1 });
    const agreed = await probeWuYaml(dir, cache, observed, ['wus']);
    expect(agreed).toMatchObject({ events: [], parsed: 0, compared: 0 });
    expect(agreed.rows.map((r) => [r.path, r.result])).toEqual([
      ['wus/INIT-1.yaml', 'skipped'],
      ['wus/WU-1.yaml', 'unchanged'],
    ]);
    // …and compares again as soon as the log's YAML view of the WU moves.
    applyWorkUnits(observed, {
      v: 1,
      seq: 9,
      id: 'e9',
      type: 'observation.wu_yaml',
      stream: 'wu/WU-1',
      at: '2026-04-17T10:00:00.000Z',
      actor: 'system',
      data: { wu_id: 'WU-1', path: 'elsewhere.yaml', content_hash: 'f'.repeat(64), fields: { title: 'Elsewhere' }, removed_fields: [] },
      prev: '',
      hash: '',
    });
    const moved = await probeWuYaml(dir, cache, observed, ['wus']);
    expect(moved).toMatchObject({ parsed: 0, compared: 1 });
    expect(moved.events.map((e) => e.data['fields'])).toEqual([{ title: 'Uno' }]);

    // A cache that is not one is rebuilt (everything parsed again), never trusted.
    writeFileSync(join(cache, 'wu-yaml-probe.json'), '{"v":1,"parser":1,"entries":');
    rmSync(join(cache, 'wu-yaml-fields.json'));
    expect((await probeWuYaml(dir, cache, state, ['wus'])).parsed).toBe(3);
  });

  it('says a missing folder or an id in two files once, while it lasts', async () => {
    const dir = makeTempDir('baton-yaml-cache-');
    const cache = join(dir, '.baton', 'cache');
    mkdirSync(join(dir, 'a'));
    mkdirSync(join(dir, 'b'));
    writeFileSync(join(dir, 'a', 'WU-1.yaml'), VALID('One'));
    writeFileSync(join(dir, 'b', 'WU-1.yaml'), VALID('Other'));
    const state = initWorkUnits();
    const first = await probeWuYaml(dir, cache, state, ['a', 'b', 'missing']);
    expect([...first.warnings].sort()).toEqual(['b/WU-1.yaml: id: WU-1 is also defined by a/WU-1.yaml', 'missing: no such file or folder']);
    expect((await probeWuYaml(dir, cache, state, ['a', 'b', 'missing'])).warnings).toEqual([]);
    rmSync(join(dir, 'b'), { recursive: true });
    mkdirSync(join(dir, 'missing'));
    expect((await probeWuYaml(dir, cache, state, ['a', 'b', 'missing'])).warnings).toEqual(['b: no such file or folder']);
  });
});

describe('the YAML probe on orchestrate status (binary)', () => {
  it('warns about a bad file on the first status only, records an edit as the changed fields, and survives a deleted cache', async () => {
    const ws = await WuWorkspace.create({ config: 'probes:\n  wu_yaml_paths: [wus]\n' });
    mkdirSync(join(ws.dir, 'wus'));
    writeFileSync(join(ws.dir, 'wus', 'WU-1.yaml'), VALID('One'));
    writeFileSync(join(ws.dir, 'wus', 'WU-2.yaml'), 'id: WU-2\ntitle: Two\ninitiative: INIT-1\nstatus: ready\n');

    const first = await ws.ok(['orchestrate', 'status', 'INIT-1']);
    expect(first.stderr.match(/YAML probe skipped/g)).toHaveLength(1);
    expect(first.stderr).toContain('wus/WU-2.yaml: lane: required');
    const head = ws.headSeq();

    const second = await ws.ok(['orchestrate', 'status', 'INIT-1']);
    expect(second.stderr).not.toContain('YAML probe');
    expect(ws.headSeq()).toBe(head);

    writeFileSync(join(ws.dir, 'wus', 'WU-1.yaml'), VALID('Uno'));
    const third = await ws.ok(['orchestrate', 'status', 'INIT-1']);
    expect(third.stderr).not.toContain('YAML probe');
    const appended = ws.events().slice(head);
    expect(appended.map((e) => e.type)).toEqual(['observation.wu_yaml']);
    expect(appended[0]!.data).toMatchObject({ wu_id: 'WU-1', fields: { title: 'Uno' }, removed_fields: [] });

    // The cache is only a cache: without it the bad file is said once more, nothing is appended.
    rmSync(join(ws.dir, '.baton', 'cache'), { recursive: true, force: true });
    const rebuilt = await ws.ok(['orchestrate', 'status', 'INIT-1']);
    expect(rebuilt.stderr.match(/YAML probe skipped/g)).toHaveLength(1);
    expect(ws.headSeq()).toBe(head + 1);
  });
});
