import type { TasksEnv } from '../tasks/env.js';
import { loadCoordinationSettings } from '../config/coordination.js';
import { loadResumeInvocation } from '../config/resume.js';
import { readFilter } from '../coordination/settings-values.js';
import { readConfigText } from '../workspace.js';
import type { AppContext } from './context.js';
import { storeExists } from '../store/jsonl/layout.js';

/**
 * A tasks command's environment from its CLI context (settings read and checked first). The
 * settings are read through the compiled validators: zod and `yaml` load only for a config the
 * plain reader cannot settle, which then fails or reads exactly as before.
 */
export async function tasksEnv(ctx: AppContext): Promise<TasksEnv> {
  const workspace = await ctx.workspace();
  await ctx.resolveSession();
  const configText = readConfigText(workspace);
  const invocation = await loadResumeInvocation(configText);
  const settings = await loadCoordinationSettings(configText);
  // Read commands in a workspace without `.baton/` fold an empty log and create nothing.
  const hasStore = storeExists(workspace, ctx.env);
  return {
    workspace,
    now: ctx.now,
    actor: ctx.actor,
    session: ctx.session,
    sessionName: ctx.sessionSource?.(),
    invocation,
    workspaceFilter: readFilter(settings),
    catalog: await ctx.catalog(),
    cacheDir: hasStore ? await ctx.cacheDir() : undefined,
    store: () => ctx.store(),
    hasStore,
  };
}
