import { loadWorkUnitsConfig } from '../config/work-units.js';
import type { WorkUnitsEnv } from '../work-units/env.js';
import { readConfigText } from '../workspace.js';
import type { AppContext } from './context.js';

/** A work-unit command's environment from its application context (the config is read and checked first). */
export async function workUnitsEnv(ctx: AppContext): Promise<WorkUnitsEnv> {
  const workspace = await ctx.workspace();
  await ctx.resolveSession();
  const config = await loadWorkUnitsConfig(readConfigText(workspace));
  return {
    workspace,
    config,
    store: await ctx.store(),
    catalog: await ctx.catalog(),
    now: ctx.now,
    session: ctx.session,
    sessionName: ctx.sessionSource?.(),
    actor: ctx.actor,
    cacheDir: await ctx.cacheDir(),
    warn: (message) => ctx.output.warn(message),
  };
}
