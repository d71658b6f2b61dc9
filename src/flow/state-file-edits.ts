import { join } from 'node:path';
import type { NewEvent } from '../../events/envelope.js';
import { latestFlow, renderFlowFile, STATE_FILE } from '../../projections/flow/index.js';
import { withArtifactLock } from '../artifacts/artifact-lock.js';
import { FileAccess, readIfFile, writeFileAtomic, writeIfChanged } from '../artifacts/atomic-write.js';
import { backupFile } from '../artifacts/backup-file.js';
import type { CommandContext } from '../cli/context.js';
import { BatonError, ErrorCode } from '../errors.js';
import { foldFlows } from './flow-workspace.js';
import { editedOutside, rememberRendering, sha256 } from './state-file-memory.js';
import { observeEdit, readFrontmatter } from './observe-edit.js';

/**
 * Outside edits of the flow state files become facts, never silent losses (issue 20). Baton keeps
 * the SHA-256 of the last rendering it wrote for each state file under `.baton/cache/` (safe to
 * delete: without it every differing file is read as an edit, which is the safe side). Before a flow
 * command decides, a file that differs from both that rendering and the current one was edited by
 * someone else: a legal edit is appended as a `flow.observed` event plus the flow facts it amounts
 * to, attributed to the file (`actor: file:<path>`); an illegal or unreadable one is copied to a
 * timestamped `.bak`, named in a warning with the key and the rule, and the rendering is restored.
 */
export function keptAsideWarning(relPath: string, key: string, rule: string, backup: string, workspace: string): string {
  const kept = backup.startsWith(`${workspace}/`) ? backup.slice(workspace.length + 1) : backup;
  return `${relPath} was edited outside Baton and the edit is not a legal flow step: key '${key}': ${rule.replace(/\.$/, '')}. The edited file is kept at ${kept}; the file is restored from the log.`;
}

const ATTEMPTS = 4;

/**
 * Read the latest flow's state file if it was edited outside Baton; returns the warnings to show.
 * Runs under the artifact lock, so two commands never take the same edit twice.
 */
export async function reconcileFlowFile(ctx: CommandContext): Promise<string[]> {
  const workspace = await ctx.workspace();
  const store = await ctx.store();
  return withArtifactLock(workspace, async () => {
    for (let attempt = 1; ; attempt++) {
      const state = await foldFlows(ctx);
      const record = latestFlow(state);
      if (record === null) return [];
      const rel = STATE_FILE[record.context.variant];
      const path = join(workspace, rel);
      const bytes = readIfFile(workspace, path);
      const rendering = renderFlowFile(record);
      if (bytes === undefined || !(await editedOutside(ctx, rel, bytes, rendering))) return [];
      const hash = sha256(bytes);
      const read = readFrontmatter(bytes.toString('utf8'));
      const seen = 'front' in read ? observeEdit(record.context, read.front, rel, hash, ctx.now) : { kind: 'illegal' as const, key: '(frontmatter)', rule: read.error };
      const outcome =
        seen.kind === 'unchanged'
          ? { kind: 'illegal' as const, key: '(body)', rule: 'the Markdown log below the frontmatter is rendered from the log; edit the frontmatter or use baton flow update' }
          : seen;
      if (outcome.kind === 'legal') {
        const events: NewEvent[] = outcome.facts.map((fact) => ({ type: fact.type, stream: record.stream, data: fact.data, actor: `file:${rel}` }));
        try {
          await store.append(events, { expectedVersion: { [record.stream]: record.version } });
        } catch (error) {
          if (error instanceof BatonError && error.code === ErrorCode.CONFLICT && attempt < ATTEMPTS) continue;
          throw error;
        }
        const after = latestFlow(await foldFlows(ctx));
        if (after !== null) {
          const content = renderFlowFile(after);
          writeIfChanged(workspace, join(workspace, STATE_FILE[after.context.variant]), content, FileAccess.shared);
          await rememberRendering(ctx, STATE_FILE[after.context.variant], content);
        }
        return [];
      }
      const backup = backupFile(workspace, path, bytes, ctx.now);
      writeFileAtomic(workspace, path, rendering, FileAccess.shared);
      await rememberRendering(ctx, rel, rendering);
      return [keptAsideWarning(rel, outcome.key, outcome.rule, backup, workspace)];
    }
  });
}
