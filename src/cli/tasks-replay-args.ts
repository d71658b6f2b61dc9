import { storeExists, storePathOf } from '../tasks/env.js';
import { resumeInvocationFrom } from '../tasks/settings.js';
import { readConfigText } from '../workspace.js';
import type { CommandContext } from './context.js';

/** What the tasks views need from outside the log when `replay` computes them (tasks.md §11.3). */
export async function tasksReplayArgs(ctx: CommandContext): Promise<Record<string, string | boolean | undefined>> {
  const workspace = await ctx.workspace();
  await ctx.resolveSession();
  return {
    install_dir: workspace,
    resume_invocation: JSON.stringify(resumeInvocationFrom(readConfigText(workspace))),
    store_path: storePathOf(workspace),
    store_exists: storeExists(workspace),
    session: ctx.session,
  };
}
