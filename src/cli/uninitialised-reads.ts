import type { Command } from 'commander';
import { BatonError } from '../errors.js';
import { storeExists } from '../store/jsonl/layout.js';

/**
 * Commands that only read the log (`mem inbox` marks what it lists, `orchestrate status` records
 * what its probes see, but neither is asked in order to create anything). Run in a folder that has
 * no `.baton/`, they would fold an empty log and print what looks like an empty success ("No
 * signals.", "log verified: 0 events"); they exit 2 with the `baton init` hint instead.
 *
 * Not listed, on purpose: every write (a first `wu create`, `session start`, `log append`… creates
 * `.baton/`, as `init` would: the spec's `init` is idempotent, not a precondition), and the
 * orchestration reads of tasks.md (`status`, `tasks`, `task`, `sessions`, `session`, `resume`), whose
 * no-store answer the spec fixes for wizard parity (T25: `status` exits 0 with `storeExists: false`).
 */
export const READ_COMMANDS: ReadonlySet<string> = new Set([
  'log show',
  'log tail',
  'log verify',
  'log anchor',
  'log stats',
  'log export',
  'replay',
  'audit',
  'audit why',
  'mem roster',
  'mem inbox',
  'mem converged',
  'mem watch',
  'hooks drain',
  'wu explain',
  'flow status',
  'orchestrate status',
  'serve',
]);

export const NO_WORKSPACE = 'NO_WORKSPACE';

/** `log verify`, `mem inbox`: the words of a command below the program (`baton` itself left out). */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/**
 * The check that refuses a read in a folder never initialised, for CommandContext to run when it
 * first resolves the workspace (so a short command loads nothing more to run it); undefined when the
 * command is no read. A PostgreSQL store (BATON_STORE_URL) needs no `.baton/`, so nothing is checked then.
 */
export function uninitialisedReadCheck(command: Command, env: NodeJS.ProcessEnv): ((workspace: string) => void) | undefined {
  const path = commandPath(command);
  if (!READ_COMMANDS.has(path) || env['BATON_STORE_URL']) return undefined;
  return (workspace) => {
    if (storeExists(workspace)) return;
    throw new BatonError(
      NO_WORKSPACE,
      `no Baton workspace in ${workspace} (no .baton/ folder): run \`baton init\` there first (or pass --dir to the workspace), then \`baton ${path}\``,
      { dir: workspace },
    );
  };
}
