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
  agent_count: z.number().int().min(1),
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
const BULLETS: Record<string, DeepDiveSection> = { 'Tech stack': 'tech_stack', 'Entry points': 'entry_points', 'Key patterns': 'key_patterns' };
/** Placeholders Baton and Agent Flow write for a section never given. */
const PLACEHOLDER = /^_(Not documented yet|No .* documented yet)_$/;
const OVERVIEW = 'Repository Overview';
const LOG = 'Deep-Dive Log';

function trimBlank(lines: string[]): string {
  return lines.join('\n').replace(/^\n+/, '').replace(/\n+$/, '');
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
    if (chunk.title === LOG) continue;
    if (chunk.title === OVERVIEW) {
      const rest: string[] = [];
      for (const line of chunk.lines) {
        const bullet = /^- \*\*(.+?)\*\*: (.*)$/.exec(line);
        const name = bullet ? BULLETS[bullet[1]!] : undefined;
        if (bullet && name) {
          if (!PLACEHOLDER.test(bullet[2]!.trim())) sections[name] = bullet[2]!.trim();
        } else rest.push(line);
      }
      const overview = trimBlank(rest);
      if (overview !== '') sections.overview = overview;
      continue;
    }
    const text = trimBlank(chunk.lines);
    const owned = OWNED[chunk.title];
    if (owned !== undefined) {
      if (text !== '' && !PLACEHOLDER.test(text)) sections[owned] = text;
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
