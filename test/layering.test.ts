import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The layering above the pure core: the CLI is one surface among the MCP server, the hooks and the
 * dashboard, all of them calling the application layer (src/app/), so nothing below the CLI imports
 * from it, and the MCP server prints nothing it would have to capture.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The specifiers a module imports (static, dynamic and type-only), resolved to paths under the root. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:from\s+|import\s*\(\s*)['"]([^'"]+)['"]/g)].map((m) => m[1]!);
  return specifiers.filter((s) => s.startsWith('.')).map((s) => relative(root, join(dirname(file), s)));
}

describe('the layers above the pure core', () => {
  const files = sources(join(root, 'src')).filter((file) => !relative(root, file).startsWith('src/cli/'));

  it('import nothing from src/cli/ (generated validators included)', () => {
    const offending = files.flatMap((file) => {
      const name = relative(root, file);
      return importsOf(file)
        .filter((target) => target.startsWith('src/cli/'))
        .map((target) => `${name} imports ${target}`);
    });
    expect(offending).toEqual([]);
  });

  it('flows, hooks, the dashboard and the input readers take the application context, not the CLI', () => {
    const moved = ['src/flow', 'src/integrations', 'src/serve', 'src/input', 'src/probes', 'src/work-units', 'src/app'];
    const users = files.filter(
      (file) => moved.some((folder) => relative(root, file).startsWith(`${folder}/`)) && !relative(root, file).endsWith('.generated.ts'),
    );
    expect(users.length).toBeGreaterThan(20);
    for (const file of users) expect(readFileSync(file, 'utf8'), relative(root, file)).not.toMatch(/import[^;]*\bCommandContext\b/);
  });
});

describe('the MCP server', () => {
  const mcpFiles = sources(join(root, 'src/mcp'));
  /** The stdio transport frames the protocol's messages on stdout: the one writer there. */
  const TRANSPORT = 'src/mcp/stdio-transport.ts';

  it('captures no printed output: no Output, no text sink, no std-stream hook, no stdout but the transport framing', () => {
    expect(mcpFiles.map((file) => relative(root, file))).toContain(TRANSPORT);
    const offending = mcpFiles.flatMap((file) => {
      const name = relative(root, file);
      const text = readFileSync(file, 'utf8');
      const printing = importsOf(file)
        .filter((target) => /^src\/cli\/(output|stdio|std-streams)(\.js)?$/.test(target))
        .map((target) => `${name} imports ${target}`);
      const named = (text.match(/\b(TextSink|Output|OutputMode|Capture|whenCreated)\b/g) ?? []).map((word) => `${name} names ${word}`);
      const stdout = name === TRANSPORT ? [] : (text.match(/process\.stdout/g) ?? []).map(() => `${name} writes to process.stdout`);
      return [...printing, ...named, ...stdout];
    });
    expect(offending).toEqual([]);
  });

  it('runs the application commands: the tools call src/app/commands/, never a CLI command', () => {
    const server = readFileSync(join(root, 'src/mcp/server.ts'), 'utf8');
    expect(importsOf(join(root, 'src/mcp/server.ts')).filter((target) => target.startsWith('src/app/commands/')).length).toBeGreaterThanOrEqual(5);
    expect(server).not.toMatch(/cli\/commands/);
  });
});

describe('the workspace layout', () => {
  it('is written once: no `.baton` path literal in src/ outside src/store/jsonl/layout.ts', () => {
    const files = sources(join(root, 'src')).filter((file) => !file.endsWith('.generated.ts') && relative(root, file) !== 'src/store/jsonl/layout.ts');
    const literals = files.flatMap((file) => {
      const code = readFileSync(file, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/(^|[^:])\/\/.*$/gm, '$1');
      // A path literal: `.baton` alone or followed by path characters (a message that mentions it is prose).
      return (code.match(/['"`]\/?\.baton(\/[^'"`\s]*)?['"`]/g) ?? []).map((literal) => `${relative(root, file)}: ${literal}`);
    });
    expect(literals).toEqual([]);
  });
});
