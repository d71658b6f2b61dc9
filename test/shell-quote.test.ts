import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shellJoin, shellQuote } from '../projections/shell-quote.js';

/** What /bin/sh prints for `printf FORMAT <words>`: the words as the shell read them. */
function shPrintf(format: string, words: string): string {
  const r = spawnSync('/bin/sh', ['-c', `printf ${format} ${words}`], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

// Every character a shell treats specially, the safe set, and a non-ASCII letter; no NUL (argv cannot hold it).
const unit = fc.oneof(fc.constantFrom(...` \t\n'"\\$\`!#&*;|<>(){}[]?~^%,=@+:./_-é`.split('')), fc.constantFrom('a', 'Z', '0', '9'));
const token = fc.string({ unit, maxLength: 12 });

/** The one POSIX shell quoting of the resume command and the handoff commands (projections/shell-quote.ts). */
describe('shellQuote', () => {
  it('sh reads every quoted token back as the original', () => {
    fc.assert(
      fc.property(token, (t) => {
        expect(shPrintf('%s', shellQuote(t))).toBe(t);
      }),
      { numRuns: 100 },
    );
  });

  it('sh reads a joined argv back as the same words', () => {
    fc.assert(
      fc.property(fc.array(token, { minLength: 1, maxLength: 4 }), (argv) => {
        expect(shPrintf("'%s\\001'", shellJoin(argv))).toBe(argv.map((a) => `${a}\u0001`).join(''));
      }),
      { numRuns: 50 },
    );
  });

  it('leaves tokens of [A-Za-z0-9_./:=@%+,-] bare and quotes the rest (tasks.md §9.8 examples)', () => {
    expect(shellQuote('/a/b-c_1.d')).toBe('/a/b-c_1.d');
    expect(shellQuote('my project')).toBe(`'my project'`);
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(shellQuote('')).toBe(`''`);
    expect(shellQuote('lane/l1/wu-1')).toBe('lane/l1/wu-1');
    expect(shellQuote('a%b,c=d@e+f:g')).toBe('a%b,c=d@e+f:g');
    for (const special of ['~', '*', '$x', 'a b', 'a\nb', '{a,b}', '!x', '#']) expect(shellQuote(special)).toBe(`'${special}'`);
  });
});
