/**
 * How the demo prints: each command as a person would type it (a long one wrapped at spaces with a
 * trailing `\`, as a shell takes it), then its human output, a long line folded at a space and a long
 * output cut to an excerpt (its head and its tail) that says how much it left out.
 */
export interface Shown {
  command: string;
  stdout: string;
  stderr: string;
  code: number;
}

/** The widest command or line of the story the demo prints. */
const WIDTH = 120;
/** The widest line of output: wider lines are folded (a view's own lines are rarely this wide). */
const OUTPUT_WIDTH = 160;
/** An output longer than this is shown as an excerpt of this many lines: its head and its last TAIL_LINES. */
const EXCERPT_LINES = 24;
const TAIL_LINES = 8;

/** Words of a shell command: split at spaces outside single quotes. */
function shellWords(command: string): string[] {
  const words: string[] = [];
  let word = '';
  let quoted = false;
  for (const c of command) {
    if (c === "'") quoted = !quoted;
    if (c === ' ' && !quoted) {
      if (word !== '') words.push(word);
      word = '';
    } else word += c;
  }
  if (word !== '') words.push(word);
  return words;
}

/** Words laid into lines of at most `width` (a single longer word keeps its own line). */
function fill(words: readonly string[], width: number, indent: string, end = ''): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line !== '' && line.length + 1 + word.length + end.length > width) {
      lines.push(line + end);
      line = indent + word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines;
}

/**
 * `$ baton …` (or `$ cat …`), wrapped with `\` continuations when it is wider than the page, and its
 * `# comment` after it. A command in parentheses is a note, printed as it is.
 */
export function commandText(command: string): string {
  if (command.startsWith('(')) return `${command}\n`;
  const [, words = command, comment] = /^(.*?)(?:\s+(#[^']*))?$/.exec(command)!;
  const split = shellWords(words);
  const lines = fill(['$', ...(split[0] === 'cat' ? [] : ['baton']), ...split], WIDTH, '    ', ' \\');
  if (comment !== undefined) lines[lines.length - 1] += `   ${comment}`;
  return lines.join('\n') + '\n';
}

/** A line of output as shown: folded at spaces when wider than the page, its indentation kept. */
function folded(line: string): string[] {
  if (line.length <= OUTPUT_WIDTH) return [line];
  const indent = /^\s*/.exec(line)![0];
  return fill(line.trim().split(' '), OUTPUT_WIDTH, `${indent}    `).map((l, i) => (i === 0 ? indent + l : l));
}

/** A command's output as shown: every line folded, and a long output cut to an excerpt. */
export function outputText(text: string): string {
  if (text === '') return '';
  const lines = text.replace(/\n$/, '').split('\n').flatMap(folded);
  if (lines.length <= EXCERPT_LINES) return lines.join('\n') + '\n';
  // Its head and its tail: where a file or a view starts, and where it ends up.
  const head = lines.slice(0, EXCERPT_LINES - TAIL_LINES - 1);
  const tail = lines.slice(-TAIL_LINES);
  return [...head, `  … (${lines.length - head.length - tail.length} lines left out)`, ...tail].join('\n') + '\n';
}

/** A line of the story (`# …`), folded to the page. */
export function narration(text: string): string {
  return (
    fill(text.split(' '), WIDTH - 2, '')
      .map((l) => `# ${l}`)
      .join('\n') + '\n'
  );
}

/** The text of one shown command: the command, its output and error text, and a failing exit code. */
export function shownText({ command, stdout, stderr, code }: Shown): string {
  return commandText(command) + outputText(stdout) + outputText(stderr) + (code !== 0 ? `(exit ${code})\n` : '');
}
