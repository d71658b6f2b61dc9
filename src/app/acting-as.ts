import type { AppContext } from './context.js';

/**
 * `app` acting as `session`, a session a client integration derived itself (a Claude Code hook's):
 * the same clock, workspace, store and catalog, with that session as the acting session and actor,
 * so the hook runs the same application commands a person runs with `--session`.
 */
export function actingAs(app: AppContext, session: string): AppContext {
  return {
    now: app.now,
    actor: session,
    session,
    env: app.env,
    output: app.output,
    resolveSession: async () => undefined,
    sessionIdFor: (token) => app.sessionIdFor(token),
    workspace: () => app.workspace(),
    cacheDir: () => app.cacheDir(),
    catalog: () => app.catalog(),
    store: () => app.store(),
    useCompiledValidation: (storeAccess) => app.useCompiledValidation(storeAccess),
  };
}
