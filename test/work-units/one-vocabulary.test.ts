import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WuListEnvelope } from '../../src/app/envelopes/listing.js';
import { removeTempDirs } from '../helpers/workspace.js';
import { WuWorkspace } from './helpers.js';

/**
 * One vocabulary in what a person reads: `wu list` has one state column and `--state` takes
 * LumenFlow's `ready` for `eligible`; a lifecycle line names the YAML status only when the WU has a
 * YAML file; `wu create` lists the fields given; the human tables have headers.
 */
afterAll(removeTempDirs);

const setup = WuWorkspace.shared(async (ws) => {
  await ws.wu(1, 'L1');
  await ws.wu(2, 'L2', ['--deps', 'WU-1']);
  await ws.ok(['initiative', 'create', 'INIT-2', '--title', 'Payments', '--slug', 'payments']);
  return {};
});

const lines = (text: string): string[] => text.trimEnd().split('\n');

describe('wu list', () => {
  it('takes ready for eligible in --state, and shows one state column under a header', async () => {
    const { ws } = await setup();
    const ids = async (state: string) => WuListEnvelope.parse((await ws.ok(['wu', 'list', '--state', state])).last);
    const ready = await ids('ready');
    expect(ready.wus.map((w) => w.wu_id)).toEqual(['WU-1']);
    expect(ready.filters.state).toBe('eligible');
    expect(await ids('eligible')).toEqual(ready);
    expect((await ws.fail(['wu', 'list', '--state', 'running'], 2)).message).toContain('(ready = eligible)');

    const table = lines((await ws.ok(['--human', 'wu', 'list'])).stdout);
    expect(table).toHaveLength(3);
    expect(table[0]).toMatch(/^WU {2,}STATE {2,}INITIATIVE {2,}LANE {2,}TITLE$/);
    expect(table[1]).toMatch(/^WU-1 {2,}eligible {2,}INIT-1 {2,}L1 {2,}T1$/);
    expect(table[2]).toMatch(/^WU-2 {2,}planned {2,}INIT-1 {2,}L2 {2,}T2$/);
    // The columns line up under their headers.
    expect(table[1]!.indexOf('eligible')).toBe(table[0]!.indexOf('STATE'));
    expect(table[2]!.indexOf('T2')).toBe(table[0]!.indexOf('TITLE'));
  });
});

describe('what a lifecycle action and wu create print', () => {
  it('names the YAML status only for a WU read from a YAML file', async () => {
    const { ws } = await setup();
    const S = await ws.startSession();
    const claimed = (await ws.ok(['--human', 'wu', 'claim', 'WU-1'], { session: S })).stdout.trimEnd();
    expect(claimed).toMatch(/^WU-1: claim recorded \(seq \d+\)$/);
    expect((await ws.ok(['wu', 'claim', 'WU-1'], { session: S })).last).toMatchObject({ yaml_status: 'in_progress', has_yaml: false });

    const folder = join(ws.dir, 'wus');
    mkdirSync(folder);
    writeFileSync(join(folder, 'WU-7.yaml'), 'id: WU-7\ntitle: Seven\ninitiative: INIT-1\nlane: L3\nstatus: ready\n');
    await ws.ok(['wu', 'import', folder]);
    const yaml = (await ws.ok(['--human', 'wu', 'claim', 'WU-7'], { session: S })).stdout.trimEnd();
    expect(yaml).toMatch(/^WU-7: claim recorded \(seq \d+\); yaml_status in_progress$/);
    expect((await ws.ok(['--human', 'wu', 'show', 'WU-7'])).stdout).toContain('yaml_status:  in_progress');
  });

  it('lists the fields given to a new WU, not the defaults', async () => {
    const { ws } = await setup();
    const first = (await ws.ok(['--human', 'wu', 'create', 'WU-9', '--initiative', 'INIT-1', '--lane', 'L1'])).stdout.trimEnd();
    expect(first).toBe('WU-9 defined: initiative, lane');
    const r = await ws.ok(['wu', 'create', 'WU-10', '--initiative', 'INIT-1', '--lane', 'L1', '--title', 'Ten', '--deps', 'WU-9']);
    expect(r.last).toMatchObject({ result: 'defined', changed_fields: ['initiative', 'title', 'lane', 'dependencies'] });
  });
});

describe('human tables have headers', () => {
  it('initiative list and show, sessions, mem roster', async () => {
    const { ws } = await setup();
    const initiatives = lines((await ws.ok(['--human', 'initiative', 'list'])).stdout);
    expect(initiatives[0]).toMatch(/^INITIATIVE {2,}WUS {2,}BY STATE {2,}TITLE$/);
    expect(initiatives[1]).toMatch(/^INIT-1 {2,}2 {2,}1 eligible, 1 planned {2,}One$/);
    expect(initiatives[2]).toMatch(/^INIT-2 {2,}0 {2,}- {2,}Payments$/);

    const shown = lines((await ws.ok(['--human', 'initiative', 'show', 'INIT-1'])).stdout);
    expect(shown[2]).toMatch(/^ {2}WU {2,}STATE {2,}INITIATIVE {2,}LANE {2,}TITLE$/);
    expect(shown[3]).toMatch(/^ {2}WU-1 {2,}eligible /);

    const S = await ws.startSession();
    const sessions = lines((await ws.ok(['--human', 'sessions'])).stdout);
    expect(sessions[0]).toMatch(/^SESSION {2,}NAME {2,}STATUS {2,}CREATED {2,}FINISHED {2,}GOAL$/);
    expect(sessions[1]).toMatch(new RegExp(`^${S} {2,}\\S+ {2,}active {2,}2026-04-17T10:00:00.000Z {2,}- {2,}\\(no goal recorded\\)$`));

    const roster = lines((await ws.ok(['--human', 'mem', 'roster'])).stdout);
    expect(roster[0]).toMatch(/^NAME {2,}SESSION {2,}IDENTITY {2,}ROLE {2,}WU {2,}LANE {2,}STATUS {2,}LAST HEARTBEAT$/);
    expect(roster[1]).toContain(S);
  });
});
