/**
 * Matching dirty paths against a WU's code paths (work-units.md §6.3): a code path with a glob
 * character (`*`, `?`, `[`, `{`, `!`) is a glob with micromatch semantics, dotfiles included; any
 * other code path matches the path itself or anything below it as a folder.
 */
const GLOB_CHARS = /[*?[{!]/;

export function isGlob(pattern: string): boolean {
  return GLOB_CHARS.test(pattern);
}

function escapeRegex(ch: string): string {
  return /[.+^$()|\\/\]]/.test(ch) ? `\\${ch}` : ch;
}

/** The glob body (no leading `!`) as a regular-expression source. */
function globSource(glob: string): string {
  let out = '';
  let i = 0;
  while (i < glob.length) {
    const ch = glob[i]!;
    if (ch === '*') {
      if (glob[i + 1] === '*') {
        const atStart = i === 0 || glob[i - 1] === '/';
        let j = i + 2;
        if (atStart && glob[j] === '/') {
          out += '(?:.*/)?';
          i = j + 1;
          continue;
        }
        if (atStart && j === glob.length) {
          out += '.*';
          i = j;
          continue;
        }
        // `**` inside a segment behaves like `*`.
        out += '[^/]*';
        i = j;
        continue;
      }
      out += '[^/]*';
      i += 1;
    } else if (ch === '?') {
      out += '[^/]';
      i += 1;
    } else if (ch === '[') {
      const close = glob.indexOf(']', i + 1);
      if (close < 0) {
        out += '\\[';
        i += 1;
        continue;
      }
      let body = glob.slice(i + 1, close);
      if (body.startsWith('!')) body = `^${body.slice(1)}`;
      out += `[${body.replace(/\\/g, '\\\\')}]`;
      i = close + 1;
    } else if (ch === '{') {
      const close = matchingBrace(glob, i);
      if (close < 0) {
        out += '\\{';
        i += 1;
        continue;
      }
      const alternatives = splitTopLevel(glob.slice(i + 1, close));
      out += `(?:${alternatives.map(globSource).join('|')})`;
      i = close + 1;
    } else {
      out += escapeRegex(ch);
      i += 1;
    }
  }
  return out;
}

function matchingBrace(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    if (s[i] === '{') depth++;
    else if (s[i] === '}' && --depth === 0) return i;
  }
  return -1;
}

function splitTopLevel(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '{') depth++;
    else if (s[i] === '}') depth--;
    else if (s[i] === ',' && depth === 0) {
      parts.push(s.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(s.slice(start));
  return parts;
}

const cache = new Map<string, (path: string) => boolean>();

export function compileCodePath(codePath: string): (path: string) => boolean {
  let matcher = cache.get(codePath);
  if (matcher !== undefined) return matcher;
  if (isGlob(codePath)) {
    const negated = codePath.startsWith('!');
    const re = new RegExp(`^${globSource(negated ? codePath.slice(1) : codePath)}$`);
    matcher = negated ? (p) => !re.test(p) : (p) => re.test(p);
  } else {
    const folder = codePath.replace(/\/+$/, '');
    matcher = (p) => p === folder || p.startsWith(`${folder}/`);
  }
  cache.set(codePath, matcher);
  return matcher;
}

/** The dirty paths matching any of the code paths, sorted. */
export function overlappingPaths(dirty: readonly string[], codePaths: readonly string[]): string[] {
  if (codePaths.length === 0 || dirty.length === 0) return [];
  const matchers = codePaths.map(compileCodePath);
  return dirty.filter((p) => matchers.some((m) => m(p))).sort();
}
