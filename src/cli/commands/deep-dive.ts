import { DeepDiveStatusEnvelope } from '../../../projections/flow/index.js';
import { compileDeepDive, initDeepDive } from '../../app/commands/deep-dive.js';
import type { CommandContext } from '../context.js';
import { humanDeepDive } from './flow-render.js';

export interface DeepDiveInitFlags {
  scope?: string;
  focusPath?: string;
  agentCount?: string;
  refresh?: boolean;
}

/** `baton deep-dive init` (§8.2): src/app/commands/deep-dive.ts, printed. */
export async function deepDiveInit(ctx: CommandContext, flags: DeepDiveInitFlags): Promise<void> {
  const envelope = await initDeepDive(ctx, { scope: flags.scope, focus_path: flags.focusPath, agent_count: flags.agentCount, refresh: flags.refresh });
  ctx.output.emit(DeepDiveStatusEnvelope, envelope, humanDeepDive);
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

/** `baton deep-dive compile` (§8.3): src/app/commands/deep-dive.ts, printed. */
export async function deepDiveCompile(ctx: CommandContext, flags: DeepDiveCompileFlags): Promise<void> {
  const envelope = await compileDeepDive(ctx, {
    overview: flags.overview,
    tech_stack: flags.techStack,
    entry_points: flags.entryPoints,
    key_patterns: flags.keyPatterns,
    architecture: flags.architecture,
    conventions: flags.conventions,
    antipatterns: flags.antipatterns,
    quick_reference: flags.quickReference,
    agent_notes: flags.agentNotes,
    agents_spawned: flags.agentsSpawned,
    agents_completed: flags.agentsCompleted,
    mark_complete: flags.markComplete,
  });
  ctx.output.emit(DeepDiveStatusEnvelope, envelope, humanDeepDive);
}
