import { randomBytes } from 'node:crypto';
import { join, relative } from 'node:path';
import { decideDeepDiveCompile, decideDeepDiveInit, type CompileDeepDive, type InitDeepDive } from '../../../deciders/deep-dive.js';
import { focusPath, type DeepDiveCompiledData } from '../../../events/flow/deep-dive-events.js';
import { DEEP_DIVE_SECTIONS, MAX_SECTION_LENGTH, type DeepDiveSection } from '../../../events/flow/vocabulary.js';
import { DEEP_DIVE_FILE, DeepDiveStatusEnvelope, deepDiveStatusEnvelope } from '../../../projections/flow/index.js';
import { readIfFile } from '../../artifacts/atomic-write.js';
import { backupFile } from '../../artifacts/backup-file.js';
import { invalidFlowInput } from '../../flow/flow-errors.js';
import { decideAndAppend, StateFileKind, syncStateFiles } from '../../flow/flow-workspace.js';
import { reconcileDeepDiveFile } from '../../flow/state-file-edits.js';
import type { AppContext } from '../context.js';
import { checked } from '../envelopes/checked.js';

/**
 * The deep dive (phase-gates.md §8), the codebase context a flow can use, as the application runs
 * it for every surface: the input by its own names (`focus_path`, `tech_stack`, `agents_spawned`),
 * checked; the decision through the command handler (deciders/deep-dive.ts); its file rendered.
 */
export interface DeepDiveInitInput {
  /** `full` (default) or `focused`. */
  scope?: string | undefined;
  /** With the focused scope: a relative path inside the workspace. */
  focus_path?: string | undefined;
  /** How many exploring agents (default 5); text as a command line gives it. */
  agent_count?: string | number | undefined;
  /** Start over; the current file is backed up first. */
  refresh?: boolean | undefined;
}

/** The sections to merge (only those given change; "" resets one), the agent counters, and whether it is complete. */
export type DeepDiveCompileInput = Partial<Record<DeepDiveSection, string>> & {
  agents_spawned?: string | number | undefined;
  agents_completed?: string | number | undefined;
  mark_complete?: boolean | undefined;
};

type Scope = InitDeepDive['scope'];

/** The scope and focus path, checked together: a focus path only with the focused scope, and always inside the workspace. */
function scopeOf(input: DeepDiveInitInput): { scope: Scope; focus: string | null } {
  const scope = input.scope ?? 'full';
  if (scope !== 'full' && scope !== 'focused') throw invalidFlowInput('scope', (name) => `${name} must be full or focused`);
  if (scope === 'focused' && input.focus_path === undefined) throw invalidFlowInput('scope', (s, f) => `${s} focused requires ${f}`, ['focus_path']);
  if (scope === 'full' && input.focus_path !== undefined) throw invalidFlowInput('focus_path', (f, s) => `${f} is only for ${s} focused`, ['scope']);
  if (input.focus_path === undefined) return { scope, focus: null };
  const posix = input.focus_path
    .replace(/\\/g, '/')
    .replace(/^\.\/+/, '')
    .replace(/\/+$/, '');
  if (!focusPath.safeParse(posix).success) throw invalidFlowInput('focus_path', (name) => `${name} must be a relative path inside the workspace, without ".."`);
  return { scope, focus: posix };
}

/** `deep-dive init` (§8.2): refused while one exists, unless refreshed (the old file is kept first). */
export async function initDeepDive(app: AppContext, input: DeepDiveInitInput): Promise<DeepDiveStatusEnvelope> {
  const { scope, focus } = scopeOf(input);
  let agentCount = 5;
  if (input.agent_count !== undefined) {
    const given = String(input.agent_count);
    if (!/^\d+$/.test(given) || Number(given) < 1 || !Number.isSafeInteger(Number(given)))
      throw invalidFlowInput('agent_count', (name) => `${name} must be a positive integer`);
    agentCount = Number(given);
  }
  const workspace = await app.workspace();
  const path = join(workspace, DEEP_DIVE_FILE);
  const id = `deepdive_${randomBytes(12).toString('hex')}`;
  const refresh = input.refresh === true;
  let backupPath: string | null = null;

  await decideAndAppend(app, (state) => {
    const existing = readIfFile(workspace, path);
    // A refresh keeps the old file first (only a refresh gets past the decider with a file there).
    if (refresh && existing !== undefined && backupPath === null) backupPath = relative(workspace, backupFile(workspace, path, existing, app.now));
    const command: InitDeepDive = { deepDiveId: id, scope, focusPath: focus, agentCount, refresh, fileExists: existing !== undefined, backupPath };
    return decideDeepDiveInit(command, state);
  });
  const state = await syncStateFiles(app, [StateFileKind.deepDive]);
  return checked(DeepDiveStatusEnvelope, deepDiveStatusEnvelope(state.deep_dive!, app.now, backupPath));
}

function count(value: string | number | undefined, field: 'agents_spawned' | 'agents_completed'): number | undefined {
  if (value === undefined) return undefined;
  const given = String(value);
  if (!/^\d+$/.test(given) || !Number.isSafeInteger(Number(given))) throw invalidFlowInput(field, (name) => `${name} must be an integer ≥ 0`);
  return Number(given);
}

/** `deep-dive compile` (§8.3): sections merge, never wipe. */
export async function compileDeepDive(app: AppContext, input: DeepDiveCompileInput): Promise<DeepDiveStatusEnvelope> {
  const sections: DeepDiveCompiledData['sections'] = {};
  for (const name of DEEP_DIVE_SECTIONS) {
    const text = input[name];
    if (typeof text !== 'string') continue;
    if (text.length > MAX_SECTION_LENGTH) throw invalidFlowInput(name, (field) => `${field} must be at most 64 KiB`);
    sections[name] = text;
  }
  const spawned = count(input.agents_spawned, 'agents_spawned');
  const completed = count(input.agents_completed, 'agents_completed');
  for (const warning of await reconcileDeepDiveFile(app)) app.output.warn(warning);
  const command: CompileDeepDive = { sections, agentsSpawned: spawned, agentsCompleted: completed, markComplete: input.mark_complete === true };
  await decideAndAppend(app, (state) => decideDeepDiveCompile(command, state));
  const state = await syncStateFiles(app, [StateFileKind.deepDive]);
  return checked(DeepDiveStatusEnvelope, deepDiveStatusEnvelope(state.deep_dive!, app.now, null));
}
