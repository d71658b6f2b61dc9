/**
 * The auth rule of tasks.md §9.7 (Baton): a blocked reason sends the user to sign in only when it
 * holds one of these phrases as whole words — "author", "token budget" and "OAuth scope" must not.
 */
const SEP = '(?:\\s+|-)';
const TOKEN_QUALIFIER = '(?:access|api|auth|refresh|session)';
const PHRASES = [
  'auth',
  'authentication',
  'unauthenticated',
  'unauthori[sz]ed',
  're-?auth',
  'reauthenticate',
  `log${SEP}?in`,
  `log${SEP}?out`,
  `logged${SEP}(?:in|out)`,
  `sign${SEP}?in`,
  `signed${SEP}(?:in|out)`,
  'credentials?',
  `(?:expired|invalid|revoked|missing)\\s+(?:${TOKEN_QUALIFIER}\\s+)?token`,
  'token\\s+(?:expired|invalid|revoked)',
  '401',
];
const AUTH_RULE = new RegExp(`(?<![A-Za-z0-9])(?:${PHRASES.join('|')})(?![A-Za-z0-9])`, 'i');

export function isAuthProblem(reason: string): boolean {
  return AUTH_RULE.test(reason);
}
