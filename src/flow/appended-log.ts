import { AgentName } from '../../events/flow/flow-events.js';
import { AGENTS, MAX_MESSAGE_LENGTH, TEAMMATES, type Teammate } from '../../events/flow/vocabulary.js';

/**
 * Lines another writer appended to a state file's Markdown log, read back as entries. Agent Flow's
 * update scripts add one per call that names an agent or a message: a heading for the phase, the
 * parallel group or a teammate, then `- Key: value` lines (who, the message, the gate result, the
 * time); a person may add a bare line. Each entry says who (`Agent`), what (`Message`, or `Result`,
 * `Note`), and which gate result it reports (`Gate`, `Status`). Only text after Baton's own
 * rendering of the log is read: a log edited anywhere else is no append.
 */
export const EntryKind = { phase: 'phase', teammate: 'teammate', group: 'group', complete: 'complete' } as const;
export type EntryKind = (typeof EntryKind)[keyof typeof EntryKind];

export interface AppendedEntry {
  kind: EntryKind;
  teammate?: Teammate;
  agent?: string;
  message?: string;
  /** The gate result the entry reports, lowercased (`IN PROGRESS` reads `in_progress`). */
  gate?: string;
}

/** The body below the frontmatter's closing `---` line, or null when there is none. */
function bodyOf(text: string): string | null {
  const end = text.indexOf('\n---\n', 3);
  return end < 0 ? null : text.slice(end + 5);
}

/** What follows Baton's rendering of the log in the file's body; null when the body is not that rendering plus more. */
export function appendedText(fileText: string, rendering: string): string | null {
  const body = bodyOf(fileText.replace(/\r\n/g, '\n'));
  const baton = bodyOf(rendering);
  if (body === null || baton === null) return null;
  const base = baton.replace(/\n+$/, '');
  return body.startsWith(base) ? body.slice(base.length) : null;
}

/** Keys an entry's `- Key: value` lines use for something other than its agent or its message. */
const OTHER_KEYS = new Set(['timestamp', 'time', 'started', 'completed', 'phase', 'iteration', 'reason', 'summary', 'mode', 'from', 'to', 'task', 'earlier']);
const FIELD = /^\s*[-*]\s+(?:\*\*)?([A-Za-z][A-Za-z _-]{0,30}?)(?:\*\*)?\s*:\s+(.*)$/;
const HEADING = /^#{1,6}\s+(.*)$/;

interface RawEntry {
  title: string;
  /** By lowercased key: the key as written and its value. */
  fields: Map<string, { name: string; value: string }>;
  text: string[];
}

function rawEntries(text: string): RawEntry[] {
  const out: RawEntry[] = [];
  let current: RawEntry | null = null;
  for (const line of text.split('\n')) {
    if (line.trim() === '') {
      current = null;
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      current = { title: heading[1]!.trim(), fields: new Map(), text: [] };
      out.push(current);
      continue;
    }
    if (current === null) {
      current = { title: '', fields: new Map(), text: [] };
      out.push(current);
    }
    const field = FIELD.exec(line);
    const key = field?.[1]!.trim();
    if (field && key !== undefined && !current.fields.has(key.toLowerCase())) current.fields.set(key.toLowerCase(), { name: key, value: field[2]!.trim() });
    else current.text.push(line.replace(/^\s*[-*]\s+/, '').trim());
  }
  return out;
}

function kindOf(title: string): Pick<AppendedEntry, 'kind' | 'teammate'> {
  const teammate = TEAMMATES.find((t) => new RegExp(`teammate\\s*:?\\s*${t}\\b`, 'i').test(title));
  if (teammate !== undefined) return { kind: EntryKind.teammate, teammate };
  if (/parallel|review_verification|review & verification/i.test(title)) return { kind: EntryKind.group };
  if (/\bcomplete\b/i.test(title)) return { kind: EntryKind.complete };
  return { kind: EntryKind.phase };
}

/** An agent name as Baton stores it (one of the six capitalized), or nothing when it is no name. */
function agentOf(value: string | undefined): string | undefined {
  if (value === undefined || !AgentName.safeParse(value).success) return undefined;
  return AGENTS.find((a) => a.toLowerCase() === value.toLowerCase()) ?? value;
}

const OWN_KEYS = ['agent', 'message', 'result', 'note', 'gate', 'status'];

function entryOf(raw: RawEntry): AppendedEntry {
  const get = (key: string): string | undefined => raw.fields.get(key)?.value;
  let agent = get('agent');
  let message = get('message') ?? get('result') ?? get('note') ?? (raw.text.length > 0 ? raw.text.join(' ') : undefined);
  // A bare `- Loid: Completed step 3 of 5` line: the key is who, the value what.
  const unknown = [...raw.fields.entries()].filter(([k]) => !OTHER_KEYS.has(k) && !OWN_KEYS.includes(k));
  if (agent === undefined && message === undefined && unknown.length === 1 && !unknown[0]![1].name.includes(' ')) {
    agent = unknown[0]![1].name;
    message = unknown[0]![1].value;
  }
  const gate = (get('gate') ?? get('status'))?.toLowerCase().replace(/\s+/g, '_');
  const name = agentOf(agent);
  const text = message?.slice(0, MAX_MESSAGE_LENGTH);
  return {
    ...kindOf(raw.title),
    ...(name === undefined ? {} : { agent: name }),
    ...(text === undefined || text === '' ? {} : { message: text }),
    ...(gate === undefined ? {} : { gate }),
  };
}

/** The entries appended after Baton's rendering of the log (none when nothing was appended). */
export function appendedEntries(fileText: string, rendering: string): AppendedEntry[] {
  const text = appendedText(fileText, rendering);
  return text === null ? [] : rawEntries(text).map(entryOf);
}
