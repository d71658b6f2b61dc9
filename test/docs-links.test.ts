import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * No text points at a file the repository lacks: every relative link (and its #anchor) and every
 * backticked path ending in .md, .ts or .json in README.md, ARCHITECTURE.md and docs/*.md names a
 * file or folder of this repository. A backticked path is read from the repository's root; a
 * partial one (`commands/input.ts`, `segment-scan.ts`) must be the end of some file's path; one with
 * a placeholder (`machines/<name>.ts`, `src/cli/commands/*.ts`) needs the folder before it. Files of
 * the user's own project that Baton writes or reads (`.claude/…`, `CLAUDE.md`, `status.json`, Agent
 * Flow's files) are not the repository's, and neither is anything outside it (`../shared/…`).
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DOCS = [
  'README.md',
  'ARCHITECTURE.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** Folders of a user's workspace that Baton writes into (its store, the agents' settings). */
const WORKSPACE_FOLDERS = ['.baton/', '.claude/', '.codex/', '.cursor/'];
/** Files of a user's project that Baton writes or reads by name, or Agent Flow's own files. */
const PROJECT_FILES = new Set([
  'CLAUDE.md',
  'AGENTS.md',
  '.mcp.json',
  'status.json',
  'plan.json',
  'launch.json',
  'orchestration.local.md',
  'team-orchestration.local.md',
  'deep-dive.local.md',
  'team-orchestrate.md',
]);
const SKIPPED = new Set(['node_modules', '.git', 'dist', 'test-artifacts']);

function repositoryFiles(dir = ROOT): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED.has(entry.name)) return [];
    const path = join(dir, entry.name);
    return entry.isDirectory() ? repositoryFiles(path) : [relative(ROOT, path).split(sep).join('/')];
  });
}

/** The text outside fenced code blocks (commands and their output are not references). */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to dashes. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading] of prose(readFileSync(file, 'utf8')).matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const base = slug(heading!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

const inRepository = (path: string): boolean => path === ROOT || path.startsWith(ROOT + sep);

/** What is wrong with a relative link of `doc`, or undefined. */
function badLink(doc: string, target: string): string | undefined {
  const [path, anchor] = target.split('#') as [string, string | undefined];
  const file = path === '' ? join(ROOT, doc) : resolve(ROOT, dirname(doc), decodeURIComponent(path));
  if (!inRepository(file) || !existsSync(file)) return `${target}: no such file in the repository`;
  if (anchor !== undefined && file.endsWith('.md') && !anchorsOf(file).has(anchor)) return `${target}: no heading #${anchor} there`;
  return undefined;
}

/** What is wrong with a backticked path, or undefined. */
function badPath(path: string, files: readonly string[]): string | undefined {
  if (WORKSPACE_FOLDERS.some((folder) => path.startsWith(folder)) || PROJECT_FILES.has(path)) return undefined;
  const placeholder = path.search(/[<*…]/);
  if (placeholder >= 0) {
    const folder = path.slice(0, path.lastIndexOf('/', placeholder) + 1);
    return folder === '' || existsSync(join(ROOT, folder)) ? undefined : `${path}: no folder ${folder}`;
  }
  const file = resolve(ROOT, path);
  if (inRepository(file) && existsSync(file)) return undefined;
  if (!path.startsWith('.') && files.some((f) => f.endsWith(`/${path}`))) return undefined;
  return `${path}: no such file in the repository`;
}

describe('the documentation points only at files the repository has', () => {
  const files = repositoryFiles();

  it.each(DOCS.map((d) => [d]))('%s', (doc) => {
    const text = prose(readFileSync(join(ROOT, doc), 'utf8'));
    const problems: string[] = [];
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (/^[a-z][a-z+.-]*:/i.test(target!)) continue;
      const bad = badLink(doc, target!);
      if (bad !== undefined) problems.push(`link ${bad}`);
    }
    for (const [, path] of text.matchAll(/`([^`\s]+\.(?:md|ts|json))`/g)) {
      const bad = badPath(path!, files);
      if (bad !== undefined) problems.push(`\`${bad}\``);
    }
    expect(problems).toEqual([]);
  });

  it('catches what it is for: a spec file of another repository, a missing file, a missing anchor', () => {
    expect(badPath('../shared/spec/architecture.md', files)).toBeDefined();
    expect(badPath('tasks.md', files)).toBeDefined();
    expect(badPath('src/cli/no-such-file.ts', files)).toBeDefined();
    expect(badPath('commands/input.ts', files)).toBeUndefined();
    expect(badPath('.claude/settings.json', files)).toBeUndefined();
    expect(badLink('README.md', 'docs/no-such-page.md')).toBeDefined();
    expect(badLink('README.md', 'ARCHITECTURE.md#no-such-heading')).toBeDefined();
    expect(badLink('README.md', 'ARCHITECTURE.md')).toBeUndefined();
  });
});
