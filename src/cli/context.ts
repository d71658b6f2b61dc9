import { BatonAppContext } from '../app/app-context.js';
import { chooseMode, Output } from './output.js';
import { stdoutIsTTY } from './stdio.js';

/**
 * The CLI's application context: the global flags become the context's inputs (`--dir`, `--session`,
 * named so in an error), and the output mode decides where the command speaks. Everything else (the
 * clock, the session, the workspace, the store and the catalog) is BatonAppContext's
 * (src/app/app-context.ts), the same for every surface.
 */
export interface GlobalFlags {
  dir?: string;
  json?: boolean;
  human?: boolean;
  session?: string;
  /** No progress lines on stderr (src/cli/progress.ts). */
  quiet?: boolean;
}

export class CommandContext extends BatonAppContext {
  declare readonly output: Output;

  constructor(
    readonly flags: GlobalFlags,
    env: NodeJS.ProcessEnv = process.env,
    /** Where the command speaks (default: stdout/stderr). */
    output?: Output,
  ) {
    super({
      dir: flags.dir,
      session: flags.session,
      env,
      output: output ?? new Output(chooseMode(flags, stdoutIsTTY)),
      names: { dir: '--dir', session: '--session' },
    });
  }
}
