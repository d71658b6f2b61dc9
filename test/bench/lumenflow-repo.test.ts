import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { generateLumenflowRepository, REAL_SHAPE, realShaped, WU_DIR, type GeneratedRepo } from '../../bench/lumenflow-repo.js';
import { runBaton } from '../helpers/cli.js';
import { makeTempDir, removeTempDirs } from '../helpers/workspace.js';

/**
 * The bench's real-shaped LumenFlow repository (bench/lumenflow-repo.ts) at a small size: its shape
 * read back from the files it writes, its determinism, and `baton import lumenflow` of it through
 * the built CLI appending what the generator says and answering its eligible WUs.
 */
const SHAPE = realShaped(300);

function filesUnder(dir: string, rel = ''): string[] {
  return readdirSync(join(dir, rel), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(dir, join(rel, e.name)) : [join(rel, e.name)]));
}

const yamlOf = (path: string): Record<string, unknown> => parseYaml(readFileSync(path, 'utf8'), { schema: 'core' }) as Record<string, unknown>;

describe('the real-shaped LumenFlow repository of the bench', () => {
  afterAll(removeTempDirs);
  const dir = makeTempDir('baton-lumenflow-repo-');
  const repo: GeneratedRepo = generateLumenflowRepository(dir, SHAPE);
  const wus = readdirSync(join(dir, WU_DIR)).map((name) => yamlOf(join(dir, WU_DIR, name)));
  const byId = new Map(wus.map((w) => [String(w['id']), w]));

  it('writes a WU YAML of 5–15 fields per WU, a stamp for ~95% of the done ones, and says how many files', () => {
    expect(wus).toHaveLength(SHAPE.wus);
    for (const wu of wus) {
      expect(Object.keys(wu).length).toBeGreaterThanOrEqual(5);
      expect(Object.keys(wu).length).toBeLessThanOrEqual(15);
    }
    const done = wus.filter((w) => w['status'] === 'done');
    expect(done).toHaveLength(repo.counts.done);
    const stamps = readdirSync(join(dir, '.lumenflow/stamps'));
    expect(stamps).toHaveLength(repo.stamps);
    for (const stamp of stamps) expect(byId.get(stamp.replace(/\.done$/, ''))?.['status']).toBe('done');
    expect(repo.stamps / done.length).toBeGreaterThan(0.88);
    expect(repo.stamps / done.length).toBeLessThan(1);
    expect(filesUnder(dir)).toHaveLength(repo.files);
    const inProgress = wus.filter((w) => w['status'] === 'in_progress');
    expect(inProgress.map((w) => String(w['id'])).sort()).toEqual([...repo.inProgress].sort());
    for (const wu of inProgress) expect(wu).toMatchObject({ claimed_mode: 'worktree' });
  });

  it('groups the WUs in initiatives of 5–70, one of 70 with work in flight, each listing the WUs that name it', () => {
    const folder = join(dir, 'docs/operations/tasks/initiatives');
    const files = readdirSync(folder).map((name) => yamlOf(join(folder, name)));
    expect(files.map((f) => ({ id: f['id'], wus: (f['wus'] as string[]).length })).sort((a, b) => (String(a.id) < String(b.id) ? -1 : 1))).toEqual(
      repo.initiatives,
    );
    for (const f of files) {
      const members = f['wus'] as string[];
      expect(members.length).toBeGreaterThanOrEqual(5);
      expect(members.length).toBeLessThanOrEqual(70);
      for (const id of members) expect(byId.get(id)?.['initiative']).toBe(f['id']);
    }
    const active = files.find((f) => f['id'] === repo.activeInitiative)!;
    expect(active['wus']).toHaveLength(70);
    expect((active['wus'] as string[]).some((id) => byId.get(id)?.['status'] !== 'done')).toBe(true);
    const named = wus.filter((w) => w['initiative'] !== undefined).length;
    expect(named).toBe(files.reduce((sum, f) => sum + (f['wus'] as string[]).length, 0));
  });

  it('gives each WU 2–4 history lines in time order, a claim first and the status it ends in last', () => {
    const lines = readFileSync(join(dir, '.lumenflow/state/wu-events.jsonl'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(repo.historyLines);
    const parsed = lines.map((l) => JSON.parse(l) as { type: string; wuId: string; timestamp: string });
    expect(parsed.map((p) => p.timestamp)).toEqual(parsed.map((p) => p.timestamp).sort());
    const per = new Map<string, string[]>();
    for (const p of parsed) per.set(p.wuId, [...(per.get(p.wuId) ?? []), p.type]);
    expect(per.size).toBe(SHAPE.wus);
    const last: Record<string, string> = { done: 'complete', ready: 'release', blocked: 'block', in_progress: 'checkpoint' };
    for (const [id, kinds] of per) {
      expect(kinds.length).toBeGreaterThanOrEqual(2);
      expect(kinds.length).toBeLessThanOrEqual(4);
      expect(kinds[0]).toBe('claim');
      expect(kinds.at(-1)).toBe(last[String(byId.get(id)!['status'])]);
    }
  });

  it('defines every lane with a WIP limit, and the same shape and seed give the same bytes', () => {
    const lanes = (yamlOf(join(dir, 'workspace.yaml'))['software_delivery'] as { lanes: { definitions: { name: string; wip_limit: number }[] } }).lanes;
    expect(lanes.definitions.map((l) => l.name)).toEqual(repo.lanes.map((l) => l.name));
    for (const lane of lanes.definitions) expect(lane.wip_limit).toBeGreaterThanOrEqual(1);
    for (const wu of wus) expect(lanes.definitions.map((l) => l.name)).toContain(wu['lane']);
    const again = makeTempDir('baton-lumenflow-repo-');
    generateLumenflowRepository(again, SHAPE);
    const files = filesUnder(dir).sort();
    expect(filesUnder(again).sort()).toEqual(files);
    for (const file of files) expect(readFileSync(join(again, file)).equals(readFileSync(join(dir, file))), file).toBe(true);
  });

  it('at the real size: ~52 initiatives and ~6,500 events once imported', () => {
    const real = generateLumenflowRepository(makeTempDir('baton-lumenflow-repo-'), REAL_SHAPE);
    expect(real.initiatives.length).toBeGreaterThanOrEqual(45);
    expect(real.initiatives.length).toBeLessThanOrEqual(60);
    expect(real.expectedEvents).toBeGreaterThan(6_000);
    expect(real.expectedEvents).toBeLessThan(7_000);
    expect(real.claimable.length).toBeGreaterThanOrEqual(20);
  });

  it('imports through the built CLI: the events the generator counts, and its eligible WUs', async () => {
    const ws = makeTempDir('baton-lumenflow-import-');
    const copy = generateLumenflowRepository(ws, SHAPE);
    expect((await runBaton(['--json', '--dir', ws, 'init'])).code).toBe(0);
    const imported = await runBaton(['--json', '--dir', ws, 'import', 'lumenflow', ws]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout.trim().split('\n').at(-1)!)).toMatchObject({ type: 'lumenflow_import', appended: copy.expectedEvents });
    const eligible = await runBaton(['--json', '--dir', ws, 'wu', 'list', '--state', 'eligible']);
    expect(eligible.code, eligible.stderr).toBe(0);
    const ids = (JSON.parse(eligible.stdout.trim().split('\n').at(-1)!) as { wus: { wu_id: string }[] }).wus.map((w) => w.wu_id);
    expect([...ids].sort()).toEqual([...copy.eligible].sort());
    expect(copy.eligible.length).toBeGreaterThan(0);
  });
});
