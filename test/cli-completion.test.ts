import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { completionTree } from '../src/cli/completion-script.js';
import { buildProgram } from '../src/cli/program.js';
import { childEnv, pathWithBaton, errorEnvelopeOf, runBaton } from './helpers/cli.js';
import { makeTempDir, removeTempDirs } from './helpers/workspace.js';
import { WuWorkspace } from './work-units/helpers.js';

/**
 * `baton completion bash|zsh|fish`: a script generated from commander's command tree that
 * names every command; the bash one parses (`bash -n`) and, sourced into bash, completes what a user
 * types: commands at every level, a command's own options, and no command name after an option
 * that takes a value.
 */
afterAll(removeTempDirs);

const tree = completionTree(buildProgram());
const paths = tree.map((n) => n.path).filter((p) => p !== '');

async function script(shell: string): Promise<string> {
  const r = await runBaton(['completion', shell]);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return r.stdout;
}

function hasShell(name: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** What `_baton` offers for the words typed so far (the last one being completed); `PATH` and `cwd` as given. */
function bashComplete(file: string, typed: string[], options: { PATH?: string; cwd?: string } = {}): string[] {
  const words = ['baton', ...typed].map((w) => `'${w}'`).join(' ');
  const out = execFileSync('bash', ['-c', `source '${file}'; COMP_WORDS=(${words}); COMP_CWORD=${typed.length}; _baton; printf '%s\\n' "\${COMPREPLY[@]}"`], {
    encoding: 'utf8',
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    ...(options.PATH !== undefined ? { env: childEnv({ PATH: options.PATH }) } : {}),
  });
  return out.split('\n').filter((w) => w !== '');
}

describe('baton completion', () => {
  it('the tree holds every command of the program, groups and their commands', () => {
    expect(paths).toEqual(expect.arrayContaining(['init', 'log', 'log append', 'wu checkpoint', 'completion', 'task create', 'mem inbox']));
    expect(paths.length).toBeGreaterThan(60);
  });

  it.each(['bash', 'zsh', 'fish'])('the %s script names every command and every option', async (shell) => {
    const text = await script(shell);
    for (const node of tree) {
      for (const sub of node.subcommands) expect(text).toContain(sub);
      for (const option of node.options) expect(text).toContain(shell === 'fish' ? `-l ${option.slice(2)}` : option);
    }
    for (const path of paths) expect(text).toContain(shell === 'fish' ? `__baton_at "${path}"` : `'${path}')`);
  });

  it('bash -n accepts the bash script', async () => {
    const file = join(makeTempDir('baton-completion-'), 'baton.bash');
    writeFileSync(file, await script('bash'));
    expect(() => execFileSync('bash', ['-n', file])).not.toThrow();
  });

  it('sourced into bash, it completes groups, their commands and options', async () => {
    const file = join(makeTempDir('baton-completion-'), 'baton.bash');
    writeFileSync(file, await script('bash'));
    expect(bashComplete(file, ['lo'])).toEqual(['log']);
    expect(bashComplete(file, ['log', ''])).toEqual(['append', 'show', 'tail', 'verify', 'anchor', 'repair', 'stats', 'export', 'import']);
    expect(bashComplete(file, ['--dir', 'ws', 'wu', 'check'])).toEqual(['checkpoint']);
    expect(bashComplete(file, ['wu', 'checkpoint', 'WU-1', '--no'])).toEqual(['--note']);
    // `--dir log`: "log" is the folder's name, not the log group.
    expect(bashComplete(file, ['--dir', 'log', 'in'])).toEqual(['init', 'initiative']);
  });

  // zsh and fish are not in every CI image: these run where the shell is installed (apt-get install zsh fish).
  it.skipIf(!hasShell('zsh'))('zsh -n accepts the zsh script, and its function completes under sh emulation as bashcompinit runs it', async () => {
    const file = join(makeTempDir('baton-completion-'), 'baton.zsh');
    writeFileSync(file, await script('zsh'));
    expect(() => execFileSync('zsh', ['-n', file])).not.toThrow();
    const out = execFileSync(
      'zsh',
      [
        '-c',
        `autoload -U compinit && compinit -u -D; source '${file}'; f() { emulate -L sh; setopt kshglob noshglob braceexpand; COMP_WORDS=(baton wu ch); COMP_CWORD=2; _baton; print -l "\${COMPREPLY[@]}"; }; f`,
      ],
      { encoding: 'utf8' },
    );
    // bashcompinit's compgen does not filter by the word typed: zsh's own matching does, afterwards.
    const offered = out.split('\n').filter(Boolean);
    expect(offered).toContain('checkpoint');
    expect(offered.sort()).toEqual(
      completionTree(buildProgram())
        .find((n) => n.path === 'wu')!
        .subcommands.sort(),
    );
  });

  it.skipIf(!hasShell('fish'))('fish -n accepts the fish script, and fish completes with it', async () => {
    const file = join(makeTempDir('baton-completion-'), 'baton.fish');
    writeFileSync(file, await script('fish'));
    expect(() => execFileSync('fish', ['-n', file])).not.toThrow();
    const complete = (line: string): string[] =>
      execFileSync('fish', ['-c', `source '${file}'; complete -C '${line}'`], { encoding: 'utf8' })
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[0]!);
    expect(complete('baton log ').sort()).toEqual(['anchor', 'append', 'export', 'import', 'repair', 'show', 'stats', 'tail', 'verify']);
    expect(complete('baton wu checkpoint WU-1 --no')).toEqual(['--note']);
    expect(complete('baton --dir log in').sort()).toEqual(['init', 'initiative']);
  });

  it('sourced into bash, it completes WU ids from the log: the open ones to act on, every one to read', async () => {
    const ws = await WuWorkspace.create();
    for (const n of [1, 2, 3]) await ws.wu(n, 'L1');
    const S = await ws.startSession();
    await ws.ok(['wu', 'claim', 'WU-3'], { session: S });
    await ws.ok(['wu', 'done', 'WU-3'], { session: S });
    const file = join(makeTempDir('baton-completion-'), 'baton.bash');
    writeFileSync(file, await script('bash'));
    const path = pathWithBaton();
    const complete = (typed: string[], cwd?: string) => bashComplete(file, typed, { PATH: path, ...(cwd !== undefined ? { cwd } : {}) });
    expect(complete(['--dir', ws.dir, 'wu', 'claim', ''])).toEqual(['WU-1', 'WU-2']);
    expect(complete(['--dir', ws.dir, 'wu', 'show', ''])).toEqual(['WU-1', 'WU-2', 'WU-3']);
    expect(complete(['--dir', ws.dir, 'wu', 'explain', 'WU-'])).toEqual(['WU-1', 'WU-2', 'WU-3']);
    expect(complete(['--dir', ws.dir, 'session', 'start', '--wu', ''])).toEqual(['WU-1', 'WU-2']);
    // In the workspace, no --dir needed; after the WU, nothing more to complete.
    expect(complete(['wu', 'checkpoint', 'WU'], ws.dir)).toEqual(['WU-1', 'WU-2']);
    expect(complete(['wu', 'checkpoint', 'WU-1', ''], ws.dir)).toEqual([]);
    // Outside a workspace: no ids, no error.
    expect(complete(['wu', 'claim', ''], makeTempDir('baton-nowhere-'))).toEqual([]);
    // The word source is no command anyone is offered.
    expect(complete(['__'])).toEqual([]);
    const help = await runBaton(['--help']);
    expect(help.stdout).not.toContain('__complete');
  }, 120_000);

  it('__complete prints the ids one per line, and nothing at all outside a workspace', async () => {
    const ws = await WuWorkspace.create();
    await ws.wu(1, 'L1');
    await ws.wu(12, 'L1');
    const listed = await runBaton(['--dir', ws.dir, '__complete', 'wu-ids']);
    expect([listed.code, listed.stdout, listed.stderr]).toEqual([0, 'WU-1\nWU-12\n', '']);
    const nowhere = await runBaton(['__complete', 'wu-ids'], { cwd: makeTempDir('baton-nowhere-') });
    expect([nowhere.code, nowhere.stdout, nowhere.stderr]).toEqual([0, '', '']);
    const unknown = await runBaton(['--dir', ws.dir, '__complete', 'colours']);
    expect([unknown.code, unknown.stdout]).toEqual([0, '']);
  }, 60_000);

  it('an unknown shell is exit 2 naming the argument', async () => {
    const r = await runBaton(['--json', 'completion', 'powershell']);
    expect(r.code).toBe(2);
    expect(errorEnvelopeOf(r).message).toBe('shell: must be one of bash, zsh, fish (got "powershell")');
  });
});
