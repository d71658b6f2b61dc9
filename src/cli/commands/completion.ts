import { invalidInput } from '../../errors.js';
import type { CommandContext } from '../context.js';
import { completionScript, Shells, type Shell } from '../completion-script.js';
import { buildProgram } from '../program.js';

/** The script is printed as is in both output modes: it is what the shell evaluates, not an envelope. */
export async function completion(ctx: CommandContext, shell: string): Promise<void> {
  if (!(Shells as readonly string[]).includes(shell)) throw invalidInput(`must be one of ${Shells.join(', ')} (got "${shell}")`, 'shell');
  ctx.output.line(completionScript(shell as Shell, buildProgram()).trimEnd());
}
