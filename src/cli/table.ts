/**
 * A human table: a header row of upper-case names, then one row per item; every column but the
 * last is padded to its widest cell, columns are two spaces apart, and no line ends in spaces.
 */
export function table(headers: readonly string[], rows: readonly (readonly string[])[], indent = ''): string {
  const widths = headers.map((h, i) => rows.reduce((w, row) => Math.max(w, (row[i] ?? '').length), h.length));
  const line = (cells: readonly string[]): string =>
    indent +
    headers
      .map((_, i) => (i === headers.length - 1 ? (cells[i] ?? '') : (cells[i] ?? '').padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}
