import { join } from 'node:path';
import { readJsonObjectFile } from '../json-config.js';
import { FileAccess, readIfFile, writeFileAtomic } from '../../artifacts/atomic-write.js';
import { assertNoLinksAt } from '../../artifacts/owned-paths.js';
import { invalidInput } from '../../errors.js';
import { agentSection, withSection } from '../agent-section.js';
import { MCP_CONFIG_PATH, planMcpJson } from './mcp-json.js';

/**
 * `baton setup claude-code`: merges Baton's hooks into `.claude/settings.json`, registers Baton's
 * MCP server in `.mcp.json` and writes the Baton section of `CLAUDE.md`. Client configuration, not
 * facts: nothing is appended. These files are the team's, so every command in them is portable
 * (`baton hook claude-code <EVENT>`, `baton mcp`; invocation.ts). With `--local`, only this
 * machine's `.claude/settings.local.json` is written, its hooks calling the absolute baton.
 */
export const SETTINGS_PATH = '.claude/settings.json';
/** This machine's own settings, which Claude Code reads after the shared ones and git normally ignores. */
export const LOCAL_SETTINGS_PATH = '.claude/settings.local.json';
export const INSTRUCTIONS_PATH = 'CLAUDE.md';

/** The events Baton hooks, with the matcher Claude Code filters each by (none: every occurrence). */
export const CLAUDE_HOOK_EVENTS = [
  { event: 'SessionStart', matcher: undefined },
  { event: 'UserPromptSubmit', matcher: undefined },
  // The tools that write a file: a write to a path another live holder reserves is denied (baton guard).
  { event: 'PreToolUse', matcher: 'Edit|Write|MultiEdit|NotebookEdit' },
  { event: 'PostToolUse', matcher: '*' },
  { event: 'SubagentStart', matcher: undefined },
  { event: 'SubagentStop', matcher: undefined },
  { event: 'Stop', matcher: undefined },
  { event: 'SessionEnd', matcher: undefined },
] as const;
export type ClaudeHookEvent = (typeof CLAUDE_HOOK_EVENTS)[number]['event'];
export const CLAUDE_HOOK_EVENT_NAMES: readonly string[] = CLAUDE_HOOK_EVENTS.map((e) => e.event);

/** Claude Code kills a hook after its timeout (seconds); Baton's answer comes well within it. */
const HOOK_TIMEOUT_SECONDS = 10;

/** A hook entry is Baton's when its command calls `hook claude-code`, or is the earlier drain script. */
function isBatonCommand(command: unknown): boolean {
  return typeof command === 'string' && (/ hook claude-code [A-Za-z]+$/.test(command) || command.endsWith('/.claude/hooks/signal-received.sh'));
}

interface MatcherEntry {
  matcher?: unknown;
  hooks?: unknown;
}

export interface ClaudeSetupResult {
  files: string[];
  changed: boolean;
  hooks: { event: string; command: string }[];
  mcp_config: Record<string, unknown>;
}

/**
 * The settings with Baton's hooks in place: for every event, the user's own entries first as they
 * were (a Baton command inside a user's entry is taken out of it), then Baton's one entry. The same
 * input gives the same bytes, so a second run changes nothing.
 */
export function mergeClaudeSettings(
  settings: Record<string, unknown>,
  commandFor: (event: string) => string,
  file: string = SETTINGS_PATH,
): Record<string, unknown> {
  const hooks = settings['hooks'] ?? {};
  if (typeof hooks !== 'object' || hooks === null || Array.isArray(hooks)) throw invalidInput('"hooks" must be an object; nothing was written', file);
  const merged: Record<string, unknown> = { ...(hooks as Record<string, unknown>) };
  for (const { event, matcher } of CLAUDE_HOOK_EVENTS) {
    const current = merged[event] ?? [];
    if (!Array.isArray(current)) throw invalidInput(`"hooks.${event}" must be a list; nothing was written`, file);
    const kept: unknown[] = [];
    for (const entry of current as MatcherEntry[]) {
      if (typeof entry !== 'object' || entry === null || !Array.isArray(entry.hooks)) {
        kept.push(entry);
        continue;
      }
      const own = (entry.hooks as { command?: unknown }[]).filter((h) => !isBatonCommand(h?.command));
      if (own.length === entry.hooks.length) kept.push(entry);
      else if (own.length > 0) kept.push({ ...entry, hooks: own });
    }
    const hook = { type: 'command', command: commandFor(event), timeout: HOOK_TIMEOUT_SECONDS };
    kept.push(matcher === undefined ? { hooks: [hook] } : { matcher, hooks: [hook] });
    merged[event] = kept;
  }
  return { ...settings, hooks: merged };
}

/** One shell word: single-quoted unless it is plainly safe. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:@%+=-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Whether the settings run any Baton hook (a `hook claude-code` command, or the earlier drain script). */
export function hasBatonHooks(settings: Record<string, unknown>): boolean {
  const hooks = settings['hooks'];
  if (typeof hooks !== 'object' || hooks === null) return false;
  return Object.values(hooks).some(
    (entries) =>
      Array.isArray(entries) &&
      (entries as MatcherEntry[]).some(
        (entry) => Array.isArray(entry?.hooks) && (entry.hooks as { command?: unknown }[]).some((h) => isBatonCommand(h?.command)),
      ),
  );
}

export interface ClaudeSetupOptions {
  /** The command the files a team shares call: `baton`, or npx of baton-state (invocation.ts). */
  shared: readonly string[];
  /** `--local`: this machine's absolute command; only `.claude/settings.local.json` is written, its hooks calling it. */
  local?: readonly string[] | undefined;
}

/** A file setup manages, relative to its checkout: its text now (none: missing) and the text setup gives it. */
export interface PlannedFile {
  path: string;
  current: string | undefined;
  next: string;
}

export interface ClaudeSetupPlan {
  files: PlannedFile[];
  hooks: { event: string; command: string }[];
  /** The MCP server registered in `.mcp.json`; none with `local`. */
  mcp_config: Record<string, unknown> | undefined;
  /** With `local`: the shared settings run Baton's hooks too (Claude Code would run both). */
  sharedHooksToo: boolean;
}

export const commandLine = (words: readonly string[]): string => words.map(shellWord).join(' ');

/** Baton's hooks merged into the settings file `path`, each calling `words`. */
function planHooks(dir: string, path: string, words: readonly string[]): { file: PlannedFile; hooks: { event: string; command: string }[] } {
  const commandFor = (event: string) => `${commandLine(words)} hook claude-code ${event}`;
  const settings = readJsonObjectFile(dir, path);
  return {
    file: { path, current: settings.bytes, next: JSON.stringify(mergeClaudeSettings(settings.value, commandFor, path), null, 2) + '\n' },
    hooks: CLAUDE_HOOK_EVENTS.map(({ event }) => ({ event, command: commandFor(event) })),
  };
}

/**
 * What setup writes in one checkout, read and checked before anything is written: invalid JSON, or
 * a link at any of the files, refuses the whole setup and changes nothing. With `local`, only this
 * machine's file: the team's files are left as they are.
 */
export function planClaudeCode(dir: string, options: ClaudeSetupOptions): ClaudeSetupPlan {
  if (options.local !== undefined) {
    assertNoLinksAt(dir, [SETTINGS_PATH, LOCAL_SETTINGS_PATH]);
    const { file, hooks } = planHooks(dir, LOCAL_SETTINGS_PATH, options.local);
    return { files: [file], hooks, mcp_config: undefined, sharedHooksToo: hasBatonHooks(readJsonObjectFile(dir, SETTINGS_PATH).value) };
  }
  assertNoLinksAt(dir, [SETTINGS_PATH, MCP_CONFIG_PATH, INSTRUCTIONS_PATH]);
  const { file, hooks } = planHooks(dir, SETTINGS_PATH, options.shared);
  const mcp = planMcpJson(dir, options.shared);
  const instructions = readIfFile(dir, join(dir, INSTRUCTIONS_PATH))?.toString('utf8');
  return {
    files: [file, mcp.file, { path: INSTRUCTIONS_PATH, current: instructions, next: withSection(instructions, agentSection(commandLine(options.shared))) }],
    hooks,
    mcp_config: mcp.config,
    sharedHooksToo: false,
  };
}

/** Writes the planned files whose text changes; true when any did. */
export function writePlanned(dir: string, files: readonly PlannedFile[]): boolean {
  let changed = false;
  for (const file of files) {
    if (file.next === file.current) continue;
    writeFileAtomic(dir, join(dir, file.path), file.next, FileAccess.shared);
    changed = true;
  }
  return changed;
}

/** Sets up Claude Code in one checkout, every file calling baton as `invocation`. */
export function setupClaudeCode(dir: string, invocation: readonly string[]): ClaudeSetupResult {
  const plan = planClaudeCode(dir, { shared: invocation });
  return { files: plan.files.map((f) => f.path), changed: writePlanned(dir, plan.files), hooks: plan.hooks, mcp_config: plan.mcp_config ?? {} };
}
