/**
 * Quoting for a POSIX shell, shared by the resume command (tasks.md §9.8) and the handoff file's
 * commands (work-units.md §10.4): a token made only of characters no POSIX shell treats specially,
 * `[A-Za-z0-9_./:=@%+,-]`, stays bare; any other token (the empty one included) is wrapped in
 * single quotes, each `'` inside written as `'\''`. test/shell-quote.test.ts holds that `sh` reads
 * every quoted token back as the original.
 */
const SAFE = /^[A-Za-z0-9_./:=@%+,-]+$/;

export function shellQuote(token: string): string {
  if (SAFE.test(token)) return token;
  return `'${token.replace(/'/g, "'\\''")}'`;
}

export function shellJoin(argv: readonly string[]): string {
  return argv.map(shellQuote).join(' ');
}
