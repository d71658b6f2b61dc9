import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';

/**
 * The links and traps the fuzzer plants in an epoch's workspace before it runs anything there. Every
 * link points outside the workspace, at bytes that must stay as they are whatever Baton is asked.
 */

/** One epoch's own folders: its home, the workspace in it, a folder outside the workspace, and the current directory it runs in. */
export interface Place {
  home: string;
  ws: string;
  outside: string;
  scratch: string;
}

/**
 * The files Baton writes outside `.baton/`, each with a command that writes it: a link planted at
 * one must make that command refuse (exit 3, SYMLINK_REFUSED) and leave the file it points at as it was.
 */
export const FILE_LINKS: readonly { path: string; label: string; command: readonly string[] }[] = [
  { path: '.gitignore', label: '.gitignore', command: ['init', '--gitignore'] },
  { path: join('.claude', 'settings.json'), label: 'settings.json', command: ['setup', 'claude-code'] },
  { path: 'CLAUDE.md', label: 'CLAUDE.md', command: ['setup', 'claude-code'] },
  { path: 'AGENTS.md', label: 'AGENTS.md', command: ['setup', 'codex'] },
  { path: join('.codex', 'config.toml'), label: 'config.toml', command: ['setup', 'codex'] },
  { path: join('.cursor', 'mcp.json'), label: 'mcp.json', command: ['setup', 'cursor'] },
  { path: join('.claude', 'orchestration.local.md'), label: 'orchestration.local.md', command: ['flow', 'init', 'goal'] },
  { path: join('.claude', 'deep-dive.local.md'), label: 'deep-dive.local.md', command: ['deep-dive', 'init'] },
];
export type FileLink = (typeof FILE_LINKS)[number];

/** Baton's own folders, some of which an epoch replaces by a link to a folder outside. */
const OWNED_FOLDERS = [join('.baton', 'artifacts'), join('.baton', 'stamps'), '.claude', join('.baton', 'quarantine'), join('.baton', 'cache')];

/**
 * Plant `fileLinks` (each a link to its own file outside), then replace some of Baton's own folders
 * by links to a folder outside (never one a planted file link lies in), and the other traps: a
 * link to outside, a dangling link, a plain file. Returns how many folder links it planted.
 */
export function plantTraps(random: () => number, { ws, outside }: Place, fileLinks: readonly FileLink[]): number {
  const target = join(outside, 'planted');
  mkdirSync(target, { recursive: true });
  writeFileSync(join(outside, 'precious.txt'), 'must never change\n');
  symlinkSync(outside, join(ws, 'link-out'));
  symlinkSync(join(ws, 'nowhere'), join(ws, 'dangling'));
  writeFileSync(join(ws, 'plain.txt'), 'a file\n');
  fileLinks.forEach((link, i) => {
    const victim = join(outside, `linked-${i}-${link.label}`);
    writeFileSync(victim, `not Baton's: ${link.path}\n`);
    mkdirSync(dirname(join(ws, link.path)), { recursive: true });
    rmSync(join(ws, link.path), { force: true });
    symlinkSync(victim, join(ws, link.path));
  });
  let folders = 0;
  for (const owned of OWNED_FOLDERS) {
    if (random() >= 0.3 || fileLinks.some((link) => link.path.startsWith(owned + sep))) continue;
    rmSync(join(ws, owned), { recursive: true, force: true });
    symlinkSync(target, join(ws, owned));
    folders += 1;
  }
  return folders;
}
