import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { runCli, type CliRun } from './cli.js';
import type { Place } from './fuzz-traps.js';
import { record, type CampaignResult } from './outcome.js';
import { changedPaths, snapshotTree } from './tree.js';

/**
 * One fuzzed `baton` invocation and the checks every one of them must pass: it never exits 1 (or
 * dies of a signal), never hangs past its time-out; a refusal changes nothing (exit 2: nothing in
 * the workspace but its rebuildable `.baton/cache/`; any other refusal: nothing under `.baton/log/`
 * and nothing outside `.baton/`); and nothing outside the workspace is created or changed but what
 * its arguments name (an export's `--out`, a `--dir`).
 */
export interface InvocationCheck {
  /** The exits this draw must end with; any but 1 when not given. */
  exits?: readonly number[];
  /** The paths the arguments name, which it may write (with everything inside them). */
  named: readonly string[];
  /** The workspace whose refusal is checked: the epoch's by default; null when it cannot be looked at (`/proc/self`). */
  workspace?: string | null;
  /** The whole workspace, its `.baton/cache` included, must stay as it was whatever the exit (a workspace of an odd shape). */
  strict?: boolean;
  timeoutMs: number;
  /** Run a draw that timed out once more, alone, before calling it a hang (a starved process is not a hung one). */
  rerunOnTimeout: boolean;
}

const CACHE = join('.baton', 'cache');
const LOG = join('.baton', 'log');
const under = (rel: string, folder: string): boolean => rel === folder || rel.startsWith(folder + sep);

/** What a refusal other than exit 2 must leave alone: the log's files and everything outside `.baton/`. */
function refusalGuards(rel: string, entry: string | undefined): boolean {
  if (!under(rel, '.baton')) return true;
  return under(rel, LOG) && entry !== 'dir';
}

/** The real path of `path`, through links, for as much of it as exists. */
function realish(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : join(realish(parent), basename(path));
  }
}

function insideOf(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || !(rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel));
}

export function describeArgs(args: readonly string[]): string {
  return `baton ${args.map((a) => (a.length > 60 ? `${JSON.stringify(a.slice(0, 40))}…(${a.length})` : JSON.stringify(a))).join(' ')}`;
}

export async function checkedInvocation(
  args: readonly string[],
  env: Record<string, string>,
  place: Place,
  result: CampaignResult,
  check: InvocationCheck,
): Promise<CliRun> {
  const workspace = check.workspace === undefined ? place.ws : check.workspace;
  const homeRel = relative(place.home, workspace ?? place.ws);
  const notWorkspace = (rel: string): boolean => under(rel, homeRel);
  const snapshotWorkspace = (): Map<string, string> => (workspace === null ? new Map() : snapshotTree(workspace));
  const beforeWs = snapshotWorkspace();
  const beforeHome = snapshotTree(place.home, notWorkspace);
  let r = await runCli(args, { env, cwd: place.scratch, timeoutMs: check.timeoutMs });
  const shown = `${describeArgs(args)} → ${r.code ?? r.signal}`;
  result.checked += 1;
  const exit = String(r.timedOut ? 'timeout' : (r.code ?? r.signal));
  result.exits ??= {};
  result.exits[exit] = (result.exits[exit] ?? 0) + 1;
  const interrupted = r.timedOut;
  if (r.timedOut && check.rerunOnTimeout) {
    // A hang is a failure too, told apart from exit 1: on a machine this loaded (the long run goes
    // at nice 19) a process can also be starved that long, so it is re-run once alone.
    r = await runCli(args, { env, cwd: place.scratch, timeoutMs: check.timeoutMs });
  }
  const said = (r.stdout + r.stderr).slice(0, 300).replace(/\s+/g, ' ');
  if (r.timedOut) record(result, 'hung', `${shown}: killed after ${check.timeoutMs / 1000} s${check.rerunOnTimeout ? ', twice' : ''}`);
  else if (r.code === 1 || r.code === null) record(result, 'exit1', `${shown}: ${said}`);
  else if (check.exits !== undefined && !check.exits.includes(r.code)) record(result, 'otherFailures', `${shown}: not ${check.exits.join(' or ')}: ${said}`);
  // A child killed by its time-out may have been stopped half-way: what it left is no refusal's.
  if ((r.code !== 0 || check.strict === true) && !interrupted && workspace !== null) {
    const afterWs = snapshotWorkspace();
    const changed = changedPaths(beforeWs, afterWs).filter((rel) => {
      if (check.strict === true) return true;
      if (r.code === 2) return !under(rel, CACHE);
      return refusalGuards(rel, afterWs.get(rel) ?? beforeWs.get(rel));
    });
    // An answer (exit 0) that reshaped an odd workspace is no refusal, but no less a failure.
    if (changed.length > 0) record(result, r.code === 0 ? 'otherFailures' : 'changedOnRefusal', `${shown}: changed ${changed.slice(0, 3).join(', ')}`);
  }
  const allowed = check.named.filter((p) => p.trim() !== '').map((p) => realish(resolve(place.scratch, p)));
  const outside = changedPaths(beforeHome, snapshotTree(place.home, notWorkspace))
    .map((rel) => join(place.home, rel))
    .filter((path) => !allowed.some((a) => insideOf(a, path)));
  if (outside.length > 0) record(result, 'writesOutside', `${shown}: wrote ${outside.slice(0, 3).join(', ')}`);
  return r;
}
