import { spawnSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { generateLog } from './log-fixture.js';
import { envWithout, interleaveWithNode, nodeRatioRow } from './node-reference.js';
import { formatNumber, type BenchResult } from './report.js';
import { BATON_BIN } from './short-command.js';
import { withTempDir } from './support.js';

/**
 * The spec's `status` row: `baton status` (the last stopping point: the tasks fold and the
 * work-unit fold) after 1,000,000 events, with a valid snapshot and 1,000 new events,
 * ≤ 3 × the wall time of `node -e 0` measured in the same run.
 *
 * The log: a long history of annotations written straight into the segment files (log-fixture.ts,
 * not measured), then, through the CLI, a session with tasks in several states and an initiative
 * with work units — what `status` reports. `baton status` runs once to leave its snapshots; then
 * 1,000 new events (annotations and the session's heartbeats) are appended, and each timed run
 * starts from that same snapshot with those same 1,000 events after it.
 */
export const STATUS = { name: 'baton-status', work: '`baton status` after the log, valid snapshot, 1,000 new events', maxRatio: 3, newEvents: 1000 };

function runNode(args: readonly string[], input = ''): { ms: number; stdout: string } {
  const start = performance.now();
  const result = spawnSync(process.execPath, args, {
    env: envWithout(),
    input,
    stdio: ['pipe', 'pipe', 'pipe'],
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const ms = performance.now() - start;
  if (result.status !== 0)
    throw new Error(
      `node ${args.slice(0, 6).join(' ')} exited with ${result.status}: ${String(result.stderr).trim() || String(result.stdout).trim().slice(0, 500)}`,
    );
  return { ms, stdout: result.stdout };
}

function lastEnvelope(stdout: string): Record<string, unknown> {
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
}

/** What `status` reports: a session, tasks in several states, an initiative with three WUs. Returns the session id and the number of events written. */
export function writeHead(dir: string): { session: string; events: number } {
  const baton = (...args: string[]): Record<string, unknown> => lastEnvelope(runNode([BATON_BIN, '--dir', dir, '--json', ...args]).stdout);
  const started = baton('session', 'start', '--agent-identity', 'bench:agent:1', '--goal', 'ship the release');
  const session = (started['session'] as { id: string }).id;
  const as = (...args: string[]): Record<string, unknown> => baton('--session', session, ...args);
  const tasks: string[] = [];
  for (const label of ['scan the repo', 'write the migration', 'run the suite', 'review the diff', 'update the docs']) {
    tasks.push((as('task', 'create', '--label', label, '--state', 'running')['task'] as { id: string }).id);
  }
  as('task', 'transition', tasks[0]!, 'completed', '--summary', 'scanned');
  as('task', 'transition', tasks[1]!, 'blocked', '--reason', 'waiting for the schema review');
  as(
    'task',
    'transition',
    tasks[2]!,
    'waiting_for_user',
    '--checkpoint-id',
    'cp-1',
    '--checkpoint-kind',
    'manual_verification',
    '--checkpoint-summary',
    'check the staging run',
  );
  baton('initiative', 'create', 'INIT-1', '--title', 'Release', '--lanes', 'Core,Docs');
  baton('wu', 'create', 'WU-1', '--initiative', 'INIT-1', '--lane', 'Core', '--title', 'Schema');
  baton('wu', 'create', 'WU-2', '--initiative', 'INIT-1', '--lane', 'Core', '--title', 'Migration', '--deps', 'WU-1');
  baton('wu', 'create', 'WU-3', '--initiative', 'INIT-1', '--lane', 'Docs', '--title', 'Docs');
  const head = lastEnvelope(runNode([BATON_BIN, '--dir', dir, '--json', 'log', 'stats']).stdout);
  return { session, events: head['head_seq'] as number };
}

/** `count` new events: annotations, every tenth a heartbeat of the session. */
export function newEvents(session: string, count: number): string {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    lines.push(
      i % 10 === 9
        ? JSON.stringify({ type: 'session.heartbeat', stream: `session/${session}`, data: { session_id: session } })
        : JSON.stringify({ type: 'note.recorded', stream: 'note/bench', data: { text: `after the snapshot ${i}` } }),
    );
  }
  return `${lines.join('\n')}\n`;
}

export async function benchStatus(options: { events: number; runs: number }): Promise<BenchResult> {
  return withTempDir('status', async (dir) => {
    const headEvents = 20;
    generateLog(dir, Math.max(1, options.events - STATUS.newEvents - headEvents));
    runNode([BATON_BIN, '--dir', dir, '--json', 'init']);
    const { session, events: snapshotSeq } = writeHead(dir);
    const status = [BATON_BIN, '--dir', dir, '--json', '--session', session, 'status'];
    runNode(status); // leaves the snapshots at the head
    runNode([BATON_BIN, '--dir', dir, '--json', 'log', 'append', '--events', '-', '--batch'], newEvents(session, STATUS.newEvents));
    const cache = join(dir, '.baton', 'cache');
    const saved = join(dir, 'cache-saved');
    cpSync(cache, saved, { recursive: true });

    const once = (): { ms: number; stdout: string } => {
      // Each run starts from the same snapshots with the same 1,000 events after them.
      rmSync(cache, { recursive: true, force: true });
      cpSync(saved, cache, { recursive: true });
      return runNode(status);
    };
    const shown = lastEnvelope(once().stdout);
    if (shown['type'] !== 'orchestration_status') throw new Error(`status printed ${String(shown['type'])}: ${JSON.stringify(shown).slice(0, 300)}`);
    const { nodeMs, commandMs: statusMs } = interleaveWithNode(
      options.runs,
      () => runNode(['-e', '0']).ms,
      () => once().ms,
    );
    const work = `\`baton status\` after ${formatNumber(snapshotSeq + STATUS.newEvents)} events, valid snapshot, ${formatNumber(STATUS.newEvents)} new events`;
    return nodeRatioRow(STATUS, { nodeMs, commandMs: statusMs, runs: 'runs of `baton --session … status`', work }, () => [
      `snapshots at seq ${formatNumber(snapshotSeq)}, then ${formatNumber(STATUS.newEvents)} new events (annotations and heartbeats) folded by each run`,
    ]);
  });
}
