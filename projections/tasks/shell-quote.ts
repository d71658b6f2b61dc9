/** POSIX shell quoting of §9.8: safe tokens bare, '' for empty, else single quotes with ' as '\''. */
const SAFE = /^[A-Za-z0-9_\-/.:=@+,]+$/;

export function shellQuote(token: string): string {
  if (token === '') return "''";
  if (SAFE.test(token)) return token;
  return `'${token.replace(/'/g, "'\\''")}'`;
}

export function shellJoin(argv: readonly string[]): string {
  return argv.map(shellQuote).join(' ');
}
