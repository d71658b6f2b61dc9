import { appendFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { LumenflowImportEnvelope, InitiativeUpdateEnvelope } from '../../src/app/envelopes/lumenflow.js';
import { InitiativeStatusEnvelope } from '../../src/app/envelopes/work-units.js';
import { runBaton } from '../helpers/cli.js';
import { makeTempDir, storedEvents } from '../helpers/workspace.js';
import { WuWorkspace } from '../work-units/helpers.js';

/**
 * `baton import lumenflow` on a LumenFlow-shaped repository the test builds from the facts of
 * Nothing copied: workspace.yaml with custom directories, lane definitions and a worker
 * limit; WU YAML naming `INIT-MCP`-style ids; initiative YAML; stamps in the three shapes (the
 * usual two lines, other text, empty); a wu-events.jsonl with every event type and one malformed
 * line. The repository is the workspace (a non-git folder), as when run in a repository's root.
 */
const NOW = '2026-11-20T12:00:00Z';
const hoursAgo = (h: number): string => new Date(Date.parse(NOW) - h * 3_600_000).toISOString();

const WORKSPACE_YAML = `# LumenFlow workspace settings
software_delivery:
  directories:
    wuDir: work/wu
    initiativesDir: work/initiatives
    stampsDir: state/stamps
    stateDir: state/events
  lanes:
    definitions:
      - name: "Framework: Core"
        wip_limit: 2
        lock_policy: active
        code_paths: ["packages/core/**"]
      - name: Docs
        wip_limit: 1
      - name: Ops
  orchestration:
    max_active_workers: 2
`;

interface WuSpec {
  n: number;
  initiative: string;
  lane: string;
  status: string;
  deps?: string[];
  extra?: string;
}

/** Every WU, and the state LumenFlow's own rules give it (the evidence that decides, in the comment). */
const WUS: (WuSpec & { expected: string })[] = [
  { n: 1, initiative: 'INIT-MCP', lane: 'Docs', status: 'done', expected: 'done' }, // YAML done + usual stamp
  { n: 2, initiative: 'mcp', lane: 'Docs', status: 'done', expected: 'done' }, // by slug; stamp with other text
  { n: 3, initiative: 'INIT-MCP', lane: 'Ops', status: 'ready', expected: 'done' }, // an empty stamp still counts
  { n: 4, initiative: 'INIT-MCP', lane: 'Framework: Core', status: 'in_progress', expected: 'active' }, // claim + checkpoint
  { n: 5, initiative: 'INIT-MCP', lane: 'Docs', status: 'in_progress', expected: 'claimed' }, // claim only
  { n: 6, initiative: 'INIT-MCP', lane: 'Framework: Core', status: 'blocked', extra: 'blocked_reason: waiting on the SDK\n', expected: 'blocked' }, // claim + block
  { n: 7, initiative: 'INIT-MCP', lane: 'Docs', status: 'ready', expected: 'eligible' }, // create, claim, release
  { n: 8, initiative: 'INIT-MCP', lane: 'Framework: Core', status: 'in_progress', expected: 'active' }, // claim, block, unblock, checkpoint
  { n: 9, initiative: 'INIT-MCP', lane: 'Ops', status: 'done', expected: 'done' }, // claim, complete; no stamp
  { n: 10, initiative: 'INIT-MCP', lane: 'Ops', status: 'ready', expected: 'claimed' }, // a delegation picked it up
  { n: 11, initiative: 'INIT-MCP', lane: 'Ops', status: 'ready', deps: ['WU-5'], expected: 'planned' }, // waits for WU-5
  { n: 13, initiative: 'INIT-MCP', lane: 'Framework: Core', status: 'todo', expected: 'eligible' }, // lane at its WIP limit (2)
];
const OTHER_WUS: WuSpec[] = [
  { n: 12, initiative: 'INIT-ORPHAN', lane: 'Docs', status: 'ready' },
  { n: 14, initiative: 'INIT-MCP-FULL', lane: 'Docs', status: 'ready' },
];

function wuYaml(w: WuSpec, title = `Task ${w.n}`): string {
  return (
    [
      `id: WU-${w.n}`,
      `title: ${title}`,
      `lane: "${w.lane}"`,
      `status: ${w.status}`,
      `initiative: ${w.initiative}`,
      `type: feature`,
      ...(w.deps ? [`dependencies: [${w.deps.join(', ')}]`] : []),
      `unread_key: kept in the content hash only`,
    ].join('\n') + `\n${w.extra ?? ''}`
  );
}

/** LumenFlow's camelCase history lines; line 7 is cut off mid-object. */
function wuEventLines(): string[] {
  const e = (o: Record<string, unknown>): string => JSON.stringify(o);
  return [
    e({ type: 'create', wuId: 'WU-7', timestamp: hoursAgo(30), lane: 'Docs', title: 'Task 7' }),
    e({ type: 'claim', wuId: 'WU-4', timestamp: hoursAgo(5), lane: 'Framework: Core', title: 'Task 4', sessionId: 'a1b2-c3' }),
    e({ type: 'checkpoint', wuId: 'WU-4', timestamp: hoursAgo(1), note: 'parser done', progress: '60%', nextSteps: 'wire the CLI', sessionId: 'a1b2-c3' }),
    e({ type: 'claim', wuId: 'WU-5', timestamp: hoursAgo(2), lane: 'Docs', title: 'Task 5' }),
    e({ type: 'claim', wuId: 'WU-6', timestamp: hoursAgo(6), lane: 'Framework: Core' }),
    e({ type: 'block', wuId: 'WU-6', timestamp: hoursAgo(4), reason: 'waiting on the SDK' }),
    '{"type":"claim","wuId":"WU-7","timest',
    e({ type: 'claim', wuId: 'WU-7', timestamp: hoursAgo(29) }),
    e({ type: 'release', wuId: 'WU-7', timestamp: hoursAgo(28), reason: 'handed back' }),
    e({ type: 'claim', wuId: 'WU-8', timestamp: hoursAgo(8) }),
    e({ type: 'block', wuId: 'WU-8', timestamp: hoursAgo(7), reason: 'review' }),
    e({ type: 'unblock', wuId: 'WU-8', timestamp: hoursAgo(6) }),
    e({ type: 'checkpoint', wuId: 'WU-8', timestamp: hoursAgo(3), note: 'back on it' }),
    e({ type: 'claim', wuId: 'WU-9', timestamp: hoursAgo(48) }),
    e({ type: 'complete', wuId: 'WU-9', timestamp: hoursAgo(40) }),
    e({ type: 'delegation', wuId: 'WU-10', timestamp: hoursAgo(1), parentWuId: 'WU-4', delegationId: 'dlg-10' }),
  ];
}

function buildRepository(dir: string): void {
  const put = (rel: string, text: string): void => {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(join(dir, rel), text);
  };
  put('workspace.yaml', WORKSPACE_YAML);
  for (const w of [...WUS, ...OTHER_WUS]) put(`work/wu/WU-${w.n}.yaml`, wuYaml(w));
  put(
    'work/initiatives/INIT-MCP.yaml',
    'id: INIT-MCP\nslug: mcp\ntitle: MCP server\nstatus: in_progress\npriority: P1\nowner: platform\ncreated: 2026-10-01\ntarget_date: 2026-12-15\nlanes: ["Framework: Core", Docs, Ops]\nphases:\n  - id: 1\n    title: Core tools\n    status: in_progress\nwus: [WU-1, WU-2, WU-3]\n',
  );
  put('work/initiatives/INIT-MCP-FULL.yaml', 'id: INIT-MCP-FULL\ntitle: Full MCP surface\nstatus: open\n');
  put('state/stamps/WU-1.done', 'WU WU-1 \u2014 Task 1\nCompleted: 2026-11-01\n');
  put('state/stamps/WU-2.done', 'merged by hand after the release\n');
  put('state/stamps/WU-3.done', '');
  put('state/events/wu-events.jsonl', `${wuEventLines().join('\n')}\n`);
}

type ImportEnvelope = z.infer<typeof LumenflowImportEnvelope>;

async function importRepo(ws: WuWorkspace, extra: readonly string[] = [], now = NOW): Promise<ImportEnvelope> {
  return LumenflowImportEnvelope.parse((await ws.ok(['import', 'lumenflow', ws.dir, ...extra], { now })).last);
}

async function statusOf(ws: WuWorkspace, initiative: string) {
  return InitiativeStatusEnvelope.parse((await ws.ok(['orchestrate', 'status', initiative], { now: NOW })).last);
}

describe('baton import lumenflow', () => {
  it('brings a whole repository over: every WU in the state LumenFlow gives it, lanes and capacity in use, findings reported', async () => {
    const ws = await WuWorkspace.create({ initiative: false });
    buildRepository(ws.dir);

    const first = await importRepo(ws);
    expect(first.directories).toEqual({ wu_dir: 'work/wu', initiatives_dir: 'work/initiatives', stamps_dir: 'state/stamps', state_dir: 'state/events' });
    expect(first.settings).toEqual({ lanes: 3, max_active_workers: 2, recorded: true });
    expect(first.initiatives).toMatchObject({ defined: 2, changed: 0, unchanged: 0 });
    expect(first.wus).toMatchObject({ defined: 14, changed: 0, unchanged: 0 });
    expect(first.wu_events).toEqual({ lines: 16, imported: 15, already_imported: 0, malformed: 1 });
    expect(first.stamps).toEqual({ files: 3, recorded: 3 });
    expect(first.skipped_invalid).toBe(0);
    // 1 settings + 2 initiatives + 15 lines + 14 WU YAML + 3 stamps, in one batch.
    expect(first.appended).toBe(35);
    expect(ws.events().length).toBe(35);

    const codes = first.findings.map((f) => [f.severity, f.code, f.line ?? f.wu_id ?? f.path]);
    expect(codes).toEqual(
      expect.arrayContaining([
        ['warning', 'MALFORMED_LINE', 7],
        ['info', 'STAMP_TEXT_UNRECOGNISED', 'WU-2'],
        ['info', 'STAMP_TEXT_UNRECOGNISED', 'WU-3'],
        ['integrity', 'STAMP_YAML_MISMATCH', 'WU-3'],
        ['integrity', 'STAMP_MISSING', 'WU-9'],
      ]),
    );
    expect(first.findings.find((f) => f.code === 'MALFORMED_LINE')!.message).toContain('line 7');
    expect(first.findings.find((f) => f.code === 'STAMP_TEXT_UNRECOGNISED' && f.wu_id === 'WU-2')!.path).toBe('state/stamps/WU-2.done');
    expect(first.findings.filter((f) => f.code === 'STAMP_TEXT_UNRECOGNISED')).toHaveLength(2);
    const orphan = first.findings.find((f) => f.code === 'INITIATIVE_NOT_DEFINED');
    expect(orphan?.message).toContain('INIT-ORPHAN');
    expect(orphan?.message).toContain('WU-12');

    // Every WU's state, as LumenFlow's rules give it.
    const status = await statusOf(ws, 'INIT-MCP');
    const table = Object.fromEntries(status.wus.map((r) => [r.wu_id, r.orchestration_state]));
    expect(table).toEqual(Object.fromEntries(WUS.map((w) => [`WU-${w.n}`, w.expected])));
    // LumenFlow's stamp/YAML consistency check, kept in the status as integrity findings.
    expect(status.integrity_findings.map((f) => [f.code, f.message])).toEqual([
      ['STAMP_MISSING', 'WU-9: its YAML says done but state/stamps/WU-9.done does not exist'],
      ['STAMP_YAML_MISMATCH', 'WU-3: stamp state/stamps/WU-3.done says done, its YAML says ready'],
    ]);
    // The checkpoint counts with its own time, not the import's.
    expect(status.wus.find((r) => r.wu_id === 'WU-4')!.last_activity_at).toBe(hoursAgo(1));
    // Capacity and lanes from workspace.yaml: max 2 workers; Framework: Core holds 2 (policy active).
    expect(status.max_active_workers).toBe(2);
    expect(status.next_safe_actions).toContainEqual(
      expect.objectContaining({ wu_id: 'WU-13', type: 'wait', reason: 'Lane Framework: Core is at its WIP limit (2).' }),
    );
    // The status ran the stamp probe outside git on the recorded stamp folder: nothing new.
    expect(ws.events().length).toBe(35);
    // Whatever snapshot the import left, a fold from scratch gives the same status.
    rmSync(join(ws.dir, '.baton', 'cache'), { recursive: true, force: true });
    expect(await statusOf(ws, 'INIT-MCP')).toEqual(status);

    // Initiatives by id with LumenFlow's pattern, and the second one usable.
    const full = await statusOf(ws, 'INIT-MCP-FULL');
    expect(full.wus.map((r) => [r.wu_id, r.orchestration_state])).toEqual([['WU-14', 'eligible']]);
  });

  it('a second run appends nothing; a changed file appends only its changed fields; a new history line only itself', async () => {
    const ws = await WuWorkspace.create({ initiative: false });
    buildRepository(ws.dir);
    await importRepo(ws);
    const head = ws.headSeq();

    const again = await importRepo(ws);
    expect(again.appended).toBe(0);
    expect(again.wus).toMatchObject({ defined: 0, changed: 0, unchanged: 14 });
    expect(again.initiatives).toMatchObject({ defined: 0, changed: 0, unchanged: 2 });
    expect(again.wu_events).toEqual({ lines: 16, imported: 0, already_imported: 15, malformed: 1 });
    expect(again.stamps.recorded).toBe(0);
    expect(ws.headSeq()).toBe(head);
    // The malformed line is reported again, by number, and still skipped.
    expect(again.findings.find((f) => f.code === 'MALFORMED_LINE')?.line).toBe(7);

    // WU-5's title, INIT-MCP's status, and a checkpoint of WU-5 appended by LumenFlow.
    writeFileSync(join(ws.dir, 'work/wu/WU-5.yaml'), wuYaml(WUS[4]!, 'Task 5, renamed'));
    writeFileSync(
      join(ws.dir, 'work/initiatives/INIT-MCP.yaml'),
      'id: INIT-MCP\nslug: mcp\ntitle: MCP server\nstatus: done\npriority: P1\nowner: platform\ncreated: 2026-10-01\ntarget_date: 2026-12-15\nlanes: ["Framework: Core", Docs, Ops]\nphases:\n  - id: 1\n    title: Core tools\n    status: in_progress\nwus: [WU-1, WU-2, WU-3]\n# a comment changes nothing read\n',
    );
    appendFileSync(
      join(ws.dir, 'state/events/wu-events.jsonl'),
      `${JSON.stringify({ type: 'checkpoint', wuId: 'WU-5', timestamp: hoursAgo(0.5), note: 'drafted' })}\n`,
    );

    const later = await importRepo(ws);
    expect(later.appended).toBe(3);
    expect(later.wus.changes).toEqual([{ path: 'work/wu/WU-5.yaml', wu_id: 'WU-5', result: 'changed', changed_fields: ['title'] }]);
    expect(later.initiatives.changes).toEqual([
      { path: 'work/initiatives/INIT-MCP.yaml', initiative: 'INIT-MCP', result: 'changed', changed_fields: ['status'] },
    ]);
    expect(later.wu_events).toMatchObject({ imported: 1, already_imported: 15, malformed: 1 });
    const added = ws.events().slice(head);
    expect(added.map((e) => [e.type, e.stream])).toEqual([
      ['observation.initiative_yaml', 'initiative/INIT-MCP'],
      ['observation.lumenflow_wu_event', 'wu/WU-5'],
      ['observation.wu_yaml', 'wu/WU-5'],
    ]);
    expect((added[0]!.data as { fields: unknown }).fields).toEqual({ status: 'done' });
    expect((added[2]!.data as { fields: unknown }).fields).toEqual({ title: 'Task 5, renamed' });
    // The new checkpoint is execution evidence: WU-5 is active now.
    const status = await statusOf(ws, 'INIT-MCP');
    expect(status.wus.find((r) => r.wu_id === 'WU-5')!.orchestration_state).toBe('active');

    expect((await importRepo(ws)).appended).toBe(0);

    // An unchanged file is not parsed again, but a second file with its id is still caught.
    writeFileSync(join(ws.dir, 'work/wu/copy-of-5.yaml'), wuYaml(WUS[4]!, 'A copy'));
    const dup = await ws.fail(['import', 'lumenflow', ws.dir], 2, { now: NOW });
    expect(dup.message).toContain('work/wu/copy-of-5.yaml: id: WU-5 is also defined by work/wu/WU-5.yaml');
  });

  it('a large import leaves the work-unit snapshot current, and it equals a fold from scratch', async () => {
    const ws = await WuWorkspace.create({ initiative: false });
    mkdirSync(join(ws.dir, 'docs/operations/tasks/wu'), { recursive: true });
    mkdirSync(join(ws.dir, '.lumenflow/state'), { recursive: true });
    mkdirSync(join(ws.dir, '.lumenflow/stamps'), { recursive: true });
    const lines: string[] = [];
    for (let n = 1; n <= 500; n++) {
      const status = n <= 200 ? 'done' : n % 3 === 0 ? 'in_progress' : 'ready';
      writeFileSync(
        join(ws.dir, `docs/operations/tasks/wu/WU-${n}.yaml`),
        `id: WU-${n}\ntitle: T${n}\nlane: L${n % 4}\nstatus: ${status}\ninitiative: INIT-BIG\n${n > 1 && n % 2 === 0 ? `dependencies: [WU-${n - 1}]\n` : ''}`,
      );
      if (n <= 200) writeFileSync(join(ws.dir, `.lumenflow/stamps/WU-${n}.done`), `WU WU-${n} \u2014 T${n}\nCompleted: 2026-11-01\n`);
      lines.push(JSON.stringify({ type: 'claim', wuId: `WU-${n}`, timestamp: hoursAgo(10) }));
      if (status !== 'ready')
        lines.push(JSON.stringify({ type: status === 'done' ? 'complete' : 'checkpoint', wuId: `WU-${n}`, timestamp: hoursAgo(2), note: 'n' }));
    }
    writeFileSync(join(ws.dir, '.lumenflow/state/wu-events.jsonl'), `${lines.join('\n')}\n`);
    writeFileSync(join(ws.dir, 'workspace.yaml'), 'software_delivery: {}\n');
    mkdirSync(join(ws.dir, 'docs/operations/tasks/initiatives'));
    writeFileSync(join(ws.dir, 'docs/operations/tasks/initiatives/INIT-BIG.yaml'), 'id: INIT-BIG\ntitle: Big\n');
    const first = await importRepo(ws);
    expect(first.appended).toBeGreaterThan(1000);
    expect(existsSync(join(ws.dir, '.baton/cache/work_units.snapshot.json'))).toBe(true);
    const withSnapshot = await ws.ok(['orchestrate', 'status', 'INIT-BIG'], { now: NOW });
    rmSync(join(ws.dir, '.baton', 'cache'), { recursive: true, force: true });
    const fromScratch = await ws.ok(['orchestrate', 'status', 'INIT-BIG'], { now: NOW });
    expect(withSnapshot.stdout).toBe(fromScratch.stdout);
    expect(InitiativeStatusEnvelope.parse(fromScratch.last).wus.filter((r) => r.orchestration_state === 'done')).toHaveLength(200);
  });

  it('--dry-run reports the plan and appends nothing; REPO defaults to the current folder', async () => {
    const ws = await WuWorkspace.create({ initiative: false });
    buildRepository(ws.dir);
    const r = await runBaton(['--json', '--dir', ws.dir, 'import', 'lumenflow', '--dry-run'], { cwd: ws.dir, env: { BATON_NOW: NOW } });
    expect(r.code).toBe(0);
    const dry = LumenflowImportEnvelope.parse(JSON.parse(r.stdout.trim().split('\n').at(-1)!));
    expect(dry).toMatchObject({ dry_run: true, appended: 0, wus: { defined: 14 }, wu_events: { imported: 15, malformed: 1 } });
    expect(ws.events()).toHaveLength(0);
  });

  it('the same commit imported from a linked worktree, then from the main checkout, appends nothing the second time: files are keyed by their path in the repository', async () => {
    const main = makeTempDir('baton-lf-main-');
    buildRepository(main);
    const git = (cwd: string, ...args: string[]): void => {
      execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=T', ...args], { cwd, stdio: 'ignore' });
    };
    git(main, 'init', '-q', '-b', 'main');
    git(main, 'add', '.');
    git(main, 'commit', '-q', '-m', 'LumenFlow repository');
    const tree = join(makeTempDir('baton-lf-wt-'), 'wt');
    git(main, 'worktree', 'add', '-q', tree);
    const env = { BATON_NOW: NOW };
    // From the worktree (its store is the main checkout's), then from the main checkout.
    const first = await runBaton(['--json', 'import', 'lumenflow'], { cwd: tree, env });
    expect(first.code).toBe(0);
    const firstEnvelope = LumenflowImportEnvelope.parse(JSON.parse(first.stdout.trim().split('\n').at(-1)!));
    expect(firstEnvelope.appended).toBeGreaterThan(20);
    const again = await runBaton(['--json', 'import', 'lumenflow'], { cwd: main, env });
    expect(again.code).toBe(0);
    expect(LumenflowImportEnvelope.parse(JSON.parse(again.stdout.trim().split('\n').at(-1)!)).appended).toBe(0);
    const stamps = storedEvents(main).filter((e) => e.type === 'observation.stamp_file' || e.type === 'settings.recorded');
    expect(stamps.length).toBeGreaterThan(0);
    for (const e of stamps) expect(JSON.stringify(e.data)).not.toContain(tree);
  });

  it('reports the WUs an initiative lists and the stamps that have no YAML in the WU folder', async () => {
    const ws = await WuWorkspace.create({ initiative: false });
    buildRepository(ws.dir);
    writeFileSync(join(ws.dir, 'work/initiatives/INIT-GAPS.yaml'), 'id: INIT-GAPS\ntitle: Gaps\nstatus: open\nwus: [WU-1, WU-98]\n');
    writeFileSync(join(ws.dir, 'state/stamps/WU-97.done'), 'WU WU-97 \u2014 Gone\nCompleted: 2026-11-02\n');
    const imported = await importRepo(ws);
    const codes = imported.findings.map((f) => [f.code, f.wu_id, f.path]);
    expect(codes).toContainEqual(['LISTED_WU_WITHOUT_YAML', 'WU-98', 'work/initiatives/INIT-GAPS.yaml']);
    expect(codes).toContainEqual(['STAMP_WITHOUT_YAML', 'WU-97', 'state/stamps/WU-97.done']);
    expect(codes.filter(([code]) => code === 'LISTED_WU_WITHOUT_YAML')).toHaveLength(1);
  });

  it('initiative update changes only the fields that differ, and nothing when none do', async () => {
    const ws = await WuWorkspace.create({ initiative: false });
    buildRepository(ws.dir);
    await importRepo(ws);
    const head = ws.headSeq();
    const up = InitiativeUpdateEnvelope.parse(
      (await ws.ok(['initiative', 'update', 'INIT-MCP', '--title', 'MCP server', '--status', 'done', '--owner', 'tools-team'])).last,
    );
    expect(up).toMatchObject({ result: 'updated', changed_fields: ['status', 'owner'] });
    expect(
      ws
        .events()
        .slice(head)
        .map((e) => [e.type, e.data]),
    ).toEqual([['initiative.updated', { initiative: 'INIT-MCP', changed: { status: 'done', owner: 'tools-team' } }]]);
    const same = InitiativeUpdateEnvelope.parse((await ws.ok(['initiative', 'update', 'INIT-MCP', '--status', 'done'])).last);
    expect(same).toMatchObject({ result: 'unchanged', appended: [] });
    expect(ws.headSeq()).toBe(head + 1);
    // The file did not change: the next import leaves the by-hand update alone.
    expect((await importRepo(ws)).appended).toBe(0);
    expect((await ws.fail(['initiative', 'update', 'INIT-NOPE', '--status', 'done'], 2)).code).toBe('UNKNOWN_ID');
    expect((await ws.fail(['initiative', 'update', 'INIT-MCP', '--wus', 'WU-1,task-2'], 2)).message).toContain('--wus');
  });

  it('LumenFlow initiative ids work everywhere: initiative create, wu create --initiative, wu import', async () => {
    const ws = await WuWorkspace.create({ initiative: false });
    await ws.ok(['initiative', 'create', 'INIT-MCP', '--title', 'MCP']);
    await ws.ok(['wu', 'create', 'WU-1', '--initiative', 'INIT-MCP', '--lane', 'L1']);
    mkdirSync(join(ws.dir, 'wu'));
    writeFileSync(join(ws.dir, 'wu/WU-2.yaml'), 'id: WU-2\ntitle: Two\nlane: L1\nstatus: ready\ninitiative: INIT-MCP-FULL\n');
    await ws.ok(['wu', 'import', 'wu']);
    expect((await ws.fail(['initiative', 'create', 'INIT-mcp', '--title', 'x'], 2)).message).toContain('^INIT-[0-9A-Z][0-9A-Z-]*$');
  });

  it('stamps count outside git: a LumenFlow stamp with any text makes its WU done on the next status', async () => {
    const ws = await WuWorkspace.create();
    await ws.wu(1, 'L1');
    mkdirSync(join(ws.dir, '.lumenflow/stamps'), { recursive: true });
    writeFileSync(join(ws.dir, '.lumenflow/stamps/WU-1.done'), 'finished in LumenFlow\n');
    const status = await ws.status();
    expect(status.wus[0]!.orchestration_state).toBe('done');
    expect(
      ws
        .events()
        .filter((e) => e.type === 'observation.stamp_file')
        .map((e) => e.data),
    ).toEqual([expect.objectContaining({ wu_id: 'WU-1', path: '.lumenflow/stamps/WU-1.done', present: true, valid: true })]);
  });
});

describe('baton import lumenflow: bad input appends nothing', () => {
  const errorOf = (ws: WuWorkspace, args: readonly string[]) => ws.fail(['import', 'lumenflow', ...args], 2, { now: NOW });

  it('a folder that is not a LumenFlow repository: exit 2 naming REPO and the path', async () => {
    const ws = await WuWorkspace.create({ initiative: false });
    const other = makeTempDir('not-lumenflow-');
    const e = await errorOf(ws, [other]);
    expect(e.code).toBe('INVALID_INPUT');
    expect(e.message).toContain('REPO');
    expect(e.message).toContain(other);
    expect(ws.events()).toHaveLength(0);
  });

  it('an unreadable or unparsable workspace.yaml: exit 2 naming the file and the field', async () => {
    const ws = await WuWorkspace.create({ initiative: false });
    buildRepository(ws.dir);
    writeFileSync(join(ws.dir, 'workspace.yaml'), 'software_delivery: [unclosed\n');
    const parse = await errorOf(ws, [ws.dir]);
    expect(parse.message).toMatch(/^workspace\.yaml: yaml: /);

    writeFileSync(join(ws.dir, 'workspace.yaml'), 'software_delivery:\n  orchestration:\n    max_active_workers: many\n');
    expect((await errorOf(ws, [ws.dir])).message).toBe('workspace.yaml: software_delivery.orchestration.max_active_workers: must be an integer from 0 to 1000');

    const unreadable = makeTempDir('lf-unreadable-');
    mkdirSync(join(unreadable, 'workspace.yaml'));
    const dirAsFile = await errorOf(ws, [unreadable]);
    expect(dirAsFile.message).toContain('workspace.yaml: file: cannot be read');
    expect(ws.events()).toHaveLength(0);
  });

  it('a WU id that is not WU-<n>: exit 2 naming the file and id, nothing appended; --skip-invalid imports the rest and counts it', async () => {
    const ws = await WuWorkspace.create({ initiative: false });
    buildRepository(ws.dir);
    writeFileSync(join(ws.dir, 'work/wu/WU-X.yaml'), 'id: WU-X1\ntitle: Bad\nlane: Docs\nstatus: ready\n');
    writeFileSync(join(ws.dir, 'work/wu/WU-15.yaml'), 'id: WU-15\ntitle: No lane\nstatus: ready\n');
    const e = await errorOf(ws, [ws.dir]);
    expect(e.message).toContain('work/wu/WU-X.yaml: id: must match ^WU-[0-9]{1,9}$');
    expect(e.message).toContain('work/wu/WU-15.yaml: lane: required');
    expect(ws.events()).toHaveLength(0);

    const partial = await importRepo(ws, ['--skip-invalid']);
    expect(partial.skipped_invalid).toBe(2);
    expect(partial.wus.defined).toBe(14);
    expect(partial.findings.filter((f) => f.severity === 'error').map((f) => f.path)).toEqual(['work/wu/WU-15.yaml', 'work/wu/WU-X.yaml']);
    expect(partial.appended).toBe(35);
  });
});
