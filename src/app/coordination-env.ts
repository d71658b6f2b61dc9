import { AGENT_IDENTITY_PATTERN } from '../../events/coordination/vocabulary.js';
import type { CoordinationEnv } from '../coordination/env.js';
import { loadCoordinationSettings } from '../config/coordination.js';
import { invalidInput } from '../errors.js';
import { readConfigText } from '../workspace.js';
import type { AppContext } from './context.js';
import { workspaceLayout } from '../store/jsonl/layout.js';

/** A coordination command's environment from its application context (settings read and checked first). */
export async function coordinationEnv(ctx: AppContext, options: { actAsSession?: boolean } = {}): Promise<CoordinationEnv & { workspace: string }> {
  const workspace = await ctx.workspace();
  // A command that does not act as the session (session start, heartbeat) reads nothing to name it.
  if (options.actAsSession !== false) await ctx.resolveSession();
  const settings = await loadCoordinationSettings(readConfigText(workspace));
  return {
    workspace,
    store: await ctx.store(),
    catalog: await ctx.catalog(),
    settings,
    now: ctx.now,
    session: options.actAsSession === false ? undefined : ctx.session,
    sessionName: ctx.sessionSource?.(),
    envIdentity: envIdentity(ctx.env),
    cacheDir: await ctx.cacheDir(),
    pendingDir: workspaceLayout(workspace).pendingHooks,
  };
}

/** `BATON_AGENT_IDENTITY`, checked like `--agent-identity`. */
export function envIdentity(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env['BATON_AGENT_IDENTITY']?.trim();
  if (raw === undefined || raw === '') return undefined;
  if (!AGENT_IDENTITY_PATTERN.test(raw))
    throw invalidInput('must match ^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$ and not start with session_', 'BATON_AGENT_IDENTITY');
  return raw;
}
