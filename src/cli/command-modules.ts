/**
 * Every module a command loads on demand, by name: the one place the CLI's lazy imports live.
 *
 * Why lazy: `baton --version` or a short command (`mem inbox`, `status`) must not load the code of
 * the ~80 other commands (zod, the store, the folds); the program declares its commands with
 * commander alone and each action loads its body here when it runs.
 *
 * How to use it (the command groups, the MCP server or any other surface):
 *
 *   import { loadCommand } from '../command-modules.js';
 *   (await loadCommand('wu-done')).wuDone(ctx, id);
 *
 * `loadCommand('wu-done')` is typed as the module itself, so a renamed export is a type error.
 * A new command module gets a line here; nothing else needs to know it.
 *
 * The bundler reads this table too (scripts/bundle-cli.mjs): each entry is an entry point of the
 * bin's split build, emitted as dist/bin/<name>.js, and its list of short commands, each bundled
 * into one file, names them by these keys.
 */
export const COMMAND_MODULES = {
  audit: () => import('./commands/audit.js'),
  completion: () => import('./commands/completion.js'),
  'completion-words': () => import('./commands/completion-words.js'),
  'deep-dive': () => import('./commands/deep-dive.js'),
  'flow-adopt': () => import('./commands/flow-adopt.js'),
  'flow-init': () => import('./commands/flow-init.js'),
  'flow-merge': () => import('./commands/flow-merge.js'),
  'flow-status': () => import('./commands/flow-status.js'),
  'flow-update': () => import('./commands/flow-update.js'),
  guard: () => import('./commands/guard.js'),
  'hook-claude-code': () => import('./commands/hook-claude-code.js'),
  'hook-pre-tool-use': () => import('./commands/hook-pre-tool-use.js'),
  'hooks-drain': () => import('./commands/hooks-drain.js'),
  'import-lumenflow': () => import('./commands/import-lumenflow.js'),
  init: () => import('./commands/init.js'),
  'initiative-create': () => import('./commands/initiative-create.js'),
  'initiative-update': () => import('./commands/initiative-update.js'),
  listing: () => import('./commands/listing.js'),
  'log-anchor': () => import('./commands/log-anchor.js'),
  'log-append': () => import('./commands/log-append.js'),
  'log-export': () => import('./commands/log-export.js'),
  'log-import': () => import('./commands/log-import.js'),
  'log-repair': () => import('./commands/log-repair.js'),
  'log-show': () => import('./commands/log-show.js'),
  'log-stats': () => import('./commands/log-stats.js'),
  'log-tail': () => import('./commands/log-tail.js'),
  'log-verify': () => import('./commands/log-verify.js'),
  mcp: () => import('./commands/mcp.js'),
  'mem-converged': () => import('./commands/mem-converged.js'),
  'mem-inbox': () => import('./commands/mem-inbox.js'),
  'mem-roster': () => import('./commands/mem-roster.js'),
  'mem-signal': () => import('./commands/mem-signal.js'),
  'mem-watch': () => import('./commands/mem-watch.js'),
  orchestrate: () => import('./commands/orchestrate.js'),
  'orchestrate-run': () => import('./commands/orchestrate-run.js'),
  replay: () => import('./commands/replay.js'),
  resume: () => import('./commands/resume.js'),
  serve: () => import('./commands/serve.js'),
  'session-end': () => import('./commands/session-end.js'),
  'session-start': () => import('./commands/session-start.js'),
  'sessions-views': () => import('./commands/sessions-views.js'),
  setup: () => import('./commands/setup.js'),
  status: () => import('./commands/status.js'),
  'subagent-commands': () => import('./commands/subagent-commands.js'),
  'task-create': () => import('./commands/task-create.js'),
  'task-own': () => import('./commands/task-own.js'),
  'task-show': () => import('./commands/task-show.js'),
  'task-transition': () => import('./commands/task-transition.js'),
  'tasks-list': () => import('./commands/tasks-list.js'),
  'wu-create': () => import('./commands/wu-create.js'),
  'wu-done': () => import('./commands/wu-done.js'),
  'wu-explain': () => import('./commands/wu-explain.js'),
  'wu-import': () => import('./commands/wu-import.js'),
  'wu-lifecycle': () => import('./commands/wu-lifecycle.js'),
  'wu-prep': () => import('./commands/wu-prep.js'),
} as const satisfies Record<string, () => Promise<object>>;

export type CommandModuleName = keyof typeof COMMAND_MODULES;

/** The module `name` loads, with its exports' own types. */
export type CommandModule<N extends CommandModuleName> = Awaited<ReturnType<(typeof COMMAND_MODULES)[N]>>;

/** Loads a command's module on first use (Node caches it: a second call costs nothing). */
export function loadCommand<N extends CommandModuleName>(name: N): Promise<CommandModule<N>> {
  return COMMAND_MODULES[name]() as Promise<CommandModule<N>>;
}
