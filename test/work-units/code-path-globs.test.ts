import fc from 'fast-check';
import picomatch from 'picomatch/posix.js';
import { describe, expect, it } from 'vitest';
import type { BatonEvent } from '../../events/baton-event.js';
import { decoded } from '../helpers/decoded.js';
import { codePath } from '../../events/work-units/vocabulary.js';
import { compileCodePath, isGlob, overlappingPaths } from '../../projections/work-units/code-paths.js';
import { evidenceOf, stallSeconds } from '../../projections/work-units/evidence.js';
import { DEFAULT_WORK_UNITS_CONFIG } from '../../projections/work-units/settings.js';
import { applyWorkUnits, initWorkUnits } from '../../projections/work-units/state.js';

/**
 * Code-path globs (work-units.md §6.3) are picomatch's (micromatch's engine), dotfiles included:
 * on random paths and globs from a small alphabet — extglobs, classes, braces, escapes, negation —
 * the fold's contamination overlap is exactly what picomatch matches.
 */
const PICOMATCH = { dot: true, posix: true } as const;

// Path segments as git reports them: never `.` or `..`.
const segment = fc.string({ unit: fc.constantFrom('a', 'b', '.', '_'), minLength: 1, maxLength: 3 }).filter((s) => s !== '.' && s !== '..');
const path = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join('/'));
const globToken = fc.constantFrom(
  'a',
  'b',
  '.',
  '/',
  '*',
  '**',
  '?',
  '[ab]',
  '[!a]',
  '[^b]',
  '{a,b}',
  '{a,.b}',
  '!',
  '@(a|b)',
  '+(a)',
  '!(a)',
  '*(b)',
  '?(a)',
  '\\*',
  '\\a',
);
const glob = fc
  .array(globToken, { minLength: 1, maxLength: 6 })
  .map((tokens) => tokens.join(''))
  .filter(isGlob);
/** A glob a log can hold: the fold only ever sees code paths its schema accepts (no backslash, no leading /). */
const storableGlob = glob.filter((g) => codePath.safeParse(g).success);

/** The paths picomatch matches with the glob, sorted (its matcher takes one argument: filter's index would ask it for an object). */
function picomatched(g: string, paths: readonly string[]): string[] {
  const isMatch = picomatch(g, PICOMATCH);
  return paths.filter((p) => isMatch(p)).sort();
}

const T0 = Date.parse('2026-04-17T10:00:00Z');

/** The log of one WU claimed in worktree mode with these code paths, and these dirty paths observed. */
function history(codePaths: string[], dirty: string[]): BatonEvent[] {
  const raws = [
    { type: 'initiative.created', stream: 'initiative/INIT-1', data: { initiative: 'INIT-1', title: 'One', slug: null, lanes: [] } },
    { type: 'wu.defined', stream: 'wu/WU-1', data: { wu_id: 'WU-1', initiative: 'INIT-1', lane: 'L1', title: 'One', dependencies: [], code_paths: codePaths } },
    {
      type: 'wu.claimed',
      stream: 'wu/WU-1',
      data: { wu_id: 'WU-1', session_id: null, mode: 'worktree', worktree_path: 'worktrees/l1-wu-1', branch: 'lane/l1/wu-1', takeover_from: null },
    },
    { type: 'observation.dirty_paths', stream: 'workspace/root', data: { paths: [...dirty].sort() } },
  ];
  return raws.map((r, i) =>
    decoded({
      v: 1,
      seq: i + 1,
      id: `e${i + 1}`,
      type: r.type,
      stream: r.stream,
      at: new Date(T0 + i * 60_000).toISOString(),
      actor: 'system',
      data: r.data,
      prev: '',
      hash: '',
    }),
  );
}

describe('code-path globs are picomatch globs', () => {
  it("the fold's contamination overlap is the dirty paths picomatch matches", () => {
    fc.assert(
      fc.property(storableGlob, fc.uniqueArray(path, { maxLength: 8 }), (g, dirty) => {
        const state = history([g], dirty).reduce(applyWorkUnits, initWorkUnits());
        const wu = state.wus['WU-1']!;
        const ctx = {
          state,
          config: DEFAULT_WORK_UNITS_CONFIG,
          now: new Date(T0 + 3_600_000).toISOString(),
          stall_seconds: stallSeconds(DEFAULT_WORK_UNITS_CONFIG),
        };
        const expected = picomatched(g, dirty);
        expect(evidenceOf(wu, ctx).overlap.value).toStrictEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('overlappingPaths matches a glob exactly as picomatch does, and a plain path as a folder', () => {
    fc.assert(
      fc.property(glob, path, fc.uniqueArray(path, { maxLength: 8 }), (g, folder, dirty) => {
        expect(overlappingPaths(dirty, [g])).toStrictEqual(picomatched(g, dirty));
        expect(overlappingPaths(dirty, [`${folder}/`])).toStrictEqual(dirty.filter((p) => p === folder || p.startsWith(`${folder}/`)).sort());
      }),
      { numRuns: 500 },
    );
  });

  it('reads extglobs, escapes, bracket negation and dotfiles like picomatch', () => {
    const matches = (g: string, p: string) => compileCodePath(g)(p);
    expect(matches('src/@(a|b)*.ts', 'src/a1.ts')).toBe(true);
    expect(matches('src/@(a|b)*.ts', 'src/c1.ts')).toBe(false);
    // No glob character (§6.3): a folder, even with extglob syntax.
    expect(matches('src/@(a|b)', 'src/@(a|b)/x.ts')).toBe(true);
    expect(matches('src/@(a|b)', 'src/a')).toBe(false);
    expect(matches('src/!(gen)/**', 'src/app/x.ts')).toBe(true);
    expect(matches('src/!(gen)/**', 'src/gen/x.ts')).toBe(false);
    expect(matches('docs/\\*.md', 'docs/*.md')).toBe(true);
    expect(matches('docs/\\*.md', 'docs/a.md')).toBe(false);
    expect(matches('src/[!a]*.ts', 'src/b.ts')).toBe(true);
    expect(matches('src/[!a]*.ts', 'src/a.ts')).toBe(false);
    expect(matches('src/**', 'src/.env')).toBe(true);
    expect(matches('!src/**', 'docs/a.md')).toBe(true);
    expect(matches('!src/**', 'src/a.ts')).toBe(false);
    expect(matches('packages/x', 'packages/x/new.ts')).toBe(true);
    expect(matches('packages/x', 'packages/xy')).toBe(false);
  });
});
