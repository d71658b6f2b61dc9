import { stringify } from 'yaml';

/** Shared rendering rules of the state files (§7.1 R6–R8, §7.4). */

/** R6: a YAML 1.2 serializer, every string double-quoted with JSON escapes, nothing folded. */
export function frontmatterYaml(value: Record<string, unknown>): string {
  return stringify(value, { defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN', doubleQuotedAsJSON: true, lineWidth: 0, indent: 2 });
}

/** R8: `---`, the frontmatter, `---`, an empty line, the body, exactly one final newline. */
export function stateFile(front: Record<string, unknown>, bodyLines: readonly string[]): string {
  return `---\n${frontmatterYaml(front)}---\n\n${bodyLines.join('\n').replace(/\n+$/, '')}\n`;
}

/** R7: `YYYY-MM-DDTHH:MM:SSZ`, milliseconds dropped. */
export function fileTime(iso: string): string {
  return `${new Date(iso).toISOString().slice(0, 19)}Z`;
}

/** A value after `- Key: ` stays on one line: `\` → `\\`, LF → `\n`, CR → `\r`, other controls → `\uXXXX`. */
export function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\\\n\r\u0000-\u001f\u007f-\u009f]/g, (c) => {
    if (c === '\\') return '\\\\';
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}
