import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCatalog } from '../../events/index.js';
import { DEFAULT_WORK_UNITS_CONFIG } from '../../projections/work-units/settings.js';
import { describeError } from '../../src/app/error-envelope.js';
import { MemoryEventStore } from '../../src/store/memory-store.js';
import { runInitiative } from '../../src/work-units/bundle.js';
import { createInitiative, createWu } from '../../src/work-units/definitions.js';
import type { WorkUnitsEnv } from '../../src/work-units/env.js';
import { importWuYaml } from '../../src/work-units/import.js';
import { updateInitiative } from '../../src/work-units/initiative-update.js';
import { claimWu } from '../../src/work-units/lifecycle.js';
import { initiativePlan } from '../../src/work-units/orchestrate.js';

/**
 * The work-unit domain names its inputs by their domain fields (`dependencies`, `max_active_workers`,
 * `initiative`), never by the CLI's flags or arguments (`--deps`, `INIT`): a library caller reads the
 * field, and each surface names it its own way (the CLI its flag, MCP its argument).
 */
const NOW = '2026-06-01T10:00:00.000Z';
const catalog = createCatalog();
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function env(): Promise<WorkUnitsEnv & { store: MemoryEventStore }> {
  const store = new MemoryEventStore({ catalog, now: () => NOW });
  const workspace = mkdtempSync(join(tmpdir(), 'baton-fields-'));
  dirs.push(workspace);
  const e = { store, catalog, config: DEFAULT_WORK_UNITS_CONFIG, now: NOW, session: undefined, actor: 'system', workspace };
  await createInitiative(e, { initiative: 'INIT-1', title: 'One', lanes: ['Core'] });
  await createWu(e, { wu: 'WU-1', initiative: 'INIT-1', lane: 'Core' });
  return e;
}

/** The error as a surface that names every field by itself (MCP's way) describes it: code, message, details. */
async function described(run: Promise<unknown>): Promise<{ code: string; message: string; details: Record<string, unknown> | undefined }> {
  try {
    await run;
  } catch (error) {
    return describeError(error, (field) => field);
  }
  throw new Error('the command was not refused');
}

describe('work-unit refusals name the domain field', () => {
  it('wu claim: a bad mode, a worktree for a branch-only claim', async () => {
    // A claim needs a holder: the caller acts as an agent identity, so the refusals below are the input's.
    const e = { ...(await env()), actor: 'agent:fields' };
    const mode = await described(claimWu(e, 'WU-1', { mode: 'fork' }));
    expect(mode).toMatchObject({ code: 'INVALID_INPUT', details: { problems: [{ field: 'mode' }] } });
    expect(mode.message).toMatch(/^mode: must be one of /);
    const worktree = await described(claimWu(e, 'WU-1', { mode: 'branch-only', worktree: 'wt' }));
    expect(worktree).toMatchObject({ code: 'INVALID_INPUT', details: { field: 'worktree' } });
    expect(worktree.message).toMatch(/^worktree: a branch-only claim has no worktree/);
    expect(await described(claimWu(e, 'WU-x', {}))).toMatchObject({ message: 'wu: must match ^WU-[0-9]{1,9}$, got "WU-x"', details: { field: 'wu' } });
  });

  it('wu create: dependencies (the CLI says --deps), code_paths and an item of a list', async () => {
    const e = await env();
    const self = await described(createWu(e, { wu: 'WU-2', initiative: 'INIT-1', lane: 'Core', dependencies: ['WU-2'] }));
    expect(self).toEqual({ code: 'INVALID_INPUT', message: 'dependencies: WU-2 may not depend on itself', details: { field: 'dependencies' } });
    const paths = await described(createWu(e, { wu: 'WU-2', initiative: 'INIT-1', lane: 'Core', code_paths: ['../outside'] }));
    expect(paths.details).toMatchObject({ problems: [{ field: 'code_paths.0' }] });
    expect(paths.message).not.toContain('--');
    const lane = await described(createWu(e, { wu: 'WU-2', initiative: 'INIT-1', lane: 'Ops' }));
    expect(lane).toMatchObject({ code: 'INVALID_INPUT', details: { field: 'lane' } });
  });

  it('initiative update: the initiative, and the fields it can change in domain words', async () => {
    const e = await env();
    expect(await described(updateInitiative(e, { initiative: 'INIT-9', status: 'done' }))).toMatchObject({
      code: 'UNKNOWN_ID',
      message: 'initiative: Initiative INIT-9 not found',
      details: { field: 'initiative', initiative: 'INIT-9' },
    });
    expect(await described(updateInitiative(e, { initiative: 'INIT-1' }))).toMatchObject({
      code: 'INVALID_INPUT',
      message: 'fields: give at least one field to change (title, status, slug, lanes, wus, priority, owner, created, target_date)',
    });
    const bad = await described(updateInitiative(e, { initiative: 'INIT-1', wus: ['WU-x'] }));
    expect(bad.details).toMatchObject({ problems: [{ field: 'wus.0' }] });
  });

  it('orchestrate: initiative, max_active_workers and client', async () => {
    const e = await env();
    expect(await described(initiativePlan(e, '../etc', {}))).toMatchObject({ code: 'INVALID_INPUT', details: { field: 'initiative' } });
    expect(await described(initiativePlan(e, 'INIT-1', { max_active_workers: '-1' }))).toEqual({
      code: 'INVALID_INPUT',
      message: 'max_active_workers: must be an integer from 0 to 1000',
      details: { field: 'max_active_workers' },
    });
    const client = await described(runInitiative(e, 'INIT-1', { client: 'vim' }));
    expect(client).toMatchObject({ code: 'INVALID_INPUT', details: { field: 'client' } });
    expect(client.message).toMatch(/^client: must be one of /);
  });
});

describe('wu import through the decider', () => {
  it('appends a changed file once: the same import again appends nothing', async () => {
    const e = await env();
    const file = join(e.workspace, 'WU-1.yaml');
    writeFileSync(file, 'id: WU-1\ntitle: Parser\nlane: Core\nstatus: ready\n');
    const first = await importWuYaml(e, [file]);
    expect(first).toMatchObject({ appended: 1, files: [{ wu_id: 'WU-1', result: 'defined' }] });
    const head = (await e.store.head()).seq;
    expect(await importWuYaml(e, [file])).toMatchObject({ appended: 0, files: [{ wu_id: 'WU-1', result: 'unchanged' }] });
    expect((await e.store.head()).seq).toBe(head);
  });

  it('acting as a session that does not exist is refused UNKNOWN_SESSION, nothing appended', async () => {
    const e = await env();
    const file = join(e.workspace, 'WU-1.yaml');
    writeFileSync(file, 'id: WU-1\ntitle: Parser\nlane: Core\nstatus: ready\n');
    const head = (await e.store.head()).seq;
    const ghost = 'session_cccccccccccccccccccccccc';
    expect((await described(importWuYaml({ ...e, session: ghost, actor: ghost }, [file]))).code).toBe('UNKNOWN_SESSION');
    expect((await e.store.head()).seq).toBe(head);
  });
});
