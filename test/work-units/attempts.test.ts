import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseOrchestrationLaunchDocument, parseOrchestrationPlanDocument, parseOrchestrationStatusDocument } from '../../projections/work-units/documents.js';
import { removeTempDirs } from '../helpers/workspace.js';
import { T0_ISO, WuWorkspace } from './helpers.js';

/** work-units.md §17 scenarios 10–18: attempts and handoffs. */
afterAll(removeTempDirs);

const attemptDir = (ws: WuWorkspace, n: number) => join(ws.dir, '.baton', 'artifacts', 'orchestration', 'INIT-1', `attempt-${n}`);
const json = (path: string): unknown => JSON.parse(readFileSync(path, 'utf8'));

describe.concurrent('attempts and handoffs', () => {
  it('plan.json rebuilt after deletion equals the one first written, byte for byte, keys in the order of §9', async () => {
    const ws = await WuWorkspace.create();
    await ws.wu(1, 'L1');
    await ws.wu(2, 'L2');
    await ws.launch();
    const path = join(attemptDir(ws, 0), 'plan.json');
    const first = readFileSync(path);
    const plan = JSON.parse(first.toString('utf8')) as { waves: Record<string, unknown>[] };
    expect(Object.keys(plan)).toEqual(['initiative', 'launch_attempt', 'generated_at', 'max_active_workers', 'logical_waves', 'waves', 'deferred']);
    expect(plan.waves.length).toBeGreaterThan(0);
    for (const wave of plan.waves) {
      expect(Object.keys(wave)).toEqual(['planned_wave', 'logical_wave', 'logical_waves', 'wus']);
      for (const wu of wave['wus'] as Record<string, unknown>[]) expect(Object.keys(wu)).toEqual(['id', 'lane', 'logical_wave']);
    }
    rmSync(path);
    await ws.status();
    expect(readFileSync(path).equals(first)).toBe(true);
  });

  it('10: run writes the bundle and records one attempt and one handoff (11: a second run takes attempt-1; 18: status restores a deleted handoff)', async () => {
    const ws = await WuWorkspace.create();
    await ws.wu(1, 'L1');
    const launch = await ws.launch(['--client', 'codex']);
    expect(launch.launch_attempt).toBe(0);
    const dir = attemptDir(ws, 0);
    expect(readdirSync(dir).sort()).toEqual(['handoffs', 'launch.json', 'plan.json', 'status.json']);
    expect(readdirSync(join(dir, 'handoffs'))).toEqual(['WU-1.md']);
    const doc = parseOrchestrationLaunchDocument(json(join(dir, 'launch.json')));
    expect(doc.handoffs[0]).toMatchObject({
      wu_id: 'WU-1',
      launch_attempt: 0,
      handoff_format: 'markdown',
      orchestration_state: 'handoff_emitted',
      emitted_at: T0_ISO,
    });
    expect(doc.handoffs[0]!.handoff_artifact_path.endsWith('attempt-0/handoffs/WU-1.md')).toBe(true);
    parseOrchestrationPlanDocument(json(join(dir, 'plan.json')));
    parseOrchestrationStatusDocument(json(join(dir, 'status.json')));
    const types = ws.events().map((e) => e.type);
    expect(types.filter((t) => t === 'orchestration.attempt_started')).toHaveLength(1);
    expect(types.filter((t) => t === 'handoff.emitted')).toHaveLength(1);

    // 11: a new WU, a new attempt; attempt-0 unchanged.
    const before = readdirSync(dir).map((f) => (f === 'handoffs' ? '' : readFileSync(join(dir, f), 'utf8')));
    await ws.wu(2, 'L2');
    const second = await ws.launch();
    expect(second.launch_attempt).toBe(1);
    expect(second.handoffs.map((h) => h.wu_id)).toEqual(['WU-2']);
    expect(readdirSync(dir).map((f) => (f === 'handoffs' ? '' : readFileSync(join(dir, f), 'utf8')))).toEqual(before);

    // 18: a deleted handoff of the latest attempt is restored byte for byte; status.json equals the printed document.
    const handoff = join(attemptDir(ws, 1), 'handoffs', 'WU-2.md');
    const sha = createHash('sha256').update(readFileSync(handoff)).digest('hex');
    rmSync(handoff);
    const status = await ws.status();
    expect(createHash('sha256').update(readFileSync(handoff)).digest('hex')).toBe(sha);
    const { v: _v, type: _t, ...printed } = status;
    expect(json(join(attemptDir(ws, 1), 'status.json'))).toEqual(printed);
  });

  it('12: an existing attempt folder is never reused', async () => {
    const ws = await WuWorkspace.create();
    await ws.wu(1, 'L1');
    mkdirSync(attemptDir(ws, 3), { recursive: true });
    const launch = await ws.launch();
    expect(launch.launch_attempt).toBe(4);
    expect(existsSync(join(attemptDir(ws, 4), 'launch.json'))).toBe(true);
  });

  it('13: claude-code handoffs are XML with a baton_handoff root and a prompt', async () => {
    const ws = await WuWorkspace.create();
    await ws.wu(1, 'L1');
    const launch = await ws.launch(['--client', 'claude-code']);
    expect(launch.handoffs[0]).toMatchObject({ handoff_format: 'xml' });
    const xml = readFileSync(join(attemptDir(ws, 0), 'handoffs', 'WU-1.xml'), 'utf8');
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<baton_handoff ')).toBe(true);
    expect(xml).toMatch(/<prompt><!\[CDATA\[# WU-1 — T1[\s\S]*\]\]><\/prompt>\n<\/baton_handoff>\n$/);
  });

  it('14: the Markdown handoff carries the description, criteria, code paths and the exact commands', async () => {
    const ws = await WuWorkspace.create();
    await ws.ok([
      'wu',
      'create',
      'WU-1',
      '--initiative',
      'INIT-1',
      '--lane',
      'L1',
      '--title',
      'Add X',
      '--description',
      'Do X',
      '--acceptance',
      'X works',
      '--acceptance',
      'tests pass',
      '--code-paths',
      'src/x/**',
    ]);
    await ws.launch();
    const md = readFileSync(join(attemptDir(ws, 0), 'handoffs', 'WU-1.md'), 'utf8');
    expect(md.startsWith('# WU-1 — Add X\n')).toBe(true);
    expect(md).toContain('## Acceptance criteria\n\n1. X works\n2. tests pass\n');
    expect(md.split('\n')).toContain('`src/x/**`');
    const lines = md.split('\n');
    const claim = lines.indexOf('baton wu claim WU-1 --mode worktree --worktree worktrees/l1-wu-1 --branch lane/l1/wu-1');
    expect(claim).toBeGreaterThan(0);
    const later = (prefix: string) => lines.findIndex((l, i) => i > claim && l.startsWith(prefix));
    expect(later('baton wu return WU-1')).toBeGreaterThan(claim);
    expect(later('baton wu prep WU-1')).toBeGreaterThan(later('baton wu return WU-1'));
    expect(later('baton wu done WU-1')).toBeGreaterThan(later('baton wu prep WU-1'));
  });

  it('15: nothing to launch creates no attempt', async () => {
    const ws = await WuWorkspace.create();
    await ws.wu(1, 'L1');
    const s1 = await ws.startSession();
    await ws.ok(['wu', 'claim', 'WU-1'], { session: s1 });
    await ws.ok(['wu', 'done', 'WU-1'], { session: s1 });
    const launch = await ws.launch();
    expect(launch.launch_attempt).toBeNull();
    expect(launch.handoffs).toEqual([]);
    expect(existsSync(join(ws.dir, '.baton', 'artifacts'))).toBe(false);
  });

  it('16: two concurrent runs create exactly one attempt', async () => {
    const ws = await WuWorkspace.create();
    await ws.wu(1, 'L1');
    const runs = await Promise.all([ws.run(['orchestrate', 'run', 'INIT-1']), ws.run(['orchestrate', 'run', 'INIT-1'])]);
    const attempts = readdirSync(join(ws.dir, '.baton', 'artifacts', 'orchestration', 'INIT-1'));
    expect(attempts).toEqual(['attempt-0']);
    expect(ws.events().filter((e) => e.type === 'handoff.emitted')).toHaveLength(1);
    for (const r of runs) {
      if (r.code === 0) continue;
      expect(r.code).toBe(4);
      expect((r.last as { code: string }).code).toBe('CONFLICT');
    }
    expect(runs.filter((r) => r.code === 0 && (r.last as { launch_attempt: number | null }).launch_attempt === 0)).toHaveLength(1);
  });

  it('17: --print-handoffs prints the Markdown inline; without it only the path', async () => {
    const ws = await WuWorkspace.create();
    await ws.wu(1, 'L1');
    const printed = await ws.run(['--human', 'orchestrate', 'run', 'INIT-1', '--print-handoffs']);
    const md = readFileSync(join(attemptDir(ws, 0), 'handoffs', 'WU-1.md'), 'utf8');
    expect(printed.stdout).toContain(md);
    const other = await WuWorkspace.create();
    await other.wu(1, 'L1');
    const plain = await other.run(['--human', 'orchestrate', 'run', 'INIT-1']);
    expect(plain.stdout.trim()).toBe('.baton/artifacts/orchestration/INIT-1/attempt-0/handoffs/WU-1.md');
  });
});
