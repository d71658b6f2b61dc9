/**
 * zod's default issue messages ("Invalid input: expected string, received undefined") describe the
 * validator, not the input. Every validation message Baton prints goes through `ruleWords`, which
 * says the same thing in Baton's words ("is required", "must be a number", "must be one of a, b")
 * for the field the caller names. A message a schema spells out itself (`.regex(re, 'must look
 * like …')`) is not one of zod's defaults and is kept as written.
 */
const REWRITES: readonly [RegExp, (m: RegExpExecArray) => string][] = [
  [/^Invalid input: expected \w+, received undefined$/, () => 'is required'],
  [/^Invalid input: expected int, received \w+$/, () => 'must be a whole number'],
  [/^Invalid input: expected (\w+), received (\w+)$/, (m) => `must be ${article(m[1]!)} (got ${article(m[2]!)})`],
  [/^Invalid option: expected one of (.+)$/, (m) => `must be one of ${choices(m[1]!)}`],
  [/^Invalid input: expected (.+)$/, (m) => `must be ${choices(m[1]!)}`],
  [/^Too small: expected string to have >=?1 characters?$/, () => 'must not be empty'],
  [/^Too small: expected array to have >=?1 items?$/, () => 'must not be empty'],
  [/^Too small: expected (?:string|array|set|map) to have (>=?)(\d+) (\w+)$/, (m) => `must have ${bound(m[1]!, 'at least', 'more than')} ${m[2]} ${m[3]}`],
  [/^Too small: expected \w+ to be (>=?)(\S+)$/, (m) => `must be ${bound(m[1]!, 'at least', 'greater than')} ${m[2]}`],
  [/^Too (?:big|small): expected (?:string|array) to have exactly (\d+) (\w+)$/, (m) => `must have exactly ${m[1]} ${m[2]}`],
  [/^Too big: expected (?:string|array|set|map) to have (<=?)(\d+) (\w+)$/, (m) => `must have ${bound(m[1]!, 'at most', 'fewer than')} ${m[2]} ${m[3]}`],
  [/^Too big: expected \w+ to be (<=?)(\S+)$/, (m) => `must be ${bound(m[1]!, 'at most', 'less than')} ${m[2]}`],
  [/^Invalid string: must match pattern (.+)$/, (m) => `does not have the required form (${m[1]})`],
  [
    /^Invalid (?:ISO )?(datetime|date|time|email|url|uuid|ulid)\b.*$/i,
    (m) => `must be a valid ${m[1]!.toLowerCase() === 'datetime' ? 'ISO-8601 time' : m[1]!.toLowerCase()}`,
  ],
  [/^Unrecognized keys?: (.+)$/, (m) => `has unknown field${m[1]!.includes(',') ? 's' : ''} ${m[1]!.replace(/"/g, '')}`],
  [/^Invalid input$/, () => 'does not match any allowed form'],
  [/^Invalid key in record$/, () => 'has an invalid key'],
  [/^Invalid (?:value|element) in (\w+)$/, (m) => `has an invalid value in the ${m[1]}`],
  [/^Expected number, received nan$/i, () => 'must be a number'],
];

export function ruleWords(message: string): string {
  for (const [pattern, words] of REWRITES) {
    const match = pattern.exec(message);
    if (match) return words(match);
  }
  return message;
}

function article(type: string): string {
  if (type === 'undefined' || type === 'null' || type === 'NaN') return type;
  return /^[aeiou]/i.test(type) ? `an ${type}` : `a ${type}`;
}

/** `"a"|"b"` (zod's list) → `a, b`. */
function choices(list: string): string {
  return list
    .split('|')
    .map((choice) => choice.trim().replace(/^"(.*)"$/, '$1'))
    .join(', ');
}

function bound(operator: string, inclusive: string, exclusive: string): string {
  return operator.length === 2 ? inclusive : exclusive;
}
