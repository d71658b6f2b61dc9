import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { TasksEnv } from '../tasks/env.js';
import { resumeInvocationFrom } from '../tasks/settings.js';
import { coordinationSettingsFrom, readFilter } from '../coordination/settings.js';
import { readConfigText } from '../workspace.js';
import type { CommandContext } from './context.js';

/** A tasks command's environment from its CLI context (settings read and checked first). */
export async function tasksEnv(ctx: CommandContext): Promise<TasksEnv> {
  const workspace = await ctx.workspace();
  const configText = readConfigText(workspace);
  const invocation = resumeInvocationFrom(configText);
  const settings = coordinationSettingsFrom(configText);
  // Read commands in a workspace without `.baton/` fold an empty log and create nothing.
  const hasStore = existsSync(join(workspace, '.baton')) || Boolean(ctx.env['BATON_STORE_URL']);
  return {
    workspace,
    now: ctx.now,
    actor: ctx.actor,
    session: ctx.session,
    invocation,
    workspaceFilter: readFilter(settings),
    catalog: await ctx.catalog(),
    cacheDir: hasStore ? await ctx.cacheDir() : undefined,
    store: () => ctx.store(),
    hasStore,
  };
}
