import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

/**
 * A throwaway PostgreSQL cluster for tests and benchmarks: `initdb` into a temporary folder, then
 * `pg_ctl start` listening only on a Unix socket in that folder (no TCP port, nothing shared with
 * other clusters). As root the server runs as the `postgres` user. `stop()` ends the postmaster by
 * its pid and removes the folder. The cluster holds one database with a non-superuser login role
 * that owns it, so row-level security applies to every connection the adapter makes.
 */

const run = promisify(execFile);

export const APP_ROLE = 'baton_app';
export const APP_DATABASE = 'baton';
export const SUPERUSER = 'postgres';

export interface PostgresCluster {
  /** Folder holding the data directory and the socket. */
  dir: string;
  socketDir: string;
  port: number;
  pid: number;
  /** `postgres://baton_app@localhost/baton?host=<socket dir>&port=<port>` (append `&workspace_id=…`). */
  appUrl: string;
  /** The same database as the superuser (for setup and inspection only). */
  superuserUrl: string;
  /** A URL for the app role with a workspace id. */
  urlFor(workspaceId: string): string;
  stop(): Promise<void>;
}

/** Directory of the PostgreSQL server binaries, or undefined when none are installed. */
export function findPostgresBin(): string | undefined {
  const fromEnv = process.env['PG_BIN'];
  if (fromEnv && existsSync(join(fromEnv, 'initdb'))) return fromEnv;
  const base = '/usr/lib/postgresql';
  if (existsSync(base)) {
    const versions = readdirSync(base)
      .filter((v) => existsSync(join(base, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(base, versions[0], 'bin');
  }
  for (const dir of (process.env['PATH'] ?? '').split(':')) {
    if (dir && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
  }
  return undefined;
}

const NO_BINARIES =
  'no PostgreSQL server binaries found (initdb, pg_ctl under /usr/lib/postgresql/*/bin, on PATH, or in PG_BIN); install them with `apt-get install -y postgresql` (.ci/run does)';

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** Run a server binary, as `postgres` when this process is root (PostgreSQL refuses to run as root). */
async function runServerBinary(bin: string, args: string[]): Promise<void> {
  if (isRoot()) await run('runuser', ['-u', SUPERUSER, '--', bin, ...args], { timeout: 120_000 });
  else await run(bin, args, { timeout: 120_000 });
}

export interface StartOptions {
  /**
   * Keep PostgreSQL's durability (fsync, synchronous commit). Tests switch it off for speed — it
   * changes no visibility or locking behaviour; benchmarks keep it on, so figures are honest.
   */
  durable?: boolean;
}

export async function startPostgresCluster(options: StartOptions = {}): Promise<PostgresCluster> {
  const bin = findPostgresBin();
  if (!bin) throw new Error(NO_BINARIES);
  const dir = mkdtempSync(join(tmpdir(), 'baton-pg-'));
  const dataDir = join(dir, 'data');
  if (isRoot()) {
    const { uid, gid } = pgUser();
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  const port = 20000 + Math.floor(Math.random() * 20000);
  try {
    await runServerBinary(join(bin, 'initdb'), ['-D', dataDir, '-U', SUPERUSER, '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
    const settings = [
      `-k ${dir}`,
      "-c listen_addresses=''",
      `-p ${port}`,
      '-c max_connections=200',
      ...(options.durable ? [] : ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off']),
    ].join(' ');
    await runServerBinary(join(bin, 'pg_ctl'), ['-D', dataDir, '-o', settings, '-l', join(dir, 'server.log'), '-w', '-t', '60', 'start']);
  } catch (error) {
    const log = existsSync(join(dir, 'server.log')) ? readFileSync(join(dir, 'server.log'), 'utf8') : '';
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`could not start PostgreSQL: ${(error as Error).message}\n${log}`, { cause: error });
  }
  const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const url = (user: string, database: string): string => `postgres://${user}@localhost/${database}?host=${encodeURIComponent(dir)}&port=${port}`;
  const cluster: PostgresCluster = {
    dir,
    socketDir: dir,
    port,
    pid,
    appUrl: url(APP_ROLE, APP_DATABASE),
    superuserUrl: url(SUPERUSER, APP_DATABASE),
    urlFor: (workspaceId) => `${url(APP_ROLE, APP_DATABASE)}&workspace_id=${encodeURIComponent(workspaceId)}`,
    stop: () => stopCluster(pid, dir),
  };
  const admin = new pg.Client({ connectionString: url(SUPERUSER, 'postgres') });
  try {
    await admin.connect();
    // A plain login role: no superuser, no BYPASSRLS. It owns the database, so it may create the
    // schema (Baton migrates on first open); FORCE ROW LEVEL SECURITY still binds it as owner.
    await admin.query(`CREATE ROLE ${APP_ROLE} LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE`);
    await admin.query(`CREATE DATABASE ${APP_DATABASE} OWNER ${APP_ROLE}`);
  } catch (error) {
    await cluster.stop();
    throw error;
  } finally {
    await admin.end().catch(() => undefined);
  }
  return cluster;
}

function pgUser(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${SUPERUSER}:`));
  if (!line) throw new Error(`running as ${userInfo().username}, but there is no ${SUPERUSER} user to run the server as`);
  const fields = line.split(':');
  return { uid: Number(fields[2]), gid: Number(fields[3]) };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Fast shutdown (SIGINT) of the postmaster by pid, SIGKILL after 20 s, then remove the folder. */
async function stopCluster(pid: number, dir: string): Promise<void> {
  if (alive(pid)) {
    process.kill(pid, 'SIGINT');
    const deadline = Date.now() + 20_000;
    while (alive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    if (alive(pid)) process.kill(pid, 'SIGKILL');
    while (alive(pid)) await new Promise((resolve) => setTimeout(resolve, 25));
  }
  rmSync(dir, { recursive: true, force: true });
}
