import { join } from 'node:path';
import type { NewEvent } from '../../events/envelope.js';
import { DeepDiveEventType, type DeepDiveCompiledData, type ExtraSection } from '../../events/flow/deep-dive-events.js';
import { DEEP_DIVE_SECTIONS } from '../../events/flow/vocabulary.js';
import { DEEP_DIVE_FILE, latestFlow, renderDeepDiveFile, renderFlowFile, STATE_FILE } from '../../projections/flow/index.js';
import { readDeepDiveFile } from './agent-flow-deep-dive.js';
import { withArtifactLock } from '../artifacts/artifact-lock.js';
import { FileAccess, readIfFile, writeFileAtomic, writeIfChanged } from '../artifacts/atomic-write.js';
import { backupFile } from '../artifacts/backup-file.js';
import type { AppContext } from '../app/context.js';
import { BatonError, ErrorCode } from '../errors.js';
import { foldFlows } from './flow-workspace.js';
import { editedOutside, readMemory, rememberRendering, sha256 } from './state-file-memory.js';
import { observeEdit, readFrontmatter } from './observe-edit.js';

/**
 * Outside edits of the flow state files become facts, never silent losses. Baton keeps
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

async function allRenderedByBaton(ctx: AppContext, workspace: string, files: readonly string[]): Promise<boolean> {
  const memory = await readMemory(ctx);
  return files.every((rel) => {
    const bytes = readIfFile(workspace, join(workspace, rel));
    return bytes === undefined || memory[rel] === sha256(bytes);
  });
}

/**
 * Read the latest flow's state file if it was edited outside Baton; returns the warnings to show.
 * Runs under the artifact lock, so two commands never take the same edit twice.
 */
export async function reconcileFlowFile(ctx: AppContext): Promise<string[]> {
  const workspace = await ctx.workspace();
  // Fast path: every state file present is the last rendering Baton wrote, so nobody edited it.
  if (await allRenderedByBaton(ctx, workspace, Object.values(STATE_FILE))) return [];
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

/**
 * The same for `.claude/deep-dive.local.md`: an edited file is read back; sections that changed
 * (Baton's and any other `## ` section, which Baton then carries through every compile) and
 * changed agent counters become a `deep_dive.compiled` event attributed to the file; a file that
 * does not parse, or changes the scope, focus path or agent count, is kept aside and restored.
 */
export async function reconcileDeepDiveFile(ctx: AppContext): Promise<string[]> {
  const workspace = await ctx.workspace();
  if (await allRenderedByBaton(ctx, workspace, [DEEP_DIVE_FILE])) return [];
  const store = await ctx.store();
  return withArtifactLock(workspace, async () => {
    for (let attempt = 1; ; attempt++) {
      const dd = (await foldFlows(ctx)).deep_dive;
      if (dd === null) return [];
      const path = join(workspace, DEEP_DIVE_FILE);
      const bytes = readIfFile(workspace, path);
      const rendering = renderDeepDiveFile(dd);
      if (bytes === undefined || !(await editedOutside(ctx, DEEP_DIVE_FILE, bytes, rendering))) return [];
      const read = readDeepDiveFile(bytes.toString('utf8'));
      let problem: { key: string; rule: string } | null = 'key' in read ? read : null;
      let data: DeepDiveCompiledData | null = null;
      if ('file' in read) {
        const f = read.file;
        if (f.scope !== dd.scope) problem = { key: 'scope', rule: `the scope is set by deep-dive init (it is '${dd.scope}')` };
        else if (f.focus_path !== dd.focus_path) problem = { key: 'focus_path', rule: 'the focus path is set by deep-dive init' };
        else if (f.agent_count !== dd.agent_count) problem = { key: 'agent_count', rule: `the agent count is set by deep-dive init (it is ${dd.agent_count})` };
        else {
          const sections: DeepDiveCompiledData['sections'] = {};
          for (const name of DEEP_DIVE_SECTIONS) {
            const now = f.sections[name] ?? '';
            if (now !== (dd.sections[name] ?? '')) sections[name] = now;
          }
          const extra: ExtraSection[] = f.extra_sections.filter((e) => dd.extra_sections.find((d) => d.title === e.title)?.text !== e.text);
          for (const gone of dd.extra_sections) if (!f.extra_sections.some((e) => e.title === gone.title)) extra.push({ title: gone.title, text: '' });
          const counters = f.agents_spawned !== dd.agents_spawned || f.agents_completed !== dd.agents_completed;
          const markComplete = f.phase === 'complete' && dd.phase !== 'complete';
          if (Object.keys(sections).length === 0 && extra.length === 0 && !counters && !markComplete) {
            problem = { key: '(body)', rule: 'only the sections and the agent counters can be edited; the rest is rendered from the log' };
          } else {
            data = {
              deep_dive_id: dd.deep_dive_id,
              sections,
              ...(extra.length > 0 ? { extra_sections: extra } : {}),
              ...(counters ? { agents_spawned: f.agents_spawned, agents_completed: f.agents_completed } : {}),
              mark_complete: markComplete,
            };
          }
        }
      }
      if (data !== null) {
        try {
          await store.append([{ type: DeepDiveEventType.compiled, stream: dd.stream, data, actor: `file:${DEEP_DIVE_FILE}` }], { expectedVersion: { [dd.stream]: dd.version } });
        } catch (error) {
          if (error instanceof BatonError && error.code === ErrorCode.CONFLICT && attempt < ATTEMPTS) continue;
          throw error;
        }
        const after = (await foldFlows(ctx)).deep_dive;
        if (after !== null) {
          const content = renderDeepDiveFile(after);
          writeIfChanged(workspace, path, content, FileAccess.shared);
          await rememberRendering(ctx, DEEP_DIVE_FILE, content);
        }
        return [];
      }
      const why = problem ?? { key: '(file)', rule: 'unreadable' };
      const backup = backupFile(workspace, path, bytes, ctx.now);
      writeFileAtomic(workspace, path, rendering, FileAccess.shared);
      await rememberRendering(ctx, DEEP_DIVE_FILE, rendering);
      return [keptAsideWarning(DEEP_DIVE_FILE, why.key, why.rule, backup, workspace)];
    }
  });
}
