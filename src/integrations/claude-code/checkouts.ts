import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { appendFileNoFollow } from '../../artifacts/owned-paths.js';
import { mayBeInGitRepository, runGit } from '../../probes/git.js';
import { NPX_WORDS, currentInvocation, portableInvocation } from '../invocation.js';
import { commandLine, LOCAL_SETTINGS_PATH, planClaudeCode, SETTINGS_PATH, writePlanned, type ClaudeSetupPlan } from './setup.js';

/**
 * `baton setup claude-code` across the checkouts that need it. Claude Code reads its files from the
 * checkout it runs in, while Baton's workspace of a linked git worktree is the main checkout: run in
 * a worktree, setup sets up the main checkout, then gives the worktree what git does not (a file
 * git tracks is checked out there; one it does not is written there too).
 */
export interface WorktreeSetup {
  path: string;
  /** Of the files setup manages, those git tracks in the main checkout. */
  committed_in_main: string[];
  /** Those git tracks in the worktree: checked out from git, never written by setup. */
  checked_out: string[];
  /** Those setup keeps in the worktree itself, git not giving them to it. */
  written: string[];
  changed: boolean;
}

export interface ClaudeCheckoutsResult {
  files: string[];
  changed: boolean;
  hooks: { event: string; command: string }[];
  mcp_config?: Record<string, unknown>;
  worktree?: WorktreeSetup;
  warnings: string[];
  notes: string[];
}

export interface ClaudeCheckoutsInput {
  workspace: string;
  /** `--dir` / `BATON_DIR` was given: that folder is set up, whatever checkout the command runs in. */
  explicitDir: boolean;
  local: boolean;
  env: NodeJS.ProcessEnv;
  cwd?: string;
}

export function setupClaudeCodeCheckouts(input: ClaudeCheckoutsInput): ClaudeCheckoutsResult {
  const warnings: string[] = [];
  const notes: string[] = [];
  const shared = portableInvocation(input.env);
  const invocation = input.local ? currentInvocation() : undefined;
  if (invocation?.warning !== undefined) warnings.push(invocation.warning);
  const options = { shared: shared.words, local: invocation?.words };
  const worktree = input.explicitDir ? undefined : linkedWorktree(input.workspace, input.cwd ?? process.cwd());
  // Plan both checkouts before writing either: a refusal in one changes nothing in the other.
  const main = planClaudeCode(input.workspace, options);
  const there = worktree === undefined ? undefined : planClaudeCode(worktree, options);
  const changed = writePlanned(input.workspace, main.files);
  const worktreeSetup = worktree === undefined ? undefined : setUpWorktree(input.workspace, worktree, there!, warnings);

  if (!input.local && !shared.onPath) {
    warnings.push(
      `baton is not on PATH: the shared files call \`${commandLine(NPX_WORDS)}\`, which works where the project installs baton-state; put baton on PATH and run setup again, or run \`baton setup claude-code --local\` to call this machine's baton from ${LOCAL_SETTINGS_PATH}`,
    );
  }
  if (invocation !== undefined) {
    const server = commandLine([...invocation.words, 'mcp', '--client', 'claude-code']);
    notes.push(`the team's files are left as they are; Baton's MCP server for this machine only: claude mcp add --scope local baton -- ${server}`);
  }
  if (input.local) {
    if (main.sharedHooksToo || there?.sharedHooksToo === true)
      warnings.push(
        `${SETTINGS_PATH} runs Baton's hooks too: Claude Code runs the hooks of both files, so each event calls Baton twice here (the shared call failing while baton is not on PATH); with baton on PATH, setup without --local is enough`,
      );
    for (const dir of worktree === undefined ? [input.workspace] : [input.workspace, worktree]) {
      const note = ensureIgnored(input.workspace, dir);
      if (note !== undefined && !notes.includes(note)) notes.push(note);
    }
  }
  return {
    files: main.files.map((f) => f.path),
    changed,
    hooks: main.hooks,
    ...(main.mcp_config === undefined ? {} : { mcp_config: main.mcp_config }),
    ...(worktreeSetup === undefined ? {} : { worktree: worktreeSetup }),
    warnings,
    notes,
  };
}

function setUpWorktree(workspace: string, worktree: string, plan: ClaudeSetupPlan, warnings: string[]): WorktreeSetup {
  const paths = plan.files.map((f) => f.path);
  const checkedOut = new Set(trackedFiles(worktree, paths));
  const own = plan.files.filter((f) => !checkedOut.has(f.path));
  for (const file of plan.files) {
    if (checkedOut.has(file.path) && file.next !== file.current) {
      warnings.push(
        `${file.path} in the worktree ${worktree} is committed without Baton's setup on its branch, so setup leaves it: commit the main checkout's ${file.path} and merge it, or run \`baton --dir . setup claude-code\` in the worktree`,
      );
    }
  }
  return {
    path: worktree,
    committed_in_main: trackedFiles(workspace, paths),
    checked_out: paths.filter((p) => checkedOut.has(p)),
    written: own.map((f) => f.path),
    changed: writePlanned(worktree, own),
  };
}

/**
 * The top level of the checkout around `cwd` when it is a linked worktree whose main checkout is
 * `workspace` (its `.git` a file, its workspace resolved elsewhere); undefined otherwise.
 */
export function linkedWorktree(workspace: string, cwd: string): string | undefined {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const dotGit = join(dir, '.git');
    if (existsSync(dotGit)) return dir !== workspace && statSync(dotGit).isFile() && /^gitdir: /m.test(readFileSync(dotGit, 'utf8')) ? dir : undefined;
    if (dirname(dir) === dir) return undefined;
  }
}

/** Which of `paths` (relative to the checkout `dir`) git tracks there: none outside a repository or without git. */
export function trackedFiles(dir: string, paths: readonly string[]): string[] {
  if (!mayBeInGitRepository(dir)) return [];
  const listed = runGit(dir, ['ls-files', '--', ...paths]);
  if (listed === null || listed.status !== 0) return [];
  const tracked = new Set(listed.stdout.split('\n'));
  return paths.filter((p) => tracked.has(p));
}

/**
 * `.claude/settings.local.json` holds this machine's paths: when git would not ignore it in `dir`,
 * it goes into the repository's own exclude file (`.git/info/exclude`, never shared), and the note
 * says so; undefined when nothing was needed. Outside a repository nothing is needed.
 */
function ensureIgnored(workspace: string, dir: string): string | undefined {
  if (!mayBeInGitRepository(dir)) return undefined;
  const ignored = runGit(dir, ['check-ignore', '-q', '--', LOCAL_SETTINGS_PATH]);
  if (ignored === null || ignored.status !== 1) return undefined;
  const excludes = runGit(dir, ['rev-parse', '--path-format=absolute', '--git-path', 'info/exclude']);
  const path = excludes?.status === 0 ? excludes.stdout.trim() : '';
  const inside = isAbsolute(path) && !relative(workspace, path).startsWith('..');
  if (!inside) return `${LOCAL_SETTINGS_PATH} is not git-ignored: add it to .gitignore, it holds this machine's paths`;
  mkdirSync(dirname(path), { recursive: true });
  const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
  appendFileNoFollow(workspace, path, `${text === '' || text.endsWith('\n') ? '' : '\n'}/${LOCAL_SETTINGS_PATH}\n`);
  return `${LOCAL_SETTINGS_PATH} holds this machine's paths: git ignores it now (${path})`;
}
