import { existsSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';

/**
 * How client configuration calls baton: the absolute node and script of the baton running now, so
 * the agent's PATH does not matter. When that script cannot be found (baton was run in a way that
 * left no file behind), npx of the baton-state package (the unscoped name `baton` is another
 * package on the registry) and a warning.
 */
export interface Invocation {
  words: string[];
  warning: string | undefined;
}

export function currentInvocation(argv: readonly string[] = process.argv, execPath: string = process.execPath): Invocation {
  const script = argv[1];
  if (script !== undefined) {
    const path = isAbsolute(script) ? script : resolve(script);
    if (existsSync(path) && statSync(path).isFile()) return { words: [execPath, realpathSync(path)], warning: undefined };
  }
  return {
    words: ['npx', '--yes', '--package', 'baton-state', 'baton'],
    warning:
      'could not find the baton program that ran this command; the configuration calls `npx --package baton-state baton`, which fetches Baton when this project does not install it',
  };
}
