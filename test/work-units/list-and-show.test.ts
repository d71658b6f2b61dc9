import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InitiativeListEnvelope, InitiativeShowEnvelope, WuListEnvelope, WuShowEnvelope } from '../../src/app/envelopes/listing.js';
import { removeTempDirs } from '../helpers/workspace.js';
import { WuWorkspace } from './helpers.js';

/**
 * `wu list [--initiative] [--state] [--lane]`, `wu show`, `initiative list`,
 * `initiative show`, through the built binary: JSON envelopes, one line per item with --human, bad
 * filters exit 2 naming the flag, unknown ids UNKNOWN_ID; nothing is appended by any of them.
 *
 * One workspace: INIT-1 (lanes L1…L6) with WU-1 (L1, claimed + checkpointed), WU-2 (L2, deps WU-1,
 * so planned), WU-3 (L1, stamped done), WU-10 (L3, eligible); INIT-2 (slug `payments`) with WU-4
 * (L1, initiative given by its slug); INIT-3 with no WUs.
 */
afterAll(removeTempDirs);

let ws: WuWorkspace;
let headBefore: number;

beforeAll(async () => {
  ws = await WuWorkspace.create();
  await ws.ok(['initiative', 'create', 'INIT-2', '--title', 'Payments', '--slug', 'payments']);
  await ws.ok(['initiative', 'create', 'INIT-3', '--title', 'Empty']);
  await ws.wu(1, 'L1', ['--code-paths', 'src/one/**']);
  await ws.wu(2, 'L2', ['--deps', 'WU-1']);
  await ws.wu(3, 'L1');
  await ws.wu(10, 'L3');
  await ws.ok(['wu', 'create', 'WU-4', '--initiative', 'payments', '--lane', 'L1', '--title', 'Pay']);
  await ws.ok(['wu', 'claim', 'WU-1']);
  await ws.ok(['wu', 'checkpoint', 'WU-1', '--note', 'parser done', '--progress', '50%']);
  await ws.ok(['wu', 'claim', 'WU-3', '--force', '--reason', 'scenario: two WUs of lane L1 in flight']);
  await ws.ok(['wu', 'done', 'WU-3']);
  headBefore = ws.headSeq();
}, 180_000);

describe('wu list', () => {
  it('lists every defined WU in numeric order with its orchestration state', async () => {
    const e = WuListEnvelope.parse((await ws.ok(['wu', 'list'])).last);
    expect(e.wus.map((w) => [w.wu_id, w.orchestration_state, w.yaml_status])).toEqual([
      ['WU-1', 'active', 'in_progress'],
      ['WU-2', 'planned', 'ready'],
      ['WU-3', 'done', 'done'],
      ['WU-4', 'eligible', 'ready'],
      ['WU-10', 'eligible', 'ready'],
    ]);
    expect(e.count).toBe(5);
    expect(e.filters).toEqual({ initiative: null, state: null, lane: null });
    expect(e.wus[1]).toMatchObject({ initiative: 'INIT-1', lane: 'L2', title: 'T2', dependencies: ['WU-1'], wu_type: 'feature', priority: 'P2' });
  });

  it('filters by initiative (id or slug), state and lane, and combines them', async () => {
    const ids = async (args: string[]) => WuListEnvelope.parse((await ws.ok(['wu', 'list', ...args])).last).wus.map((w) => w.wu_id);
    expect(await ids(['--initiative', 'INIT-1'])).toEqual(['WU-1', 'WU-2', 'WU-3', 'WU-10']);
    expect(await ids(['--initiative', 'INIT-2'])).toEqual(['WU-4']);
    expect(await ids(['--initiative', 'payments'])).toEqual(['WU-4']);
    expect(await ids(['--initiative', 'INIT-3'])).toEqual([]);
    expect(await ids(['--state', 'eligible'])).toEqual(['WU-4', 'WU-10']);
    expect(await ids(['--lane', 'L1'])).toEqual(['WU-1', 'WU-3', 'WU-4']);
    expect(await ids(['--initiative', 'INIT-1', '--lane', 'L1', '--state', 'done'])).toEqual(['WU-3']);
    expect(await ids(['--lane', 'L9'])).toEqual([]);
    const e = WuListEnvelope.parse((await ws.ok(['wu', 'list', '--initiative', 'payments'])).last);
    expect(e.filters.initiative).toBe('INIT-2');
  });

  it('prints a header and one line per WU with --human', async () => {
    const r = await ws.ok(['--human', 'wu', 'list', '--initiative', 'INIT-1']);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/^WU +STATE +INITIATIVE +LANE +TITLE$/);
    expect(lines[1]).toMatch(/^WU-1 +active +INIT-1 +L1 +T1$/);
    expect(lines[4]).toMatch(/^WU-10 +eligible +INIT-1 +L3 +T10$/);
  });

  it('refuses bad filters with exit 2 naming the flag, and an unknown initiative with UNKNOWN_ID', async () => {
    expect((await ws.fail(['wu', 'list', '--state', 'running'], 2)).message).toContain('--state');
    expect((await ws.fail(['wu', 'list', '--state', 'running'], 2)).code).toBe('INVALID_INPUT');
    expect((await ws.fail(['wu', 'list', '--initiative', 'Init 1!'], 2)).message).toContain('--initiative');
    expect((await ws.fail(['wu', 'list', '--lane', 'a,b'], 2)).message).toContain('--lane');
    expect((await ws.fail(['wu', 'list', '--lane', '  '], 2)).message).toContain('--lane');
    const unknown = await ws.fail(['wu', 'list', '--initiative', 'INIT-99'], 2);
    expect(unknown).toMatchObject({ code: 'UNKNOWN_ID', message: 'Initiative INIT-99 not found' });
  });
});

describe('wu show', () => {
  it('shows the definition, the state with its rule and reason, the claim and the last checkpoint', async () => {
    const e = WuShowEnvelope.parse((await ws.ok(['wu', 'show', 'WU-1'])).last);
    expect(e).toMatchObject({
      type: 'wu_detail',
      wu_id: 'WU-1',
      orchestration_state: 'active',
      rule: 9,
      reason: 'Work in flight.',
      yaml_status: 'in_progress',
      code_paths: ['src/one/**'],
      claim: { mode: 'worktree', worktree_path: 'worktrees/l1-wu-1', branch: 'lane/l1/wu-1', session_id: null },
      stamped: null,
    });
    expect(e.last_checkpoint?.summary).toContain('parser done');
    const done = WuShowEnvelope.parse((await ws.ok(['wu', 'show', 'WU-3'])).last);
    expect(done).toMatchObject({
      orchestration_state: 'done',
      rule: 1,
      reason: null,
      stamped: { completed_date: '2026-04-17', stamp_path: '.baton/stamps/WU-3.done' },
    });
    const planned = WuShowEnvelope.parse((await ws.ok(['wu', 'show', 'WU-2'])).last);
    expect(planned).toMatchObject({ orchestration_state: 'planned', reason: 'Waiting for WU-1 to complete.', claim: null, last_checkpoint: null });
  });

  it('prints a short human summary', async () => {
    const r = await ws.ok(['--human', 'wu', 'show', 'WU-1']);
    expect(r.stdout).toMatch(/^WU-1 {2}T1\n/);
    expect(r.stdout).toContain('state:        active (rule 9) — Work in flight.');
  });

  it('refuses a malformed id (exit 2 naming WU) and an unknown one (UNKNOWN_ID)', async () => {
    expect(await ws.fail(['wu', 'show', 'wu-1'], 2)).toMatchObject({ code: 'INVALID_INPUT' });
    expect((await ws.fail(['wu', 'show', 'wu-1'], 2)).message).toContain('WU');
    expect(await ws.fail(['wu', 'show', 'WU-77'], 2)).toMatchObject({ code: 'UNKNOWN_ID', message: 'WU WU-77 not found' });
  });
});

describe('initiative list and show', () => {
  it('lists every initiative with its WUs counted by state', async () => {
    const e = InitiativeListEnvelope.parse((await ws.ok(['initiative', 'list'])).last);
    expect(e.count).toBe(3);
    expect(e.initiatives).toEqual([
      {
        initiative: 'INIT-1',
        title: 'One',
        slug: null,
        lanes: ['L1', 'L2', 'L3', 'L4', 'L5', 'L6'],
        wus: 4,
        by_state: { done: 1, active: 1, eligible: 1, planned: 1 },
      },
      { initiative: 'INIT-2', title: 'Payments', slug: 'payments', lanes: [], wus: 1, by_state: { eligible: 1 } },
      { initiative: 'INIT-3', title: 'Empty', slug: null, lanes: [], wus: 0, by_state: {} },
    ]);
    const human = (await ws.ok(['--human', 'initiative', 'list'])).stdout.trimEnd().split('\n');
    expect(human).toHaveLength(4);
    expect(human[0]).toMatch(/^INITIATIVE +WUS +BY STATE +TITLE$/);
    expect(human[1]).toMatch(/^INIT-1 +4 +1 done, 1 active, 1 eligible, 1 planned {2}One$/);
  });

  it('shows one initiative (by id or slug) with its members', async () => {
    const e = InitiativeShowEnvelope.parse((await ws.ok(['initiative', 'show', 'INIT-1'])).last);
    expect(e).toMatchObject({ type: 'initiative_detail', initiative: 'INIT-1', wus: 4, launch_attempt: null });
    expect(e.members.map((m) => m.wu_id)).toEqual(['WU-1', 'WU-2', 'WU-3', 'WU-10']);
    const bySlug = InitiativeShowEnvelope.parse((await ws.ok(['initiative', 'show', 'payments'])).last);
    expect(bySlug).toMatchObject({ initiative: 'INIT-2', members: [expect.objectContaining({ wu_id: 'WU-4', initiative: 'payments' })] });
    const human = (await ws.ok(['--human', 'initiative', 'show', 'INIT-1'])).stdout.trimEnd().split('\n');
    expect(human).toHaveLength(2 + 1 + 4);
    expect(human[2]).toMatch(/^ {2}WU +STATE +INITIATIVE +LANE +TITLE$/);
    expect(human[3]).toMatch(/^ {2}WU-1 +active/);
  });

  it('refuses a malformed id (exit 2) and an unknown one (UNKNOWN_ID)', async () => {
    expect(await ws.fail(['initiative', 'show', 'INIT 1'], 2)).toMatchObject({ code: 'INVALID_INPUT' });
    expect(await ws.fail(['initiative', 'show', 'INIT-42'], 2)).toMatchObject({ code: 'UNKNOWN_ID', message: 'Initiative INIT-42 not found' });
  });

  it('appended nothing: listing reads the log as recorded', () => {
    expect(ws.headSeq()).toBe(headBefore);
  });
});

describe('wu list names both dependency lists', () => {
  it('lists blocked_by beside dependencies, as wu show does', async () => {
    const fresh = await WuWorkspace.create();
    await fresh.inject('wu.defined', 'wu/WU-1', { wu_id: 'WU-1', initiative: 'INIT-1', lane: 'L1', title: 'One' });
    await fresh.inject('wu.defined', 'wu/WU-2', { wu_id: 'WU-2', initiative: 'INIT-1', lane: 'L2', title: 'Two', dependencies: [], blocked_by: ['WU-1'] });
    const list = WuListEnvelope.parse((await fresh.ok(['wu', 'list'])).last);
    expect(list.wus.map((w) => [w.wu_id, w.dependencies, w.blocked_by])).toEqual([
      ['WU-1', [], []],
      ['WU-2', [], ['WU-1']],
    ]);
    const shown = (await fresh.ok(['wu', 'show', 'WU-2'])).last as { blocked_by: string[] };
    expect(shown.blocked_by).toEqual(['WU-1']);
  });
});
