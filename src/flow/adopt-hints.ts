import { join } from 'node:path';
import { STATE_FILE } from '../../projections/flow/index.js';
import { readIfFile } from '../artifacts/atomic-write.js';
import type { AppContext } from '../app/context.js';
import { isActiveAgentFlowRun } from './agent-flow-file.js';

/** Agent Flow runs Baton has not recorded, each with the one command that takes it over. */
export async function adoptableFileHints(ctx: AppContext): Promise<string[]> {
  const workspace = await ctx.workspace();
  const hints: string[] = [];
  for (const rel of Object.values(STATE_FILE)) {
    const bytes = readIfFile(workspace, join(workspace, rel));
    const run = bytes === undefined ? null : isActiveAgentFlowRun(bytes.toString('utf8'));
    if (run !== null) hints.push(adoptHint(rel, run.current_phase));
  }
  return hints;
}

export function adoptHint(rel: string, phase: string): string {
  return `${rel} holds an Agent Flow run (phase: ${phase}) that Baton has not recorded; take it over with: baton flow adopt --file ${rel}`;
}
