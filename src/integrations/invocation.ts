import { accessSync, constants, existsSync, realpathSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

/**
 * How client configuration calls baton. Files a team shares (`.claude/settings.json`, `.mcp.json`,
 * `CLAUDE.md`) get a portable command: `baton` when it is on PATH, else npx of the baton-state
 * package (the unscoped name `baton` is another package on the registry). What is true of one
 * machine only, the absolute node and script of the baton running now, is for that machine's own
 * files (`.claude/settings.local.json` with `setup claude-code --local`) and for the clients whose
 * project configuration names this workspace's path anyway (Codex, Cursor).
 */
export interface Invocation {
  words: string[];
  warning: string | undefined;
}

/** npx of the published package; `--yes` so a hook or an MCP start never waits on a prompt. */
export const NPX_WORDS: readonly string[] = ['npx', '--yes', '--package', 'baton-state', 'baton'];

export function currentInvocation(argv: readonly string[] = process.argv, execPath: string = process.execPath): Invocation {
  const script = argv[1];
  if (script !== undefined) {
    const path = isAbsolute(script) ? script : resolve(script);
    if (existsSync(path) && statSync(path).isFile()) return { words: [execPath, realpathSync(path)], warning: undefined };
  }
  return {
    words: [...NPX_WORDS],
    warning:
      'could not find the baton program that ran this command; the configuration calls `npx --package baton-state baton`, which fetches Baton when this project does not install it',
  };
}

/**
 * The executable `name` on PATH (as a shell would find it), or undefined. Only absolute PATH
 * entries count: an empty or relative entry means the current folder, which a hook does not share.
 */
export function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string | undefined {
  const path = env['PATH'] ?? env['Path'] ?? '';
  const extensions = platform === 'win32' ? ['', ...(env['PATHEXT'] ?? '.COM;.EXE;.BAT;.CMD').split(';').filter((e) => e !== '')] : [''];
  for (const dir of path.split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    for (const extension of extensions) {
      const candidate = join(dir, name + extension);
      try {
        if (!statSync(candidate).isFile()) continue;
        if (platform !== 'win32') accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // not there, or not executable: the next entry
      }
    }
  }
  return undefined;
}

/** The command shared configuration calls: `baton` when it is on PATH, else npx of baton-state. */
export function portableInvocation(env: NodeJS.ProcessEnv = process.env): { words: string[]; onPath: boolean } {
  return findOnPath('baton', env) !== undefined ? { words: ['baton'], onPath: true } : { words: [...NPX_WORDS], onPath: false };
}
