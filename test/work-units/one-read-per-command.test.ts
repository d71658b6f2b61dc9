import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EventStore } from '../../src/store/contract.js';
import { createCatalog } from '../../events/index.js';
import { DEFAULT_WORK_UNITS_CONFIG } from '../../projections/work-units/settings.js';
import { MemoryEventStore } from '../../src/store/memory-store.js';
import { isBatonError } from '../../src/errors.js';
import type { WorkUnitsEnv } from '../../src/work-units/env.js';
import { checkpointWu, claimWu } from '../../src/work-units/lifecycle.js';
import { importWuYaml } from '../../src/work-units/import.js';
import { importLumenflow } from '../../src/integrations/lumenflow/import.js';
import { CountingStore } from '../helpers/counting-store.js';

/**
 * A `wu` lifecycle command reads the log once: one pass of the work-unit fold answers the decider,
 * the acting session's identity check and its takeover question; and a library caller acting as a
 * session that does not exist, or has ended, is refused UNKNOWN_SESSION like the CLI is.
 */
const NOW = '2026-06-01T10:00:00.000Z';
const catalog = createCatalog();

const A = 'session_aaaaaaaaaaaaaaaaaaaaaaaa';
const B = 'session_bbbbbbbbbbbbbbbbbbbbbbbb';
const started = (id: string, name: string, at: string) => ({
  type: 'session.started',
  stream: `session/${id}`,
  data: { session_id: id, display_name: name, ttl_seconds: 3600 },
  at,
});
const defined = (wu: string) => ({
  type: 'wu.defined',
  stream: `wu/${wu}`,
  data: { wu_id: wu, title: wu, lane: 'Core API', dependencies: [], code_paths: [] },
});

async function setup(): Promise<CountingStore> {
  const memory = new MemoryEventStore({ catalog, now: () => NOW });
  await memory.append([started(A, 'Planck', NOW), started(B, 'Noether', NOW), defined('WU-1'), defined('WU-2')]);
  await memory.append([{ type: 'session.ended', stream: `session/${B}`, data: { session_id: B, status: 'succeeded' } }]);
  return new CountingStore(memory);
}

const envFor = (store: EventStore, session: string | undefined, now = NOW): WorkUnitsEnv => ({
  store,
  catalog,
  config: DEFAULT_WORK_UNITS_CONFIG,
  now,
  session,
  actor: session ?? 'system',
  workspace: '/nowhere',
});

async function refusal(run: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await run;
  } catch (error) {
    if (isBatonError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('the command was not refused');
}

describe('one read per wu command, one meaning of live', () => {
  it('wu claim reads the log exactly once', async () => {
    const store = await setup();
    const claimed = await claimWu(envFor(store, A), 'WU-1', {});
    expect(claimed.claim?.session_id).toBe(A);
    expect(store.reads).toBe(1);
  });

  it('wu checkpoint reads the log exactly once too', async () => {
    const store = await setup();
    await claimWu(envFor(store, A), 'WU-1', {});
    store.reads = 0;
    await checkpointWu(envFor(store, A), 'WU-1', { note: 'halfway' });
    expect(store.reads).toBe(1);
  });

  it('a library caller acting as an unknown session is refused UNKNOWN_SESSION, nothing appended', async () => {
    const store = await setup();
    const head = (await store.head()).seq;
    const unknown = await refusal(claimWu(envFor(store, 'session_cccccccccccccccccccccccc'), 'WU-1', {}));
    expect(unknown.code).toBe('UNKNOWN_SESSION');
    expect(unknown.message).toContain('session_cccccccccccccccccccccccc names no live session (no session has that id or live display name)');
    expect((await store.head()).seq).toBe(head);
  });

  it('an ended session is refused UNKNOWN_SESSION naming how it ended; a session idle past its TTL may still act', async () => {
    const store = await setup();
    const ended = await refusal(claimWu(envFor(store, B), 'WU-1', {}));
    expect([ended.code, ended.message]).toEqual([
      'UNKNOWN_SESSION',
      `session: ${B} names no live session (it ended (succeeded)); start one with \`baton session start\`. Nothing was appended`,
    ]);
    // Two hours later A is stale (TTL one hour): it still acts as itself, and its claim of WU-2 stands.
    const later = '2026-06-01T12:00:00.000Z';
    expect((await claimWu(envFor(store, A, later), 'WU-2', {})).claim?.session_id).toBe(A);
  });

  it('a stale claimant is taken over by a live session (explicitly, with a reason); the claimant itself may still act on it', async () => {
    const store = await setup();
    await claimWu(envFor(store, A), 'WU-1', {});
    const later = '2026-06-01T12:00:00.000Z';
    const C = 'session_dddddddddddddddddddddddd';
    await store.append([started(C, 'Dirac', later)]);
    expect((await refusal(claimWu(envFor(store, C, later), 'WU-1', {}))).code).toBe('NOT_HOLDER');
    const takeover = await claimWu(envFor(store, C, later), 'WU-1', { takeover: true, reason: 'A went quiet past its lease' });
    expect(takeover.claim?.takeover_from).toBe(A);
  });

  it('wu import and import lumenflow read the log once, and decide on it: a second run appends nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-one-read-'));
    try {
      const wuDir = join(dir, 'docs/operations/tasks/wu');
      mkdirSync(wuDir, { recursive: true });
      mkdirSync(join(dir, '.lumenflow/state'), { recursive: true });
      writeFileSync(join(wuDir, 'WU-3.yaml'), 'id: WU-3\ntitle: Three\nlane: Core API\nstatus: ready\n');
      writeFileSync(join(dir, '.lumenflow/state/wu-events.jsonl'), '{"type":"claim","wuId":"WU-3","timestamp":"2026-05-01T09:00:00.000Z"}\n');
      const store = await setup();
      const env = { ...envFor(store, A), workspace: dir };
      expect((await importWuYaml(env, [wuDir])).appended).toBe(1);
      expect(store.reads).toBe(1);
      store.reads = 0;
      const options = { repo: dir, cwd: dir, dryRun: false, skipInvalid: false };
      const imported = await importLumenflow(env, options);
      expect([imported.appended, imported.wus.unchanged, imported.wu_events.imported]).toEqual([1, 1, 1]);
      expect(store.reads).toBe(1);
      store.reads = 0;
      expect((await importLumenflow(env, options)).appended).toBe(0);
      expect(store.reads).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
