import type { EventCatalog } from '../../events/catalog.js';
import type { NewEvent } from '../../events/envelope.js';
import type { EventStore } from '../store/contract.js';
import { invalidInput } from '../errors.js';
import type { AppContext, AppWarnings } from './context.js';
import { requireActingSession, sessionIdForName } from './session-identity.js';
import type * as StoreAccessModule from './store-access.js';

/**
 * What a surface gives the application context: the workspace and the acting session it was told
 * (else `BATON_DIR` / `BATON_SESSION`), the environment, where warnings go, and what it calls those
 * two inputs in an error (the CLI says `--dir`, `--session`).
 */
export interface AppContextInputs {
  dir?: string | undefined;
  session?: string | undefined;
  env: NodeJS.ProcessEnv;
  output: AppWarnings;
  names: { dir: string; session: string };
}

const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

/**
 * The application context every surface builds (the CLI's CommandContext is one, the MCP server
 * builds one per tool call): the clock read once (`BATON_NOW` fixes it for the whole command), the
 * acting session, the workspace, and the store and the catalog opened on first use, so a command
 * that needs neither never loads them.
 */
export class BatonAppContext implements AppContext {
  readonly output: AppWarnings;
  readonly env: NodeJS.ProcessEnv;
  readonly now: string;
  /** The acting session; a display name becomes its session's id on resolveSession(). */
  session: string | undefined;
  actor: string;
  private workspaceDir: string | undefined;
  private storePromise: Promise<EventStore> | undefined;
  private catalogPromise: Promise<EventCatalog> | undefined;

  constructor(private readonly inputs: AppContextInputs) {
    this.env = inputs.env;
    this.output = inputs.output;
    this.now = readClock(this.env['BATON_NOW']);
    const session = inputs.session ?? this.env['BATON_SESSION'];
    if (session !== undefined && !SESSION_ID_PATTERN.test(session)) {
      throw invalidInput('must be a session id (letters, digits, . _ : @ -; at most 128)', this.sessionSource());
    }
    this.session = session === '' ? undefined : session;
    const identity = this.env['BATON_AGENT_IDENTITY'];
    this.actor = this.session ?? (identity && identity.trim() !== '' ? identity.trim().slice(0, 200) : 'system');
  }

  /** What the acting session was given as (the CLI's `--session`, or `BATON_SESSION`), for an error about it. */
  sessionSource(): string {
    return this.inputs.session !== undefined ? this.inputs.names.session : 'BATON_SESSION';
  }

  private sessionResolved = false;

  /**
   * For an append outside the command handler: refuses UNKNOWN_SESSION when an event would record
   * the acting session (given, or the actor by default) while it does not exist or has ended.
   */
  async requireActingSession(events: readonly NewEvent[]): Promise<void> {
    if (this.session === undefined) return;
    await requireActingSession(this.identityInputs(), { session: this.session, name: this.sessionSource() }, events, this.actor);
  }

  /**
   * A live session's display name given as the session (`--session` / `BATON_SESSION`) becomes that
   * session's id (session-identity.ts); the environment builders call it before they read `session`. Idempotent.
   */
  async resolveSession(): Promise<void> {
    if (this.sessionResolved || this.session === undefined) return;
    this.sessionResolved = true;
    const id = await sessionIdForName(
      { ...this.identityInputs(), workspace: await this.workspace(), externalStore: Boolean(this.env['BATON_STORE_URL']) },
      this.session,
    );
    if (id !== undefined) {
      this.session = id;
      this.actor = id;
    }
  }

  /** A session named by id or by a live session's display name (a positional argument, --session-id): its id. */
  async sessionIdFor(token: string): Promise<string> {
    return (
      (await sessionIdForName({ ...this.identityInputs(), workspace: await this.workspace(), externalStore: Boolean(this.env['BATON_STORE_URL']) }, token)) ??
      token
    );
  }

  private identityInputs() {
    return { store: () => this.store(), catalog: () => this.catalog(), cacheDir: () => this.cacheDir(), now: this.now };
  }

  async workspace(): Promise<string> {
    if (this.workspaceDir === undefined) {
      const { resolveWorkspace, checkWorkspaceDir } = await this.storeAccess();
      const explicit = this.inputs.dir ?? this.env['BATON_DIR'];
      const dir = resolveWorkspace(explicit);
      // A dir naming a file, a missing folder or a dangling link is exit 2 naming it (workspace-dir.ts).
      if (explicit !== undefined) checkWorkspaceDir(dir, explicit, this.inputs.dir !== undefined ? this.inputs.names.dir : 'BATON_DIR', this.createsWorkspace);
      this.workspaceCheck?.(dir);
      this.workspaceDir = dir;
    }
    return this.workspaceDir;
  }

  private createsWorkspace = false;
  private workspaceCheck: ((workspace: string) => void) | undefined;

  /** A check the workspace must pass when it is first resolved (a read refuses an uninitialised folder). */
  checkWorkspaceWith(check: ((workspace: string) => void) | undefined): void {
    this.workspaceCheck = check;
  }

  /** `init` and `log import`: a missing workspace folder is created (its parent must exist). Call before workspace(). */
  mayCreateWorkspace(): void {
    this.createsWorkspace = true;
  }

  /** Where projection snapshots go: `.baton/cache/` of the workspace, whatever the store. */
  async cacheDir(): Promise<string> {
    const { workspaceLayout, assertNoLinkBelow } = await this.storeAccess();
    const workspace = await this.workspace();
    const cache = workspaceLayout(workspace).cache;
    // Snapshots are read and written there: a planted link would steer both.
    assertNoLinkBelow(workspace, cache);
    return cache;
  }

  catalog(): Promise<EventCatalog> {
    this.catalogPromise ??= this.compiledValidation
      ? this.storeAccess().then((m) => m.builtInCatalog())
      : import('../../events/index.js').then((m) => m.createCatalog());
    return this.catalogPromise;
  }

  private compiledValidation = false;
  private storeAccessPromise: Promise<typeof StoreAccessModule> | undefined;

  private storeAccess(): Promise<typeof StoreAccessModule> {
    this.storeAccessPromise ??= import('./store-access.js');
    return this.storeAccessPromise;
  }

  /**
   * Validate with the compiled validators (events/builtin-catalog.ts) instead of loading every zod
   * schema up front: the same answers and errors, and a command whose input is valid loads no zod.
   * For commands on the short-command budget (`mem inbox`); call it before the first catalog() or
   * store(). A command that imports store-access.ts itself passes it, so reaching the store loads
   * no further file (scripts/bundle-cli.mjs bundles such a command into one file).
   */
  useCompiledValidation(storeAccess?: typeof StoreAccessModule): void {
    if (this.catalogPromise !== undefined || this.storePromise !== undefined)
      throw new Error('useCompiledValidation() after the catalog or the store was opened');
    this.compiledValidation = true;
    if (storeAccess !== undefined) this.storeAccessPromise = Promise.resolve(storeAccess);
  }

  store(): Promise<EventStore> {
    this.storePromise ??= (async () => {
      const workspace = await this.workspace();
      const { readConfigText, readStoreConfig, openStore } = await this.storeAccess();
      const lockTimeout = this.env['BATON_LOCK_TIMEOUT_MS'];
      const parallelVerifyMinBytes = readParallelVerifyMinBytes(this.env['BATON_PARALLEL_VERIFY_MIN_BYTES']);
      const config = await readStoreConfig(readConfigText(workspace), this.env['BATON_STORE_URL']);
      const store = await openStore({
        workspace,
        config,
        catalog: await this.catalog(),
        now: () => this.now,
        actor: this.actor,
        onRecovered: (report) =>
          this.output.warn(`recovered from a torn write: ${report.bytes} bytes at ${report.segment}:${report.offset} moved to ${report.quarantined_to}`),
        onRepaired: (report) =>
          this.output.warn(
            `repaired the last event: seq ${report.seq} was whole but its newline was ${report.replaced === null ? 'missing' : `damaged (0x${report.replaced})`}; restored at ${report.segment}:${report.offset}`,
          ),
        ...(lockTimeout && /^\d+$/.test(lockTimeout) ? { lockTimeoutMs: Number(lockTimeout) } : {}),
        ...(parallelVerifyMinBytes !== undefined ? { parallelVerifyMinBytes } : {}),
      });
      // A write acting as a session needs a live one: each decision checks it (handle-command.ts),
      // an append outside the handler asks requireActingSession().
      return store;
    })();
    return this.storePromise;
  }

  async close(): Promise<void> {
    if (this.storePromise) {
      const store = await this.storePromise.catch(() => undefined);
      await store?.close();
    }
  }
}

/** `log verify` checks a JSONL log on worker threads from this many bytes (unset: the store's default). */
function readParallelVerifyMinBytes(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === 'Infinity') return Number.POSITIVE_INFINITY;
  if (!/^\d{1,15}$/.test(value))
    throw invalidInput('must be a number of bytes (0: always use worker threads; Infinity: never)', 'BATON_PARALLEL_VERIFY_MIN_BYTES');
  return Number(value);
}

function readClock(value: string | undefined): string {
  if (value === undefined || value === '') return new Date().toISOString();
  if (!ISO_UTC.test(value) || Number.isNaN(Date.parse(value))) {
    throw invalidInput('must be an ISO-8601 UTC time like 2026-01-31T12:00:00Z', 'BATON_NOW');
  }
  return new Date(value).toISOString();
}
