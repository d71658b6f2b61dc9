import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WuDefinitionEnvelope } from '../../src/app/envelopes/work-units.js';
import { hashTree, removeTempDirs } from '../helpers/workspace.js';
import { WuWorkspace } from './helpers.js';

/** Bad input exits 2 naming the field and rule, appends nothing, writes nothing; creates are upserts. */
afterAll(removeTempDirs);

describe.concurrent('work-unit bad input and upserts', () => {
  it('refuses bad ids, unknown ids, bad flags, bad YAML and a bad config with exit 2 and no effect', async () => {
    const ws = await WuWorkspace.create();
    await ws.wu(1, 'L1');
    mkdirSync(join(ws.dir, 'bad'));
    writeFileSync(join(ws.dir, 'bad', 'WU-5.yaml'), 'id: WU-5\ntitle: [unclosed\n');
    const before = hashTree(join(ws.dir, '.baton'));
    const cases: [string[], string, string][] = [
      [['wu', 'claim', 'WU-x'], 'INVALID_INPUT', 'WU'],
      [['wu', 'claim', 'WU-1234567890'], 'INVALID_INPUT', 'WU'],
      [['wu', 'claim', 'WU-9'], 'UNKNOWN_ID', 'WU-9 not found'],
      [['orchestrate', 'status', 'INIT-9'], 'UNKNOWN_ID', 'Initiative INIT-9 not found'],
      [['orchestrate', 'status', '../etc'], 'INVALID_INPUT', 'INIT'],
      [['wu', 'create', 'WU-2', '--initiative', 'INIT-9', '--lane', 'L1'], 'UNKNOWN_ID', '--initiative'],
      [['wu', 'create', 'WU-2', '--initiative', 'INIT-1', '--lane', 'L9'], 'INVALID_INPUT', '--lane'],
      [['wu', 'create', 'WU-2', '--initiative', 'INIT-1', '--lane', 'L1', '--deps', 'WU-2'], 'INVALID_INPUT', 'itself'],
      [['wu', 'create', 'WU-2', '--initiative', 'INIT-1', '--lane', 'L1', '--type', 'epic'], 'INVALID_INPUT', '--type'],
      [['wu', 'create', 'WU-2', '--initiative', 'INIT-1', '--lane', 'L1', '--code-paths', '../outside'], 'INVALID_INPUT', '--code-paths'],
      [['wu', 'claim', 'WU-1', '--mode', 'fork'], 'INVALID_INPUT', '--mode'],
      [['wu', 'claim', 'WU-1', '--mode', 'branch-only', '--worktree', 'wt'], 'INVALID_INPUT', '--worktree'],
      [['wu', 'claim', 'WU-1', '--branch', 'bad..name'], 'INVALID_INPUT', '--branch'],
      [['wu', 'block', 'WU-1'], 'INVALID_INPUT', '--reason'],
      [['orchestrate', 'status', 'INIT-1', '--max-active-workers', '-1'], 'INVALID_INPUT', '--max-active-workers'],
      [['orchestrate', 'run', 'INIT-1', '--client', 'vim'], 'INVALID_INPUT', '--client'],
      [['wu', 'import', join(ws.dir, 'bad')], 'INVALID_INPUT', 'WU-5.yaml'],
      [['initiative', 'create', 'INIT-2', '--title', 'Two', '--slug', 'Bad Slug'], 'INVALID_INPUT', '--slug'],
    ];
    for (const [args, code, mention] of cases) {
      const error = await ws.fail(args, 2);
      expect(error.code, args.join(' ')).toBe(code);
      expect(error.message, args.join(' ')).toContain(mention);
    }
    ws.writeConfig('orchestration:\n  stall_threshold: soon\n');
    const config = await ws.fail(['orchestrate', 'status', 'INIT-1'], 2);
    expect(config.message).toContain('stall_threshold');
    ws.writeConfig('');
    const after = hashTree(join(ws.dir, '.baton'));
    delete after['config.yaml'];
    delete before['config.yaml'];
    expect(Object.fromEntries(Object.entries(after).filter(([k]) => !k.startsWith('cache/')))).toEqual(
      Object.fromEntries(Object.entries(before).filter(([k]) => !k.startsWith('cache/'))),
    );
  });

  it('initiative create is idempotent, and refuses different fields with ALREADY_EXISTS', async () => {
    const ws = await WuWorkspace.create();
    const head = ws.headSeq();
    await ws.ok(['initiative', 'create', 'INIT-1', '--title', 'One', '--lanes', 'L1,L2,L3,L4,L5,L6']);
    expect(ws.headSeq()).toBe(head);
    expect((await ws.fail(['initiative', 'create', 'INIT-1', '--title', 'Other'], 2)).code).toBe('ALREADY_EXISTS');
  });

  it('wu create is an upsert: only changed fields are recorded, nothing when none changed; a slug is an alias', async () => {
    const ws = await WuWorkspace.create();
    await ws.ok(['initiative', 'create', 'INIT-2', '--title', 'Two', '--slug', 'two']);
    const first = WuDefinitionEnvelope.parse((await ws.ok(['wu', 'create', 'WU-1', '--initiative', 'two', '--lane', 'Any', '--title', 'A'])).last);
    expect(first.result).toBe('defined');
    const same = WuDefinitionEnvelope.parse((await ws.ok(['wu', 'create', 'WU-1', '--initiative', 'two', '--lane', 'Any', '--title', 'A'])).last);
    expect(same).toMatchObject({ result: 'unchanged', appended: [] });
    const changed = WuDefinitionEnvelope.parse(
      (await ws.ok(['wu', 'create', 'WU-1', '--initiative', 'two', '--lane', 'Any', '--title', 'B', '--priority', 'P0'])).last,
    );
    expect(changed).toMatchObject({ result: 'updated', changed_fields: ['title', 'priority'] });
    expect(ws.events().at(-1)!.data).toEqual({ wu_id: 'WU-1', changed: { title: 'B', priority: 'P0' } });
    const status = (await ws.ok(['orchestrate', 'status', 'INIT-2'])).last as { wus: { wu_id: string; title: string }[] };
    expect(status.wus).toMatchObject([{ wu_id: 'WU-1', title: 'B' }]);
  });

  it('the YAML probe (probes.wu_yaml_paths) imports changed files on status and only warns about a bad one', async () => {
    const ws = await WuWorkspace.create({ config: 'probes:\n  wu_yaml_paths: [wus]\n' });
    mkdirSync(join(ws.dir, 'wus'));
    writeFileSync(join(ws.dir, 'wus', 'WU-1.yaml'), 'id: WU-1\ntitle: One\ninitiative: INIT-1\nlane: L1\nstatus: ready\n');
    writeFileSync(join(ws.dir, 'wus', 'WU-2.yaml'), 'id: WU-2\ntitle: Two\ninitiative: INIT-1\nstatus: ready\n');
    const first = await ws.ok(['orchestrate', 'status', 'INIT-1']);
    expect(first.stderr).toContain('WU-2.yaml');
    expect((first.last as { wus: { wu_id: string; orchestration_state: string }[] }).wus).toMatchObject([{ wu_id: 'WU-1', orchestration_state: 'eligible' }]);
    const head = ws.headSeq();
    await ws.ok(['orchestrate', 'status', 'INIT-1']);
    expect(ws.headSeq()).toBe(head);
  });
});
