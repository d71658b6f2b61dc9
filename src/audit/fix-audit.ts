import { decideAuditFixes, releaseCandidates, type AppliedFix, type AuditFixState } from '../../deciders/audit.js';
import type { AppContext } from '../app/context.js';
import { workUnitsEnv } from '../app/work-units-env.js';
import { runWorkUnitsCommand, loadWorkUnits } from '../work-units/env.js';
import type { AuditResult } from './run-audit.js';

/**
 * `baton audit --fix`: the corrective events of deciders/audit.ts, through the one command handler.
 * The WU streams a release may concern are read before the fold (so a claim or checkpoint landing in
 * between makes the append conflict and the handler decide again); the repository and file facts
 * are the audit's. Returns what was appended, each with the finding code it settles.
 */
export async function fixAudit(app: AppContext, audit: AuditResult): Promise<(AppliedFix & { seq: number })[]> {
  const env = await workUnitsEnv(app);
  let candidates = releaseCandidates(audit.fold);
  const read = async (): Promise<AuditFixState> => {
    const versions: Record<string, number> = {};
    for (const wu of candidates) versions[`wu/${wu}`] = await env.store.streamVersion(`wu/${wu}`);
    const fold = (await loadWorkUnits(env)).state;
    // A retry reads the WUs the latest fold names (a claim made since is decided on next time).
    candidates = releaseCandidates(fold);
    return { fold, versions };
  };
  const command = { now: app.now, actor: app.actor, repository: audit.repository, disk: audit.disk, windows: audit.settings.windows };
  const handled = await runWorkUnitsCommand(env, read, (state) => decideAuditFixes(command, state));
  const applied = handled.decision?.outcome ?? [];
  return applied.map((fix, i) => ({ ...fix, seq: handled.appended[i]?.seq ?? 0 }));
}
