import { join } from 'node:path';
import { FileAccess, readIfFile, writeFileAtomic } from '../artifacts/atomic-write.js';

/**
 * The short Baton section `baton setup` writes into an agent instructions file (CLAUDE.md,
 * AGENTS.md), between markers: a re-run replaces only that section, so the user's own text stays.
 */
export const SECTION_START = '<!-- baton:start (written by `baton setup`; re-running it replaces this section) -->';
export const SECTION_END = '<!-- baton:end -->';

export function agentSection(invocation: string): string {
  return [
    SECTION_START,
    '## Baton: shared state of this multi-agent work',
    '',
    'You are a Baton session (your display name and `BATON_SESSION` are in the brief at session start).',
    invocation === 'baton' ? 'The commands you need:' : `Run \`baton\` as \`${invocation}\` if it is not on PATH. The commands you need:`,
    '',
    '- `baton status` — your last stopping point and the next action',
    '- `baton wu claim WU-1`, `baton wu checkpoint WU-1 --note "what is done"`, `baton wu done WU-1` — as your session',
    '  (`BATON_SESSION`): a claim is a lease only its holder acts on; your checkpoints keep it alive.',
    "  Another holder's WU is refused (`NOT_HOLDER`): coordinate with `baton mem signal`; a lapsed one",
    '  is taken over with `--takeover --reason R`; unfinished dependencies or a full lane need `--force --reason R`.',
    '- `baton task transition TASK running|blocked|completed`',
    '- `baton mem signal "text" --to NAME`, `baton mem inbox` (unread signals)',
    '- `baton orchestrate status INIT-1` — the initiative and its next safe actions',
    SECTION_END,
    '',
  ].join('\n');
}

/**
 * `current` with `block` in place of the text from the line starting `startPrefix` to the `end`
 * marker (and its newline); undefined when the markers are not there.
 */
export function replaceBetweenMarkers(current: string, startPrefix: string, end: string, block: string): string | undefined {
  const from = current.indexOf(startPrefix);
  const to = current.indexOf(end);
  if (from < 0 || to <= from) return undefined;
  let after = to + end.length;
  if (current[after] === '\n') after += 1;
  return current.slice(0, from) + block + current.slice(after);
}

/** `current` with `block` after it, one blank line between. */
export function appendBlock(current: string, block: string): string {
  return current + (current.endsWith('\n') ? '\n' : '\n\n') + block;
}

/** The file's text with the section put in place: replaced between the markers, else appended. */
export function withSection(current: string | undefined, section: string): string {
  if (current === undefined || current === '') return section;
  return replaceBetweenMarkers(current, SECTION_START.slice(0, 16), SECTION_END, section) ?? appendBlock(current, section);
}

/** Writes the section into `file` (relative to the workspace); true when the file changed. */
export function writeAgentSection(workspace: string, file: string, invocation: string): boolean {
  const path = join(workspace, file);
  const current = readIfFile(workspace, path)?.toString('utf8');
  const next = withSection(current, agentSection(invocation));
  if (next === current) return false;
  writeFileAtomic(workspace, path, next, FileAccess.shared);
  return true;
}
