import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { generateLumenflowRepository, WU_DIR, type GeneratedRepo, type RepoShape } from './lumenflow-repo.js';
import { envWithout } from './node-reference.js';
import { BATON_BIN } from './short-command.js';
import { makeTempDir } from './support.js';

/**
 * The workspaces the reads-at-scale rows run in, made the way a user makes them: a generated
 * LumenFlow repository (lumenflow-repo.ts), `baton init` in it, `baton import lumenflow` of it
 * through the built CLI (timed: first run, then an unchanged re-run), and a copy with the WU YAML
 * probe configured. Made once per size and kept under a temp dir for the rest of the bench run.
 */
export interface ScaleWorkspace {
  repo: GeneratedRepo;
  /** The workspace without probes, and its copy with `probes.wu_yaml_paths` naming the WU folder. */
  off: string;
  on: string;
  events: number;
  logBytes: number;
  snapshotBytes: number;
  initMs: number;
  importFirstMs: number;
  importRerunMs: number;
  copyMs: number;
}

export interface Timed {
  ms: number;
  stdout: string;
  stderr: string;
}

/** `node ARGS` to completion, its wall time; throws (naming the command and its error) on a non-zero exit. */
export function runNode(args: readonly string[]): Timed {
  const start = performance.now();
  const r = spawnSync(process.execPath, args, { env: envWithout(), stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const ms = performance.now() - start;
  if (r.status !== 0) {
    const said = String(r.stdout).trim().split('\n').at(-1) ?? '';
    throw new Error(`node ${args.slice(1, 8).join(' ')} exited with ${r.status}: ${String(r.stderr).trim().slice(0, 400) || said.slice(0, 400)}`);
  }
  return { ms, stdout: r.stdout, stderr: r.stderr };
}

/** The last line a `--json` command printed, parsed (its envelope). */
export function envelopeOf<T>(timed: Timed): T {
  return JSON.parse(timed.stdout.trim().split('\n').at(-1)!) as T;
}

export function baton(dir: string, ...args: string[]): string[] {
  return [BATON_BIN, '--dir', dir, '--json', ...args];
}

function bytesIn(folder: string): number {
  return readdirSync(folder).reduce((sum, name) => sum + statSync(join(folder, name)).size, 0);
}

function make(shape: RepoShape, log: (text: string) => void): ScaleWorkspace {
  const base = makeTempDir(`reads-${shape.label}`);
  const off = join(base, 'probe-off');
  const repo = generateLumenflowRepository(off, shape);
  const initMs = runNode(baton(off, 'init')).ms;
  const first = runNode(baton(off, 'import', 'lumenflow', off));
  const appended = envelopeOf<{ appended: number }>(first).appended;
  if (appended !== repo.expectedEvents) throw new Error(`import lumenflow appended ${appended} events, the generator expected ${repo.expectedEvents}`);
  const rerun = runNode(baton(off, 'import', 'lumenflow', off));
  const again = envelopeOf<{ appended: number }>(rerun).appended;
  if (again !== 0) throw new Error(`the unchanged re-import appended ${again} events`);
  const copyStart = performance.now();
  const on = join(base, 'probe-on');
  cpSync(off, on, { recursive: true });
  appendFileSync(join(on, '.baton', 'config.yaml'), `probes:\n  wu_yaml_paths:\n    - ${WU_DIR}\n`);
  const copyMs = performance.now() - copyStart;
  const ws: ScaleWorkspace = {
    repo,
    off,
    on,
    events: appended,
    logBytes: bytesIn(join(off, '.baton', 'log')),
    snapshotBytes: statSync(join(off, '.baton', 'cache', 'work_units.snapshot.json')).size,
    initMs,
    importFirstMs: first.ms,
    importRerunMs: rerun.ms,
    copyMs,
  };
  log(
    `(${shape.label}: generated ${repo.shape.wus.toLocaleString('en-US')} WUs in ${Math.round(repo.generateMs)} ms, init ${Math.round(initMs)} ms, ` +
      `import ${Math.round(first.ms)} ms (${appended.toLocaleString('en-US')} events), re-run ${Math.round(rerun.ms)} ms, probe copy ${Math.round(copyMs)} ms)`,
  );
  return ws;
}

const made = new Map<string, ScaleWorkspace>();

/** The workspace of this shape, made on first use in this run. */
export function scaleWorkspace(shape: RepoShape, log: (text: string) => void = console.log): ScaleWorkspace {
  const key = `${shape.label}/${shape.wus}/${shape.seed}`;
  let ws = made.get(key);
  if (ws === undefined) {
    ws = make(shape, log);
    made.set(key, ws);
  }
  return ws;
}
