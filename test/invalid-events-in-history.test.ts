import { appendFileSync, cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../events/envelope.js';
import { hashEvent, serializeEvent } from '../src/store/hash.js';
import { batonIn, jsonLines } from './helpers/cli.js';
import { makeTempDir, removeTempDirs, segmentPaths, storedEvents } from './helpers/workspace.js';

/**
 * Architecture principle 4: folding never throws on history. Events that fail their schema
 * (written by an older version, another tool, or straight into the store) reach the folds, and
 * every read command still answers; `log verify` is the one that reports them (exit 3).
 */
afterAll(removeTempDirs);

const NOW = { BATON_NOW: '2026-04-17T10:00:00Z' };

/** One schema-invalid event of each domain, as another writer could leave them. */
const INVALID: readonly [string, string, Record<string, unknown>][] = [
  ['signal.sent', 'thread/th_bad', { signal_id: 'sig_bad', message: 42 }],
  ['receipt.recorded', 'thread/th_bad', { signal_id: 'sig_bad' }],
  ['session.started', 'session/session_bad', { session_id: 7 }],
  ['task.created', 'task/task_bad', { task_id: 'task_bad', label: 7 }],
  ['wu.defined', 'wu/WU-1', { wu_id: 'WU-1', lane: 5 }],
  ['wu.claimed', 'wu/WU-1', { wu_id: 'WU-1', session_id: 12 }],
  ['flow.started', 'flow/flow_bad', { flow_id: 3 }],
];

/** Where each domain's read commands list the finding (the envelope and its findings). */
type Finding = { seq: number; reason?: string; message?: string };
const listed: Record<string, (views: Record<string, unknown>) => Finding[]> = {
  coordination: (v) => [
    ...(v['roster'] as { integrity_findings: Finding[] }).integrity_findings,
    ...(v['inbox'] as { integrity_findings: Finding[] }).integrity_findings,
  ],
  tasks: (v) => (v['status'] as { baton: { integrity_findings: Finding[] } }).baton.integrity_findings,
  work_units: (v) => (v['orchestrate'] as { integrity_findings: Finding[] }).integrity_findings,
  flow: (v) => (v['flow'] as { integrity_findings: Finding[] }).integrity_findings,
};
const DOMAIN: Record<string, string> = {
  'signal.sent': 'coordination',
  'receipt.recorded': 'coordination',
  'session.started': 'coordination',
  'task.created': 'tasks',
  'wu.defined': 'work_units',
  'wu.claimed': 'work_units',
  'flow.started': 'flow',
};

/** Append `events` to the log's last segment, continuing its hash chain (bypassing validation). */
function writeStraightIntoLog(dir: string, events: readonly [string, string, Record<string, unknown>][]): number {
  const head = storedEvents(dir).at(-1)!;
  let seq = head.seq;
  let prev = head.hash;
  const firstBad = seq + 1;
  for (const [type, stream, data] of events) {
    seq += 1;
    const base: Omit<StoredEvent, 'hash'> = {
      v: 1,
      seq,
      id: `01FORGED${String(seq).padStart(18, '0')}`,
      type,
      stream,
      at: '2026-04-17T10:05:00.000Z',
      actor: 'system',
      data,
      prev,
    };
    const hash = hashEvent(base);
    appendFileSync(segmentPaths(dir).at(-1)!, serializeEvent({ ...base, hash }) + '\n');
    prev = hash;
  }
  return firstBad;
}

async function ok(dir: string, args: readonly string[]): Promise<unknown> {
  const r = await batonIn(dir, ['--json', ...args], { env: NOW });
  expect(r.code, `baton ${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(0);
  return jsonLines(r.stdout).at(-1);
}

describe('schema-invalid events in the log', () => {
  // One workspace with a session, an initiative, a WU, a task and a flow; each case works on a copy.
  let base: string;
  let session: string;
  beforeAll(async () => {
    base = makeTempDir('baton-invalid-');
    session = ((await ok(base, ['session', 'start'])) as { session: { id: string } }).session.id;
    await ok(base, ['initiative', 'create', 'INIT-1', '--title', 'One', '--lanes', 'L1']);
    await ok(base, ['wu', 'create', 'WU-1', '--initiative', 'INIT-1', '--lane', 'L1', '--title', 'T1']);
    await ok(base, ['--session', session, 'task', 'create', '--label', 'do it']);
    await ok(base, ['flow', 'init', 'Ship', 'it']);
  });

  it.each(INVALID.map(([type]) => [type]))('one invalid %s: every read command exits 0, log verify reports it (exit 3)', async (type) => {
    const dir = join(makeTempDir('baton-invalid-case-'), 'ws');
    cpSync(base, dir, { recursive: true });
    const bad = writeStraightIntoLog(
      dir,
      INVALID.filter(([t]) => t === type),
    );
    const before = readFileSync(segmentPaths(dir).at(-1)!);

    const views: Record<string, unknown> = {
      status: await ok(dir, ['status']),
      orchestrate: await ok(dir, ['orchestrate', 'status', 'INIT-1']),
      roster: await ok(dir, ['mem', 'roster']),
      inbox: await ok(dir, ['--session', session, 'mem', 'inbox']),
      tasks: await ok(dir, ['tasks']),
      flow: await ok(dir, ['flow', 'status']),
      replay: await ok(dir, ['replay', '--view', 'roster', '--to', String(bad)]),
    };
    expect(views).toMatchObject({
      status: { type: 'orchestration_status' },
      orchestrate: { type: 'initiative_status' },
      roster: { type: 'roster' },
      inbox: { type: 'inbox' },
      tasks: { type: 'orchestration_tasks' },
      flow: { type: 'flow_status' },
      replay: { type: 'roster' },
    });
    // The finding is listed by the domain's views, naming the event and the field at fault.
    const findings = listed[DOMAIN[type]!]!(views);
    expect(findings.length, JSON.stringify(views)).toBeGreaterThan(0);
    if (DOMAIN[type] !== 'tasks') {
      const mine = findings.filter((f) => f.seq === bad);
      expect(mine.length, JSON.stringify(findings)).toBeGreaterThan(0);
      expect(mine.map((f) => f.reason ?? f.message).join(' ')).toMatch(new RegExp(`invalid ${type.replace('.', '\\.')} data: data`));
    }

    const verify = await batonIn(dir, ['--json', 'log', 'verify'], { env: NOW });
    expect(verify.code).toBe(3);
    expect(JSON.parse(verify.stdout)).toMatchObject({ ok: false, first_bad: { seq: bad } });
    // Reading changed nothing in the log.
    expect(readFileSync(segmentPaths(dir).at(-1)!).equals(before)).toBe(true);
  });
});
