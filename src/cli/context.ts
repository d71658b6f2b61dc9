import type { EventCatalog } from '../../events/catalog.js';
import type * as StoreAccessModule from './store-access.js';
import type { EventStore } from '../store/contract.js';
import { invalidInput } from '../errors.js';
import { chooseMode, Output } from './output.js';
import { stdoutIsTTY } from './stdio.js';

/**
 * What every command shares, read once per command: the workspace, the output mode, the acting
 * session, and the clock (`BATON_NOW` fixes it for the whole command). The store and the catalog
 * are opened on first use, so a command that needs neither never loads them.
 */
export interface GlobalFlags {
  dir?: string;
  json?: boolean;
  human?: boolean;
  session?: string;
}

const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

export class CommandContext {
  readonly output: Output;
  readonly now: string;
  readonly session: string | undefined;
  readonly actor: string;
  private workspaceDir: string | undefined;
  private storePromise: Promise<EventStore> | undefined;
  private catalogPromise: Promise<EventCatalog> | undefined;

  constructor(
    readonly flags: GlobalFlags,
    readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    this.output = new Output(chooseMode(flags, stdoutIsTTY));
    this.now = readClock(env['BATON_NOW']);
    const session = flags.session ?? env['BATON_SESSION'];
    if (session !== undefined && !SESSION_ID_PATTERN.test(session)) {
      throw invalidInput('must be a session id (letters, digits, . _ : @ -; at most 128)', flags.session !== undefined ? '--session' : 'BATON_SESSION');
    }
    this.session = session === '' ? undefined : session;
    const identity = env['BATON_AGENT_IDENTITY'];
    this.actor = this.session ?? (identity && identity.trim() !== '' ? identity.trim().slice(0, 200) : 'system');
  }

  async workspace(): Promise<string> {
    if (this.workspaceDir === undefined) {
      const { resolveWorkspace, checkWorkspaceDir } = await this.storeAccess();
      const explicit = this.flags.dir ?? this.env['BATON_DIR'];
      const dir = resolveWorkspace(explicit);
      // A --dir naming a file, a missing folder or a dangling link is exit 2 naming it (workspace-dir.ts).
      if (explicit !== undefined) checkWorkspaceDir(dir, explicit, this.flags.dir !== undefined ? '--dir' : 'BATON_DIR', this.createsWorkspace);
      this.workspaceDir = dir;
    }
    return this.workspaceDir;
  }

  private createsWorkspace = false;

  /** `init` and `log import`: a missing --dir folder is created (its parent must exist). Call before workspace(). */
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
      ? this.storeAccess().then((m) => new m.CompiledEventCatalog())
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
   * Validate with the compiled validators (events/compiled-catalog.ts) instead of loading every zod
   * schema up front: the same answers and errors, and a command whose input is valid loads no zod.
   * For commands on the short-command budget (`mem inbox`); call it before the first catalog() or
   * store(). A command that imports store-access.ts itself passes it, so reaching the store loads
   * no further file (scripts/bundle-cli.mjs bundles such a command into one file).
   */
  useCompiledValidation(storeAccess?: typeof StoreAccessModule): void {
    if (this.catalogPromise !== undefined || this.storePromise !== undefined) throw new Error('useCompiledValidation() after the catalog or the store was opened');
    this.compiledValidation = true;
    if (storeAccess !== undefined) this.storeAccessPromise = Promise.resolve(storeAccess);
  }

  store(): Promise<EventStore> {
    this.storePromise ??= (async () => {
      const workspace = await this.workspace();
      const { readConfigText, readStoreConfig, openStore, loadSchemas } = await this.storeAccess();
      const lockTimeout = this.env['BATON_LOCK_TIMEOUT_MS'];
      const parallelVerifyMinBytes = readParallelVerifyMinBytes(this.env['BATON_PARALLEL_VERIFY_MIN_BYTES']);
      const config = await readStoreConfig(readConfigText(workspace), this.env['BATON_STORE_URL']);
      // Only the JSONL store loads zod on demand (its append retries); give the others every schema.
      if (config.kind !== 'jsonl' && this.compiledValidation) await loadSchemas();
      return openStore({
        workspace,
        config,
        catalog: await this.catalog(),
        now: () => this.now,
        actor: this.actor,
        onRecovered: (report) =>
          this.output.warn(`recovered from a torn write: ${report.bytes} bytes at ${report.segment}:${report.offset} moved to ${report.quarantined_to}`),
        ...(lockTimeout && /^\d+$/.test(lockTimeout) ? { lockTimeoutMs: Number(lockTimeout) } : {}),
        ...(parallelVerifyMinBytes !== undefined ? { parallelVerifyMinBytes } : {}),
      });
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
  if (!/^\d{1,15}$/.test(value)) throw invalidInput('must be a number of bytes (0: always use worker threads; Infinity: never)', 'BATON_PARALLEL_VERIFY_MIN_BYTES');
  return Number(value);
}

function readClock(value: string | undefined): string {
  if (value === undefined || value === '') return new Date().toISOString();
  if (!ISO_UTC.test(value) || Number.isNaN(Date.parse(value))) {
    throw invalidInput('must be an ISO-8601 UTC time like 2026-01-31T12:00:00Z', 'BATON_NOW');
  }
  return new Date(value).toISOString();
}
