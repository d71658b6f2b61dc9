import { BatonAppContext } from '../../src/app/app-context.js';
import { childEnv } from './cli.js';

/**
 * A setup step run in this process through the application layer — the same typed command
 * functions (src/app/commands/) the CLI and the MCP server call, on the same store — for what a
 * test needs done but does not test: no `baton` process per step. The command under test still
 * runs through the built binary. A warning (a torn write recovered, …) fails the step: setup never
 * expects one.
 */
export interface InProcessOptions {
  /** BATON_NOW. */
  now: string;
  /** The acting session (`--session`). */
  session?: string | undefined;
  /** More environment; `undefined` removes a variable (as for the binary, no BATON_* of the runner applies). */
  env?: Record<string, string | undefined>;
}

export async function inProcess<T>(dir: string, options: InProcessOptions, step: (app: BatonAppContext) => Promise<T>): Promise<T> {
  const warnings: string[] = [];
  const app = new BatonAppContext({
    dir,
    session: options.session,
    env: childEnv({ BATON_NOW: options.now, ...options.env }),
    output: { mode: 'json', warn: (text) => warnings.push(text) },
    names: { dir: '--dir', session: '--session' },
  });
  try {
    const result = await step(app);
    if (warnings.length > 0) throw new Error(`a setup step warned: ${warnings.join('; ')}`);
    return result;
  } finally {
    await app.close();
  }
}
