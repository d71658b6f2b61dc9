import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { envWithout } from './node-reference.js';
import { formatNumber, type BenchResult } from './report.js';
import { BATON_BIN } from './short-command.js';
import { median, withTempDir } from './support.js';

/**
 * The audit's budget: `baton audit` of a 100,000-event log over a git repository of 1,000 commits
 * ≤ 3 s, with the split printed (folding the log, git, the files, the findings) as the audit's own
 * envelope reports it. The log: 50 sessions, 200 WUs with code paths, their claims, checkpoints and
 * heartbeats, 100 of them stamped done, the rest filler notes. The repository (one `git
 * fast-import`): a main line, a branch per WU with a commit on its code paths, half the done WUs'
 * branches merged. The row is a cold run (no snapshot: what an auditor's first run costs); a run
 * from the snapshots the first one left is printed beside it.
 */
export const AUDIT = { name: 'audit', work: '`baton audit`, 100,000 events, 1,000 commits (cold: no snapshot)', budgetMs: 3000 };
const T0 = Date.parse('2026-04-17T10:00:00.000Z');
const APPENDED_AT = new Date(T0).toISOString();
const AUDIT_AT = new Date(T0 + 3600_000).toISOString();
const SESSIONS = 50;
const WUS = 200;
const DONE = 100;

function run(args: readonly string[], options: { cwd?: string; input?: string; now?: string } = {}): { ms: number; stdout: string } {
  const start = performance.now();
  const r = spawnSync(args[0]!, args.slice(1), {
    cwd: options.cwd,
    env: { ...envWithout(), BATON_NOW: options.now ?? APPENDED_AT, GIT_CONFIG_NOSYSTEM: '1' },
    input: options.input ?? '',
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const ms = performance.now() - start;
  // `baton audit` exits 3 when it finds errors: that is its answer here, not a failure.
  if (r.status !== 0 && !(args.includes('audit') && r.status === 3))
    throw new Error(`${args.slice(0, 5).join(' ')} exited ${r.status}: ${String(r.stderr).slice(0, 500)}`);
  return { ms, stdout: r.stdout };
}

const session = (n: number): string => `session_bench${String(n).padStart(3, '0')}`;

/** The i-th event of the log, as a `log append --events` line. */
function line(i: number, events: number): string {
  if (i < SESSIONS)
    return JSON.stringify({
      type: 'session.started',
      stream: `session/${session(i)}`,
      data: { session_id: session(i), display_name: `B${i}`, ttl_seconds: 14_400 },
    });
  const n = ((i - SESSIONS) % WUS) + 1;
  const wu = `WU-${n}`;
  if (i < SESSIONS + WUS)
    return JSON.stringify({ type: 'wu.defined', stream: `wu/${wu}`, data: { wu_id: wu, title: wu, lane: `L${n}`, code_paths: [`src/w${n}`] } });
  const who = session(n % SESSIONS);
  if (i < SESSIONS + 2 * WUS)
    return JSON.stringify({
      type: 'wu.claimed',
      stream: `wu/${wu}`,
      data: { wu_id: wu, session_id: who, mode: 'branch-only', worktree_path: null, branch: `lane/x/wu-${n}`, takeover_from: null },
    });
  if (i >= events - DONE) {
    const done = `WU-${i - (events - DONE) + 1}`;
    return JSON.stringify({
      type: 'wu.stamped',
      stream: `wu/${done}`,
      data: { wu_id: done, title: done, completed_date: '2026-04-17', stamp_path: `.baton/stamps/${done}.done` },
    });
  }
  if (i % 10 === 0)
    return JSON.stringify({
      type: 'wu.checkpointed',
      stream: `wu/${wu}`,
      data: { wu_id: wu, session_id: who, note: `step ${i}`, progress: null, next_steps: null },
    });
  if (i % 7 === 0) return JSON.stringify({ type: 'session.heartbeat', stream: `session/${who}`, data: { session_id: who } });
  return JSON.stringify({ type: 'note.recorded', stream: 'note/bench', data: { text: `filler ${i}` } });
}

/** 1,000 commits in one `git fast-import`: per WU three main commits and one on its branch (half the done ones merged), then more main commits. */
function fastImport(): { stream: string; commits: number } {
  const out: string[] = [];
  let mark = 0;
  let mainMark = 0;
  let commits = 0;
  const when = (): number => Math.floor((T0 - 1000 * 60_000 + commits * 60_000) / 1000);
  const commit = (ref: string, from: number, path: string, extra = ''): number => {
    mark += 1;
    const message = `change ${path}`;
    out.push(`commit ${ref}`, `mark :${mark}`, `committer t <t@t> ${when()} +0000`, `data ${Buffer.byteLength(message)}`, message);
    if (from > 0) out.push(`from :${from}`);
    if (extra !== '') out.push(extra);
    const content = `${path} ${mark}\n`;
    out.push(`M 644 inline ${path}`, `data ${Buffer.byteLength(content)}`, content);
    commits += 1;
    return mark;
  };
  for (let n = 1; n <= WUS; n++) {
    for (let k = 0; k < 3; k++) mainMark = commit('refs/heads/main', mainMark, `src/common/f${n}-${k}.txt`);
    const branch = commit(`refs/heads/lane/x/wu-${n}`, mainMark, `src/w${n}/work.ts`);
    if (n <= DONE && n % 2 === 0) mainMark = commit('refs/heads/main', mainMark, `src/common/merge-${n}.txt`, `merge :${branch}`);
  }
  while (commits < 1000) mainMark = commit('refs/heads/main', mainMark, `src/common/tail-${commits}.txt`);
  return { stream: `${out.join('\n')}\n`, commits };
}

interface AuditTimings {
  replay: number;
  git: number;
  disk: number;
  findings: number;
}

function auditOnce(dir: string): { ms: number; timings: AuditTimings; findings: number; seq: number } {
  const r = run([process.execPath, BATON_BIN, '--dir', dir, '--json', 'audit'], { now: AUDIT_AT });
  const envelope = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { timings_ms: AuditTimings; findings: unknown[]; as_of: { seq: number } };
  return { ms: r.ms, timings: envelope.timings_ms, findings: envelope.findings.length, seq: envelope.as_of.seq };
}

/** The repository and the log of the bench in `dir` (an empty folder); the number of commits. */
export function auditFixture(dir: string, events: number): number {
  run(['git', 'init', '-q', '-b', 'main', dir]);
  const repo = fastImport();
  run(['git', 'fast-import', '--quiet'], { cwd: dir, input: repo.stream });
  run(['git', 'checkout', '-q', '-f', 'main'], { cwd: dir });
  writeFileSync(join(dir, '.gitignore'), '.baton/\n');
  run([process.execPath, BATON_BIN, '--dir', dir, '--json', 'init']);
  for (let start = 0; start < events; start += 20_000) {
    const lines: string[] = [];
    for (let i = start; i < Math.min(events, start + 20_000); i++) lines.push(line(i, events));
    run([process.execPath, BATON_BIN, '--dir', dir, '--json', 'log', 'append', '--events', '-', '--batch'], { input: `${lines.join('\n')}\n` });
  }
  return repo.commits;
}

export async function benchAudit(options: { events: number; runs: number }): Promise<BenchResult> {
  return withTempDir('audit', async (dir) => {
    const commits = auditFixture(dir, options.events);
    const cache = join(dir, '.baton', 'cache');
    const nodeMs: number[] = [];
    const cold: ReturnType<typeof auditOnce>[] = [];
    const warm: ReturnType<typeof auditOnce>[] = [];
    for (let i = 0; i < options.runs; i++) {
      nodeMs.push(run([process.execPath, '-e', '0']).ms);
      rmSync(cache, { recursive: true, force: true });
      cold.push(auditOnce(dir));
      warm.push(auditOnce(dir));
    }
    if (cold[0]!.seq !== options.events) throw new Error(`audit: audited seq ${cold[0]!.seq}, expected the head ${options.events}`);
    const wall = median(cold.map((c) => c.ms));
    const split = (runs: readonly ReturnType<typeof auditOnce>[]): string =>
      `replay ${formatNumber(median(runs.map((r) => r.timings.replay)))} ms, git ${formatNumber(median(runs.map((r) => r.timings.git)))} ms, files ${formatNumber(median(runs.map((r) => r.timings.disk)))} ms, findings ${formatNumber(median(runs.map((r) => r.timings.findings)))} ms`;
    const node = median(nodeMs);
    return {
      name: AUDIT.name,
      work: AUDIT.work,
      baton: {
        value: wall,
        unit: 'ms',
        detail: `median of ${options.runs} cold runs over ${formatNumber(options.events)} events and ${commits} commits (min ${formatNumber(Math.min(...cold.map((c) => c.ms)), 1)})`,
      },
      limit: { value: node, unit: 'ms', detail: '`node -e 0`, the same runs' },
      ratio: wall / node,
      ratioLabel: 'baton / node -e 0',
      floor: `≤ ${formatNumber(AUDIT.budgetMs)} ms`,
      pass: wall <= AUDIT.budgetMs,
      notes: [
        `split (cold, as the envelope reports it): ${split(cold)}; ${cold[0]!.findings} findings`,
        `from the snapshots the cold run left: median ${formatNumber(median(warm.map((w) => w.ms)), 1)} ms (${split(warm)})`,
        `load average during the bench: ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
      ],
    };
  });
}
