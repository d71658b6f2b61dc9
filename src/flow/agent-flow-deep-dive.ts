import { z } from 'zod';
import { focusPath, type DeepDiveSections, type ExtraSection } from '../../events/flow/deep-dive-events.js';
import { DEEP_DIVE_SCOPES, MAX_SECTION_LENGTH, type DeepDiveSection } from '../../events/flow/vocabulary.js';
import { readFrontmatterAs } from './observe-edit.js';

/**
 * `.claude/deep-dive.local.md` as another writer left it (Agent Flow's compile script, a person, a
 * tool adding notes): its frontmatter validated, its `## ` sections read back into Baton's section
 * names, and every other `## ` section kept as an extra section Baton carries through compile.
 */
const DeepDiveFront = z.looseObject({
  generated: z.string().optional(),
  scope: z.enum(DEEP_DIVE_SCOPES),
  focus_path: focusPath.nullable().optional(),
  phase: z.string(),
  /** Absent in some compiled documents: the documented default. */
  agent_count: z.number().int().min(1).default(5),
  phases: z
    .looseObject({
      parallel_exploration: z
        .looseObject({ agents_spawned: z.number().int().min(0).optional(), agents_completed: z.number().int().min(0).optional() })
        .optional(),
    })
    .optional(),
});

export interface DeepDiveFile {
  scope: (typeof DEEP_DIVE_SCOPES)[number];
  focus_path: string | null;
  phase: string;
  agent_count: number;
  agents_spawned: number;
  agents_completed: number;
  sections: DeepDiveSections;
  extra_sections: ExtraSection[];
}

const OWNED: Record<string, DeepDiveSection> = {
  'Architecture Map': 'architecture',
  Conventions: 'conventions',
  'Anti-Patterns (DO NOT)': 'antipatterns',
  'Key Files Quick Reference': 'quick_reference',
  'Agent Notes': 'agent_notes',
};
/** The overview's bullets, by name in any capitalization. */
const BULLETS: Record<string, DeepDiveSection> = { 'tech stack': 'tech_stack', 'entry points': 'entry_points', 'key patterns': 'key_patterns' };
/**
 * Placeholders written for a section never given: one italic line saying there is nothing yet
 * (`_Not documented yet_`, `_No conventions documented yet_`, `_No … provided yet_`), or a table
 * whose every cell is `_pending_`.
 */
const PLACEHOLDER = /^_(Not documented yet|No [^_]*)_$/;
function isPlaceholder(text: string): boolean {
  const t = text.trim();
  if (PLACEHOLDER.test(t)) return true;
  const rows = t
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !/^\|[\s:|-]+\|$/.test(l));
  if (rows.length < 2 || !rows.every((l) => l.startsWith('|'))) return false;
  return rows.slice(1).every((r) =>
    r
      .split('|')
      .slice(1, -1)
      .every((c) => c.trim() === '_pending_'),
  );
}
const OVERVIEW = 'Repository Overview';
/** The log a writer keeps at the end (Baton's, or a compile log): rendered, never read back. */
const LOG = /^(Deep-Dive|Compilation) Log$/i;

/** A section's text: blank lines and a closing rule (`---`, `***`) around it dropped. */
function trimBlank(lines: string[]): string {
  return lines
    .join('\n')
    .replace(/^\n+/, '')
    .replace(/(\n\s*(-{3,}|\*{3,})\s*)+\s*$/, '')
    .replace(/\n+$/, '');
}

export function readDeepDiveFile(text: string): { file: DeepDiveFile } | { key: string; rule: string } {
  const read = readFrontmatterAs(text, DeepDiveFront);
  if (!('data' in read)) return read;
  const front = read.data;
  const spawned = front.phases?.parallel_exploration?.agents_spawned ?? 0;
  const completed = front.phases?.parallel_exploration?.agents_completed ?? 0;
  if (completed > spawned) return { key: 'phases.parallel_exploration.agents_completed', rule: `must be at most agents_spawned (${spawned})` };

  const body = text
    .replace(/\r\n?/g, '\n')
    .slice(text.indexOf('\n---', 3) + 4)
    .split('\n');
  const sections: DeepDiveSections = {};
  const extra: ExtraSection[] = [];
  const chunks: { title: string; lines: string[] }[] = [];
  for (const line of body) {
    const heading = /^## (.+)$/.exec(line);
    if (heading) chunks.push({ title: heading[1]!.trim(), lines: [] });
    else chunks.at(-1)?.lines.push(line);
  }
  for (const chunk of chunks) {
    if (LOG.test(chunk.title)) continue;
    if (chunk.title === OVERVIEW) {
      const rest: string[] = [];
      for (const line of chunk.lines) {
        const bullet = /^- \*\*(.+?)\*\*: (.*)$/.exec(line);
        const name = bullet ? BULLETS[bullet[1]!.toLowerCase()] : undefined;
        if (bullet && name) {
          if (!isPlaceholder(bullet[2]!)) sections[name] = bullet[2]!.trim();
        } else rest.push(line);
      }
      const overview = trimBlank(rest);
      if (overview !== '' && !isPlaceholder(overview)) sections.overview = overview;
      continue;
    }
    const text = trimBlank(chunk.lines);
    const owned = OWNED[chunk.title];
    if (owned !== undefined) {
      if (text !== '' && !isPlaceholder(text)) sections[owned] = text;
    } else if (text === '') {
      continue;
    } else if (text.length <= MAX_SECTION_LENGTH && chunk.title.length <= 200) {
      extra.push({ title: chunk.title, text });
    } else {
      return { key: `## ${chunk.title.slice(0, 40)}`, rule: `a section is at most ${MAX_SECTION_LENGTH} characters` };
    }
  }
  for (const [name, value] of Object.entries(sections)) {
    if ((value ?? '').length > MAX_SECTION_LENGTH) return { key: name, rule: `must be at most ${MAX_SECTION_LENGTH} characters` };
  }
  return {
    file: {
      scope: front.scope,
      focus_path: front.focus_path ?? null,
      phase: front.phase,
      agent_count: front.agent_count,
      agents_spawned: spawned,
      agents_completed: completed,
      sections,
      extra_sections: extra,
    },
  };
}
