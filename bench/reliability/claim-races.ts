import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { findPostgresBin, startPostgresCluster, type PostgresCluster } from '../../test/helpers/postgres-cluster.js';
import { childCommand } from '../support.js';
import { ClaimRaceTally, skippedRaces, type ClaimRaceResult, type RaceOutcome, type RacerOutcome } from './claim-race-check.js';
import { BATON_BIN, childEnv, runCli } from './cli.js';
import { record, violations } from './outcome.js';

/**
 * The claim races: `racers` real `baton` processes, each acting as its own started session, claim
 * the same fresh WU at one start gun (claim-racer.ts), race after race. On the JSONL store they
 * share one workspace; on PostgreSQL two workspaces ("hosts", each its own folder and cache) point
 * at one database and workspace id, half the racers in each. Every race must have exactly one
 * winner (exit 0), every loser must exit 4 naming it, and the log must hold exactly one claim of the
 * WU, the winner's (claim-race-check.ts). Every few races one session claims a WU of its own with
 * nobody racing it: the uncontended latency beside the contended one.
 */
export const ClaimRaceStore = { jsonl: 'jsonl', postgres: 'postgres' } as const;
export type ClaimRaceStore = (typeof ClaimRaceStore)[keyof typeof ClaimRaceStore];

export interface ClaimRaceOptions {
  store: ClaimRaceStore;
  races: number;
  racers: number;
  root: string;
  /** An uncontended claim after every this many races (default 4). */
  uncontendedEvery?: number;
  /** Told every `progressEvery` races (default 50), and of the setup. */
  log?: (line: string) => void;
  progressEvery?: number;
}

/** No claim takes this long, even on a loaded machine: past it, a hang. */
const RACER_TIMEOUT_MS = 120_000;
/** The workspace id both hosts of the PostgreSQL races share. */
const SHARED_WORKSPACE_ID = 'claim-races';

interface Host {
  name: string;
  dir: string;
}
interface Racer {
  host: Host;
  session: string;
}

/** Why the PostgreSQL races cannot run here, or undefined when they can. */
export function postgresRaceSkipReason(): string | undefined {
  return findPostgresBin()
    ? undefined
    : 'no PostgreSQL server binaries (initdb, pg_ctl) on this machine; install postgresql (apt-get install -y postgresql) to race claims on it';
}

export async function claimRaceCampaign(options: ClaimRaceOptions): Promise<ClaimRaceResult> {
  const started = Date.now();
  const skip = options.store === ClaimRaceStore.postgres ? postgresRaceSkipReason() : undefined;
  if (skip !== undefined) {
    options.log?.(`  claim races on ${options.store} skipped: ${skip}`);
    return skippedRaces(options.store, options.racers, skip);
  }
  const tally = new ClaimRaceTally(options.store, options.racers);
  let cluster: PostgresCluster | undefined;
  try {
    if (options.store === ClaimRaceStore.postgres) cluster = await startPostgresCluster({ durable: true });
    await raceAll(options, tally, cluster);
  } catch (error) {
    record(tally.result, 'otherFailures', `claim races on ${options.store}: ${(error as Error).message.slice(0, 500)}`);
  } finally {
    await cluster?.stop();
  }
  return tally.finish((Date.now() - started) / 1000);
}

async function raceAll(options: ClaimRaceOptions, tally: ClaimRaceTally, cluster: PostgresCluster | undefined): Promise<void> {
  const every = Math.max(1, options.uncontendedEvery ?? 4);
  const solos = Math.ceil(options.races / every);
  const hosts = await setUpHosts(options.root, cluster);
  await defineWus(hosts[0]!, options.races + solos);
  // Racer i acts in host i mod hosts (half the racers each on PostgreSQL); one solo session per host.
  const racers: Racer[] = [];
  for (let i = 0; i < options.racers; i++) racers.push(await startSession(hosts[i % hosts.length]!));
  const soloRacers = await Promise.all(hosts.map((host) => startSession(host)));
  options.log?.(
    `  claim races on ${options.store}: ${options.races} races of ${options.racers} (${hosts.map((h) => h.name).join(', ')}), ${solos} uncontended`,
  );
  const progressEvery = options.progressEvery ?? 50;
  const began = Date.now();
  let solo = 0;
  for (let r = 0; r < options.races; r++) {
    const { outcome, seconds } = await race(rotate(racers, r), `WU-${r + 1}`);
    tally.add(outcome, seconds);
    if (r % every === every - 1 || r === options.races - 1) {
      const uncontended = await race([soloRacers[solo % soloRacers.length]!], `WU-${options.races + solo + 1}`);
      tally.add(uncontended.outcome, uncontended.seconds, true);
      solo += 1;
    }
    if ((r + 1) % progressEvery === 0)
      options.log?.(
        `  claim races on ${options.store}: ${r + 1}/${options.races} races, ${((Date.now() - began) / 1000 / (r + 1)).toFixed(2)} s per race, ${violations(tally.result)} violations`,
      );
  }
  tally.checkLog(await claimsInLog(hosts[0]!, tally));
  const verify = await runCli(['--json', '--dir', hosts[0]!.dir, 'log', 'verify'], { timeoutMs: RACER_TIMEOUT_MS });
  if (verify.code !== 0) record(tally.result, 'otherFailures', `log verify exited ${verify.code}: ${(verify.stdout + verify.stderr).slice(0, 300)}`);
}

/** The racers in another order each race: the start gun reaches them in that order. */
function rotate<T>(items: readonly T[], by: number): T[] {
  const k = by % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

/** `baton ARGS…` in a host, --json, which must exit 0: its last JSON line. */
async function ok(host: Host, args: readonly string[]): Promise<Record<string, unknown>> {
  const run = await runCli(['--json', '--dir', host.dir, ...args], { cwd: host.dir, timeoutMs: RACER_TIMEOUT_MS });
  if (run.code !== 0) throw new Error(`baton ${args.join(' ')} in ${host.name} exited ${run.code ?? run.signal}: ${(run.stdout + run.stderr).slice(0, 400)}`);
  const last = run.stdout.trim().split('\n').at(-1) ?? '{}';
  return JSON.parse(last) as Record<string, unknown>;
}

/** One JSONL workspace, or two workspaces ("hosts") whose config points at one PostgreSQL database and workspace id. */
async function setUpHosts(root: string, cluster: PostgresCluster | undefined): Promise<Host[]> {
  const names = cluster === undefined ? ['workspace'] : ['host-a', 'host-b'];
  const hosts = names.map((name) => ({ name, dir: join(root, name) }));
  for (const host of hosts) {
    mkdirSync(host.dir, { recursive: true });
    await ok(host, ['init']);
    if (cluster !== undefined)
      writeFileSync(
        join(host.dir, '.baton', 'config.yaml'),
        `store:\n  kind: postgres\n  url: ${JSON.stringify(cluster.appUrl)}\n  workspace_id: ${SHARED_WORKSPACE_ID}\n`,
      );
  }
  return hosts;
}

/** WU-1…WU-count, each in a lane of its own (a lane's WIP limit is 1 by default), imported from YAML in one call. */
async function defineWus(host: Host, count: number): Promise<void> {
  const folder = join(host.dir, 'wus');
  mkdirSync(folder, { recursive: true });
  for (let n = 1; n <= count; n++) writeFileSync(join(folder, `WU-${n}.yaml`), `id: WU-${n}\ntitle: Claim race ${n}\nlane: Race ${n}\nstatus: ready\n`);
  const imported = await ok(host, ['wu', 'import', folder]);
  if (imported['appended'] === undefined) throw new Error(`wu import answered ${JSON.stringify(imported).slice(0, 300)}`);
}

async function startSession(host: Host): Promise<Racer> {
  const started = (await ok(host, ['session', 'start'])) as { session?: { id?: string } };
  const session = started.session?.id;
  if (session === undefined) throw new Error(`session start in ${host.name} printed no session id`);
  return { host, session };
}

/** One race: every racer booted and waiting, then the start gun to all, then every exit. */
async function race(racers: readonly Racer[], wu: string): Promise<{ outcome: RaceOutcome; seconds: number }> {
  const began = performance.now();
  const running = racers.map((r) => startRacer(r, wu));
  await Promise.all(running.map((r) => r.ready));
  const gun = performance.now();
  for (const r of running) r.go(gun);
  const outcomes = await Promise.all(running.map((r) => r.done));
  return { outcome: { wu, racers: outcomes }, seconds: (performance.now() - began) / 1000 };
}

function startRacer(racer: Racer, wu: string): { ready: Promise<void>; go: (gun: number) => void; done: Promise<RacerOutcome> } {
  const { args } = childCommand('reliability/claim-racer');
  const argv = [...args, BATON_BIN, '--json', '--dir', racer.host.dir, '--session', racer.session, 'wu', 'claim', wu];
  const child = spawn(process.execPath, argv, { env: childEnv(), cwd: racer.host.dir, stdio: ['pipe', 'pipe', 'pipe', 'pipe'] });
  let output = '';
  let gunAt = Number.NaN;
  let exitedAt = Number.NaN;
  let timedOut = false;
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => (output += chunk));
  child.stderr!.on('data', (chunk: string) => (output += chunk));
  child.stdin!.on('error', () => undefined);
  const ready = new Promise<void>((resolve) => {
    (child.stdio[3] as Readable).once('data', () => resolve());
    child.once('close', () => resolve());
  });
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, RACER_TIMEOUT_MS);
  child.once('exit', () => (exitedAt = performance.now()));
  const done = new Promise<RacerOutcome>((resolve) => {
    const end = (code: number | null, signal: NodeJS.Signals | null): void => {
      clearTimeout(timer);
      resolve({ session: racer.session, host: racer.host.name, code, signal, timedOut, output, ms: exitedAt - gunAt });
    };
    child.once('error', (error) => {
      output += error.message;
      end(1, null);
    });
    child.once('close', end);
  });
  return {
    ready,
    go: (gun) => {
      gunAt = gun;
      child.stdin!.end('g');
    },
    done,
  };
}

/** Every claim the log holds, by WU: the claiming session of each, in log order (`log show` in one host). */
async function claimsInLog(host: Host, tally: ClaimRaceTally): Promise<Map<string, (string | null)[]>> {
  const run = await runCli(['--dir', host.dir, 'log', 'show'], { cwd: host.dir, timeoutMs: RACER_TIMEOUT_MS });
  const claims = new Map<string, (string | null)[]>();
  if (run.code !== 0) {
    record(tally.result, 'otherFailures', `log show exited ${run.code}: ${run.stderr.slice(0, 300)}`);
    return claims;
  }
  for (const line of run.stdout.split('\n')) {
    if (!line.includes('"wu.claimed"')) continue;
    const event = JSON.parse(line) as { type: string; data: { wu_id: string; session_id: string | null } };
    if (event.type !== 'wu.claimed') continue;
    claims.set(event.data.wu_id, [...(claims.get(event.data.wu_id) ?? []), event.data.session_id]);
  }
  return claims;
}
