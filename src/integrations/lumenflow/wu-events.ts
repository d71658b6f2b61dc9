import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { LUMENFLOW_WU_EVENT_KINDS, ObservationLumenflowWuEventData } from '../../../events/work-units/lumenflow.js';
import { describeZodIssues } from '../../../events/validation.js';
import type { WorkUnitsState } from '../../../projections/work-units/state.js';
import type { ProposedEvent } from '../../../deciders/decision.js';
import { INPUT_LIMITS, readInputFile } from '../../input/bounded-input.js';

/**
 * `<stateDir>/wu-events.jsonl`, LumenFlow's WU history (camelCase keys), as
 * `observation.lumenflow_wu_event`s carrying their original timestamps. Each line is keyed by its
 * number and text: a line already imported is skipped, a malformed one is reported with its number
 * and skipped — it never poisons the rest.
 */
export interface MalformedLine {
  line: number;
  message: string;
}

export interface WuEventsPlan {
  path: string | null;
  lines: number;
  already_imported: number;
  events: ProposedEvent[];
  malformed: MalformedLine[];
}

/** camelCase key of a line → the snake_case field of the event. */
const KEYS: readonly (readonly [string, string])[] = [
  ['lane', 'lane'],
  ['title', 'title'],
  ['note', 'note'],
  ['sessionId', 'session_id'],
  ['progress', 'progress'],
  ['nextSteps', 'next_steps'],
  ['reason', 'reason'],
  ['parentWuId', 'parent_wu_id'],
  ['delegationId', 'delegation_id'],
];

export function lineKey(line: number, text: string): string {
  return createHash('sha256').update(`${line}\n${text}`).digest('hex');
}

function parseLine(text: string, line: number): { data: Record<string, unknown> } | { error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { error: 'not valid JSON' };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { error: 'must be a JSON object' };
  const r = raw as Record<string, unknown>;
  if (!(LUMENFLOW_WU_EVENT_KINDS as readonly unknown[]).includes(r['type'])) return { error: `type: must be one of ${LUMENFLOW_WU_EVENT_KINDS.join(', ')}` };
  const stamp = typeof r['timestamp'] === 'string' ? Date.parse(r['timestamp']) : Number.NaN;
  if (Number.isNaN(stamp)) return { error: 'timestamp: must be an ISO-8601 time' };
  const data: Record<string, unknown> = { wu_id: r['wuId'], kind: r['type'], timestamp: new Date(stamp).toISOString(), line, line_key: lineKey(line, text) };
  for (const [from, to] of KEYS) {
    const v = r[from];
    if (typeof v === 'string' && v.trim() !== '') data[to] = v.trim();
    else if (typeof v === 'number') data[to] = String(v);
  }
  const checked = ObservationLumenflowWuEventData.safeParse(data);
  if (!checked.success) {
    const p = describeZodIssues(checked.error)[0];
    const field = p?.field === 'wu_id' ? 'wuId' : (KEYS.find(([, to]) => to === p?.field)?.[0] ?? p?.field ?? '(line)');
    return { error: `${field}: ${p?.rule ?? 'invalid'}` };
  }
  return { data: checked.data as Record<string, unknown> };
}

export function planWuEvents(stateDir: string, state: WorkUnitsState, display: (abs: string) => string): WuEventsPlan {
  const path = join(stateDir, 'wu-events.jsonl');
  if (!existsSync(path)) return { path: null, lines: 0, already_imported: 0, events: [], malformed: [] };
  const imported = state.lumenflow_lines ?? {};
  // Read whole, so bounded like `--events`: a file over a limit (or not a file) is exit 2 naming it.
  const text = readInputFile(path, 'REPO', INPUT_LIMITS.lumenflowEvents, { namedPipe: 'refuse' }).toString('utf8');
  const plan: WuEventsPlan = { path: display(path), lines: 0, already_imported: 0, events: [], malformed: [] };
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  lines.forEach((raw, i) => {
    const number = i + 1;
    const lineText = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (lineText.trim() === '') return;
    plan.lines++;
    if (Object.hasOwn(imported, lineKey(number, lineText))) {
      plan.already_imported++;
      return;
    }
    const parsed = parseLine(lineText, number);
    if ('error' in parsed) return plan.malformed.push({ line: number, message: parsed.error });
    plan.events.push({ type: 'observation.lumenflow_wu_event', stream: `wu/${String(parsed.data['wu_id'])}`, data: parsed.data });
  });
  return plan;
}
