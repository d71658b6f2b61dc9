import { randomBytes } from 'node:crypto';
import { join, relative } from 'node:path';
import { decideDeepDiveCompile, decideDeepDiveInit, type CompileDeepDive, type InitDeepDive } from '../../../deciders/deep-dive.js';
import { focusPath, type DeepDiveCompiledData } from '../../../events/flow/deep-dive-events.js';
import { DEEP_DIVE_SECTIONS, MAX_SECTION_LENGTH, type DeepDiveSection } from '../../../events/flow/vocabulary.js';
import { DEEP_DIVE_FILE, DeepDiveStatusEnvelope, deepDiveStatusEnvelope } from '../../../projections/flow/index.js';
import { readIfFile } from '../../artifacts/atomic-write.js';
import { backupFile } from '../../artifacts/backup-file.js';
import { ErrorCode } from '../../errors.js';
import { refuse } from '../../flow/flow-errors.js';
import { decideAndAppend, StateFileKind, syncStateFiles } from '../../flow/flow-workspace.js';
import { reconcileDeepDiveFile } from '../../flow/state-file-edits.js';
import type { CommandContext } from '../context.js';
import { humanDeepDive } from './flow-render.js';

export interface DeepDiveInitFlags {
  scope?: string;
  focusPath?: string;
  agentCount?: string;
  refresh?: boolean;
}

function invalid(message: string): Error {
  return refuse(ErrorCode.INVALID_INPUT, message);
}

/** `baton deep-dive init` (§8.2). */
export async function deepDiveInit(ctx: CommandContext, flags: DeepDiveInitFlags): Promise<void> {
  const scope = flags.scope ?? 'full';
  if (scope !== 'full' && scope !== 'focused') throw invalid('--scope must be full or focused');
  if (scope === 'focused' && flags.focusPath === undefined) throw invalid('--scope focused requires --focus-path');
  if (scope === 'full' && flags.focusPath !== undefined) throw invalid('--focus-path is only for --scope focused');
  let focus: string | null = null;
  if (flags.focusPath !== undefined) {
    const posix = flags.focusPath
      .replace(/\\/g, '/')
      .replace(/^\.\/+/, '')
      .replace(/\/+$/, '');
    if (!focusPath.safeParse(posix).success) throw invalid('--focus-path must be a relative path inside the workspace, without ".."');
    focus = posix;
  }
  let agentCount = 5;
  if (flags.agentCount !== undefined) {
    if (!/^\d+$/.test(flags.agentCount) || Number(flags.agentCount) < 1 || !Number.isSafeInteger(Number(flags.agentCount)))
      throw invalid('--agent-count must be a positive integer');
    agentCount = Number(flags.agentCount);
  }
  const workspace = await ctx.workspace();
  const path = join(workspace, DEEP_DIVE_FILE);
  const id = `deepdive_${randomBytes(12).toString('hex')}`;
  let backupPath: string | null = null;

  await decideAndAppend(ctx, (state) => {
    const existing = readIfFile(workspace, path);
    // A refresh keeps the old file first (only a refresh gets past the decider with a file there).
    if (flags.refresh && existing !== undefined && backupPath === null) backupPath = relative(workspace, backupFile(workspace, path, existing, ctx.now));
    const command: InitDeepDive = {
      deepDiveId: id,
      scope,
      focusPath: focus,
      agentCount,
      refresh: flags.refresh === true,
      fileExists: existing !== undefined,
      backupPath,
    };
    return decideDeepDiveInit(command, state);
  });
  const state = await syncStateFiles(ctx, [StateFileKind.deepDive]);
  ctx.output.emit(DeepDiveStatusEnvelope, deepDiveStatusEnvelope(state.deep_dive!, ctx.now, backupPath), humanDeepDive);
}

export type DeepDiveCompileFlags = Partial<
  Record<
    | 'overview'
    | 'techStack'
    | 'entryPoints'
    | 'keyPatterns'
    | 'architecture'
    | 'conventions'
    | 'antipatterns'
    | 'quickReference'
    | 'agentNotes'
    | 'agentsSpawned'
    | 'agentsCompleted',
    string
  >
> & {
  markComplete?: boolean;
};

const FLAG_OF: Record<DeepDiveSection, keyof DeepDiveCompileFlags> = {
  overview: 'overview',
  tech_stack: 'techStack',
  entry_points: 'entryPoints',
  key_patterns: 'keyPatterns',
  architecture: 'architecture',
  conventions: 'conventions',
  antipatterns: 'antipatterns',
  quick_reference: 'quickReference',
  agent_notes: 'agentNotes',
};

function count(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw invalid(`${flag} must be an integer ≥ 0`);
  return Number(value);
}

/** `baton deep-dive compile` (§8.3): sections merge, never wipe. */
export async function deepDiveCompile(ctx: CommandContext, flags: DeepDiveCompileFlags): Promise<void> {
  const sections: DeepDiveCompiledData['sections'] = {};
  for (const name of DEEP_DIVE_SECTIONS) {
    const text = flags[FLAG_OF[name]];
    if (typeof text !== 'string') continue;
    if (text.length > MAX_SECTION_LENGTH) throw invalid(`--${name.replace(/_/g, '-')} must be at most 64 KiB`);
    sections[name] = text;
  }
  const spawned = count(flags.agentsSpawned, '--agents-spawned');
  const completed = count(flags.agentsCompleted, '--agents-completed');
  const warnings = await reconcileDeepDiveFile(ctx);
  for (const warning of warnings) ctx.output.warn(warning);
  const command: CompileDeepDive = { sections, agentsSpawned: spawned, agentsCompleted: completed, markComplete: flags.markComplete === true };
  await decideAndAppend(ctx, (state) => decideDeepDiveCompile(command, state));
  const state = await syncStateFiles(ctx, [StateFileKind.deepDive]);
  ctx.output.emit(DeepDiveStatusEnvelope, deepDiveStatusEnvelope(state.deep_dive!, ctx.now, null), humanDeepDive);
}
