import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { HistorySource } from '../../../deciders/lumenflow-sources.js';
import { INPUT_LIMITS, readInputFile } from '../../input/bounded-input.js';

/**
 * `<stateDir>/wu-events.jsonl`, LumenFlow's WU history (camelCase keys), read as its non-blank
 * lines, each keyed by its number and text; deciders/lumenflow-sources.ts parses the lines the log
 * does not hold yet into `observation.lumenflow_wu_event`s.
 */
export function lineKey(line: number, text: string): string {
  return createHash('sha256').update(`${line}\n${text}`).digest('hex');
}

export function readWuEvents(stateDir: string, display: (abs: string) => string): HistorySource {
  const path = join(stateDir, 'wu-events.jsonl');
  if (!existsSync(path)) return { path: null, lines: [] };
  // Read whole, so bounded like `--events`: a file over a limit (or not a file) is exit 2 naming it.
  const text = readInputFile(path, 'REPO', INPUT_LIMITS.lumenflowEvents, { namedPipe: 'refuse' }).toString('utf8');
  const raw = text.split('\n');
  if (raw.at(-1) === '') raw.pop();
  const lines: { line: number; text: string; key: string }[] = [];
  raw.forEach((rawLine, i) => {
    const lineText = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
    if (lineText.trim() !== '') lines.push({ line: i + 1, text: lineText, key: lineKey(i + 1, lineText) });
  });
  return { path: display(path), lines };
}
