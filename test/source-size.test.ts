import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * A file or a function a reader can hold in their head: no source file over 500 lines, no function
 * over 80. Past that size a file mixes concerns and a function mixes steps, and both hide their
 * bugs; split them by concern, with names that explain each part. Generated code is a build output
 * nobody reads, so it is not counted.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const FOLDERS = ['src', 'events', 'machines', 'deciders', 'projections', 'bin'];
const MAX_FILE_LINES = 500;
const MAX_FUNCTION_LINES = 80;

function sources(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.generated.ts') ? [path] : [];
  });
}

/** Every function-like node with a body (declarations, expressions, arrows, methods, accessors, constructors). */
function longFunctions(name: string, text: string): string[] {
  const file = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const start = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
      const end = file.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > MAX_FUNCTION_LINES) found.push(`${name}:${start + 1} ${functionName(node)} ${lines} lines`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** Lines as an editor numbers them: a final newline ends the last line, it does not start another. */
function lineCount(text: string): number {
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

function functionName(node: ts.Node): string {
  const named = node as { name?: ts.Node };
  if (named.name !== undefined && ts.isIdentifier(named.name)) return named.name.text;
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (parent !== undefined && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent !== undefined && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  return '(anonymous)';
}

describe('source size', () => {
  const files = FOLDERS.flatMap((folder) => sources(join(root, folder))).map((path) => ({ name: relative(root, path), text: readFileSync(path, 'utf8') }));
  const measured = files;

  it('walks the sources: the library, the pure core and the CLI', () => {
    expect(files.map((f) => f.name)).toEqual(
      expect.arrayContaining(['src/index.ts', 'src/store/jsonl/jsonl-store.ts', 'events/catalog.ts', 'projections/projection.ts']),
    );
  });

  it(`has no file over ${MAX_FILE_LINES} lines`, () => {
    const long = measured.map((file) => ({ name: file.name, lines: lineCount(file.text) })).filter((file) => file.lines > MAX_FILE_LINES);
    expect(long.map((file) => `${file.name} ${file.lines} lines`)).toEqual([]);
  });

  it(`has no function over ${MAX_FUNCTION_LINES} lines`, () => {
    expect(measured.flatMap((file) => longFunctions(file.name, file.text))).toEqual([]);
  });

  it('measures what it claims: a long function and a long file are caught', () => {
    const body = Array.from({ length: MAX_FUNCTION_LINES }, (_, i) => `  const v${i} = ${i};`).join('\n');
    expect(longFunctions('probe.ts', `export function tooLong(): void {\n${body}\n}\n`)).toEqual(['probe.ts:1 tooLong 82 lines']);
    expect(longFunctions('probe.ts', `const arrow = () => {\n${body}\n};\nclass C { method() {\n${body}\n} }\n`)).toEqual([
      'probe.ts:1 arrow 82 lines',
      'probe.ts:83 method 82 lines',
    ]);
    expect(lineCount('a\nb\n')).toBe(2);
    expect(lineCount(`${'x\n'.repeat(MAX_FILE_LINES + 1)}`)).toBeGreaterThan(MAX_FILE_LINES);
    expect(longFunctions('probe.ts', `export function justRight(): void {\n${body.split('\n').slice(2).join('\n')}\n}\n`)).toEqual([]);
  });
});
