import { join } from 'node:path';
import { decideDeepDiveFileEdit } from '../../deciders/deep-dive.js';
import { decideFlowFileEdit, type FlowFileEdit } from '../../deciders/flows.js';
import { DEEP_DIVE_FILE, latestFlow, renderDeepDiveFile, renderFlowFile, STATE_FILE, type FlowRecord, type FlowState } from '../../projections/flow/index.js';
import { readDeepDiveFile } from './agent-flow-deep-dive.js';
import { withArtifactLock } from '../artifacts/artifact-lock.js';
import { FileAccess, readIfFile, writeFileAtomic, writeIfChanged } from '../artifacts/atomic-write.js';
import { backupFile } from '../artifacts/backup-file.js';
import type { AppContext } from '../app/context.js';
import { handleCommand } from '../store/handle-command.js';
import { foldFlows } from './flow-workspace.js';
import { editedOutside, readMemory, rememberRendering, sha256 } from './state-file-memory.js';
import { observeEdit, readFrontmatter } from './observe-edit.js';
import { appendedEntries } from './appended-log.js';
import { isActiveAgentFlowRun } from './agent-flow-file.js';

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
    // The edit is attributed to the file it was read from, which the read names.
    let actor = 'system';
    const io = {
      store,
      catalog: await ctx.catalog(),
      now: ctx.now,
      get actor(): string {
        return actor;
      },
      read: async (): Promise<FlowFileRead | null> => {
        const read = await readFlowFile(ctx, workspace);
        if (read !== null) actor = `file:${read.rel}`;
        return read;
      },
    };
    const handled = await handleCommand(io, (read) => (read === null ? null : decideFlowFileEdit(read.edit, read.record)));
    const read = handled.state;
    if (read === null) return [];
    if (handled.appended.length > 0) {
      const after = latestFlow(await foldFlows(ctx));
      if (after !== null) {
        const content = renderFlowFile(after);
        writeIfChanged(workspace, join(workspace, STATE_FILE[after.context.variant]), content, FileAccess.shared);
        await rememberRendering(ctx, STATE_FILE[after.context.variant], content);
      }
      return [];
    }
    if (read.edit.kind === 'legal') return [];
    return [await keepAside(ctx, workspace, { rel: read.rel, bytes: read.bytes, rendering: read.rendering }, read.edit)];
  });
}

interface FlowFileRead {
  record: FlowRecord;
  rel: string;
  bytes: Buffer;
  rendering: string;
  edit: FlowFileEdit;
}

/** The latest flow's state file, when someone else edited it, with the edit the machine reads in it. */
async function readFlowFile(ctx: AppContext, workspace: string): Promise<FlowFileRead | null> {
  const record = latestFlow(await foldFlows(ctx));
  if (record === null) return null;
  const rel = STATE_FILE[record.context.variant];
  const bytes = readIfFile(workspace, join(workspace, rel));
  const rendering = renderFlowFile(record);
  if (bytes === undefined || !(await editedOutside(ctx, rel, bytes, rendering))) return null;
  const text = bytes.toString('utf8');
  // A new Agent Flow run over a flow that has ended is no edit of that flow: `flow adopt` takes it over.
  if (record.context.status !== 'active' && isActiveAgentFlowRun(text) !== null) return null;
  const read = readFrontmatter(text);
  const seen =
    'front' in read
      ? observeEdit(record.context, read.front, rel, sha256(bytes), ctx.now, appendedEntries(text, rendering))
      : { kind: 'illegal' as const, key: '(frontmatter)', rule: read.error };
  const edit: FlowFileEdit =
    seen.kind === 'unchanged'
      ? {
          kind: 'illegal',
          key: '(body)',
          rule: 'the Markdown log below the frontmatter is rendered from the log; edit the frontmatter or use baton flow update',
        }
      : seen;
  return { record, rel, bytes, rendering, edit };
}

/** An edit that is no legal step: the file kept beside, the rendering restored, the warning that says so. */
async function keepAside(
  ctx: AppContext,
  workspace: string,
  file: { rel: string; bytes: Buffer; rendering: string },
  why: { key: string; rule: string },
): Promise<string> {
  const path = join(workspace, file.rel);
  const backup = backupFile(workspace, path, file.bytes, ctx.now);
  writeFileAtomic(workspace, path, file.rendering, FileAccess.shared);
  await rememberRendering(ctx, file.rel, file.rendering);
  return keptAsideWarning(file.rel, why.key, why.rule, backup, workspace);
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
  const io = { store, catalog: await ctx.catalog(), now: ctx.now, actor: `file:${DEEP_DIVE_FILE}`, read: async () => readDeepDiveEdit(ctx, workspace) };
  return withArtifactLock(workspace, async () => {
    const handled = await handleCommand(io, (read) => (read === null ? null : decideDeepDiveFileEdit(read.read, read.state)));
    const read = handled.state;
    if (read === null) return [];
    if (handled.appended.length > 0) {
      const after = (await foldFlows(ctx)).deep_dive;
      if (after !== null) {
        const content = renderDeepDiveFile(after);
        writeIfChanged(workspace, join(workspace, DEEP_DIVE_FILE), content, FileAccess.shared);
        await rememberRendering(ctx, DEEP_DIVE_FILE, content);
      }
      return [];
    }
    const why = handled.decision?.outcome ?? { key: '(file)', rule: 'unreadable' };
    return [await keepAside(ctx, workspace, { rel: DEEP_DIVE_FILE, bytes: read.bytes, rendering: read.rendering }, why)];
  });
}

/** The deep-dive file, when someone else edited it, read back (or why it cannot be). */
async function readDeepDiveEdit(
  ctx: AppContext,
  workspace: string,
): Promise<{ state: FlowState; bytes: Buffer; rendering: string; read: ReturnType<typeof readDeepDiveFile> } | null> {
  const state = await foldFlows(ctx);
  const dd = state.deep_dive;
  if (dd === null) return null;
  const bytes = readIfFile(workspace, join(workspace, DEEP_DIVE_FILE));
  const rendering = renderDeepDiveFile(dd);
  if (bytes === undefined || !(await editedOutside(ctx, DEEP_DIVE_FILE, bytes, rendering))) return null;
  return { state, bytes, rendering, read: readDeepDiveFile(bytes.toString('utf8')) };
}
