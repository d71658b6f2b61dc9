import type { BatonRun } from '../../src/demo/coordination.js';
import { batonIn } from './cli.js';
import { makeTempDir } from './workspace.js';

/** One command a demo showed: its words, exit code and stdout. */
export interface ShownCommand {
  cmd: string;
  code: number;
  stdout: string;
}

type Show = (cmd: string, r: { stdout: string; stderr: string; code: number }) => void;

/** The demos' way to run `baton` (the built binary) in `dir`. */
export function demoRunnerIn(dir: string): BatonRun {
  return async (args, env) => {
    const r = await batonIn(dir, args, { env: env ?? {} });
    return { stdout: r.stdout, stderr: r.stderr, code: r.code ?? -1 };
  };
}

/**
 * Runs a demo script against the built binary in a fresh `baton init`'d workspace, the way
 * `baton demo` does, and returns every command it showed, in order. The caller removes the
 * temporary workspace (removeTempDirs).
 */
export async function runDemo(
  tempPrefix: string,
  demo: (baton: BatonRun, show: Show, dir: string) => Promise<void>,
): Promise<{ dir: string; shown: ShownCommand[] }> {
  const dir = makeTempDir(tempPrefix);
  await batonIn(dir, ['init']);
  const shown: ShownCommand[] = [];
  await demo(demoRunnerIn(dir), (cmd, r) => shown.push({ cmd, code: r.code, stdout: r.stdout }), dir);
  return { dir, shown };
}
