import { join } from 'node:path';
import { readJsonObjectFile } from '../json-config.js';
import { FileAccess, writeFileAtomic } from '../../artifacts/atomic-write.js';
import { assertNoLinksAt } from '../../artifacts/owned-paths.js';
import { invalidInput } from '../../errors.js';
import { writeAgentSection } from '../agent-section.js';

/**
 * `baton setup claude-code`: merges Baton's hooks into `.claude/settings.json` and writes the Baton
 * section of `CLAUDE.md`. Client configuration, not facts: nothing is appended. Every hook is one
 * call of `baton hook claude-code <EVENT>` through the absolute path of the baton that ran setup.
 */
export const SETTINGS_PATH = '.claude/settings.json';
export const INSTRUCTIONS_PATH = 'CLAUDE.md';

/** The events Baton hooks, with the matcher Claude Code filters each by (none: every occurrence). */
export const CLAUDE_HOOK_EVENTS = [
  { event: 'SessionStart', matcher: undefined },
  { event: 'UserPromptSubmit', matcher: undefined },
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
}

function readSettings(workspace: string): { settings: Record<string, unknown>; bytes: string | undefined } {
  const { value, bytes } = readJsonObjectFile(workspace, SETTINGS_PATH);
  return { settings: value, bytes };
}

/**
 * The settings with Baton's hooks in place: for every event, the user's own entries first as they
 * were (a Baton command inside a user's entry is taken out of it), then Baton's one entry. The same
 * input gives the same bytes, so a second run changes nothing.
 */
export function mergeClaudeSettings(settings: Record<string, unknown>, commandFor: (event: string) => string): Record<string, unknown> {
  const hooks = settings['hooks'] ?? {};
  if (typeof hooks !== 'object' || hooks === null || Array.isArray(hooks)) throw invalidInput('"hooks" must be an object; nothing was written', SETTINGS_PATH);
  const merged: Record<string, unknown> = { ...(hooks as Record<string, unknown>) };
  for (const { event, matcher } of CLAUDE_HOOK_EVENTS) {
    const current = merged[event] ?? [];
    if (!Array.isArray(current)) throw invalidInput(`"hooks.${event}" must be a list; nothing was written`, SETTINGS_PATH);
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

export function setupClaudeCode(workspace: string, invocation: readonly string[]): ClaudeSetupResult {
  // Read and check everything before writing anything: invalid settings, or a link at either file, change nothing.
  assertNoLinksAt(workspace, [SETTINGS_PATH, INSTRUCTIONS_PATH]);
  const { settings, bytes } = readSettings(workspace);
  const commandFor = (event: string) => [...invocation.map(shellWord), 'hook', 'claude-code', event].join(' ');
  const next = JSON.stringify(mergeClaudeSettings(settings, commandFor), null, 2) + '\n';
  let changed = false;
  if (next !== bytes) {
    writeFileAtomic(workspace, join(workspace, SETTINGS_PATH), next, FileAccess.shared);
    changed = true;
  }
  if (writeAgentSection(workspace, INSTRUCTIONS_PATH, invocation.map(shellWord).join(' '))) changed = true;
  return {
    files: [SETTINGS_PATH, INSTRUCTIONS_PATH],
    changed,
    hooks: CLAUDE_HOOK_EVENTS.map(({ event }) => ({ event, command: commandFor(event) })),
  };
}
