import { z } from 'zod';
import { describeZodIssues } from '../../../events/validation.js';
import { invalidInput } from '../../errors.js';

/**
 * Where a PostgreSQL store lives and which workspace it serves, resolved from the `store:` config
 * (or `BATON_STORE_URL`) before any connection is attempted, so bad configuration is INVALID_INPUT
 * (exit 2) and never a connection attempt.
 *
 * `workspace_id` comes from `store.workspace_id` in `.baton/config.yaml`, or from a `workspace_id`
 * query parameter of the URL (so `BATON_STORE_URL` alone can select a store). It becomes a
 * per-connection setting that row-level security checks, so it is held to a strict pattern.
 */
export const WORKSPACE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/;

export const WorkspaceIdSchema = z
  .string({ error: 'is required for a postgres store (store.workspace_id in .baton/config.yaml, or ?workspace_id= in the URL)' })
  .regex(WORKSPACE_ID_PATTERN, 'must be 1–128 letters, digits or . _ : @ - (starting with a letter or digit)');

export interface PostgresTarget {
  /** The URL handed to `pg`, without Baton's own `workspace_id` parameter. */
  connectionString: string;
  workspaceId: string;
  /** Host (or socket directory) and port, for messages; never the password. */
  host: string;
  port: number;
  database: string;
}

const DEFAULT_PORT = 5432;

export function resolvePostgresTarget(config: { url: string; workspace_id?: string | undefined }): PostgresTarget {
  let url: URL;
  try {
    url = new URL(config.url);
  } catch {
    throw invalidInput('is not a valid postgres:// URL', 'store.url');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') throw invalidInput('must be a postgres:// URL', 'store.url');
  const fromUrl = url.searchParams.get('workspace_id') ?? undefined;
  if (fromUrl !== undefined && config.workspace_id !== undefined && fromUrl !== config.workspace_id) {
    throw invalidInput(`names workspace "${fromUrl}" but store.workspace_id is "${config.workspace_id}"`, 'store.url');
  }
  const parsed = WorkspaceIdSchema.safeParse(config.workspace_id ?? fromUrl);
  if (!parsed.success) throw invalidInput(describeZodIssues(parsed.error, 'store.workspace_id'));
  const portText = url.searchParams.get('port') ?? url.port;
  const port = portText === '' ? DEFAULT_PORT : Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw invalidInput('has a port that is not a number from 1 to 65535', 'store.url');
  const host = url.searchParams.get('host') ?? (url.hostname !== '' ? decodeURIComponent(url.hostname) : 'localhost');
  let connectionString = config.url;
  if (fromUrl !== undefined) {
    url.searchParams.delete('workspace_id');
    connectionString = url.toString();
  }
  return { connectionString, workspaceId: parsed.data, host, port, database: decodeURIComponent(url.pathname.replace(/^\//, '')) };
}

/** `host:port` as a person would write it (a socket directory keeps its path). */
export function describeTarget(target: Pick<PostgresTarget, 'host' | 'port'>): string {
  return `${target.host}:${target.port}`;
}
