import type { DeepDiveSection } from '../../events/flow/vocabulary.js';
import { phaseStatuses, type DeepDiveRecord } from './deep-dive-state.js';
import { fileTime, stateFile } from './render-text.js';

/** `.claude/deep-dive.local.md` (§8.1). */
export const DEEP_DIVE_FILE = '.claude/deep-dive.local.md';
export const EXPIRES_HINT = 'refresh when codebase significantly changes';

export function deepDiveFrontmatter(dd: DeepDiveRecord): Record<string, unknown> {
  const statuses = phaseStatuses(dd.phase);
  return {
    generated: fileTime(dd.generated),
    scope: dd.scope,
    focus_path: dd.focus_path,
    expires_hint: EXPIRES_HINT,
    phase: dd.phase,
    agent_count: dd.agent_count,
    phases: {
      parallel_exploration: { status: statuses.parallel_exploration, agents_spawned: dd.agents_spawned, agents_completed: dd.agents_completed },
      synthesis: { status: statuses.synthesis },
      compilation: { status: statuses.compilation },
    },
  };
}

/** Section texts are Markdown, inserted verbatim with line endings normalized. */
function block(text: string | undefined, placeholder: string): string {
  if (text === undefined) return placeholder;
  return text.replace(/\r\n?/g, '\n').replace(/\n+$/, '');
}

/** The three overview bullets are one line each. */
function bullet(text: string | undefined): string {
  return text === undefined ? '_Not documented yet_' : text.replace(/\r\n?|\n/g, ' ');
}

export function renderDeepDiveFile(dd: DeepDiveRecord): string {
  const s = (name: DeepDiveSection): string | undefined => dd.sections[name];
  const body = [
    '# Deep-Dive Context',
    '',
    '## Repository Overview',
    `- **Tech stack**: ${bullet(s('tech_stack'))}`,
    `- **Entry points**: ${bullet(s('entry_points'))}`,
    `- **Key patterns**: ${bullet(s('key_patterns'))}`,
    '',
  ];
  if (s('overview') !== undefined) body.push(block(s('overview'), ''), '');
  body.push(
    '## Architecture Map',
    '',
    block(s('architecture'), '_No architecture map documented yet_'),
    '',
    '## Conventions',
    '',
    block(s('conventions'), '_No conventions documented yet_'),
    '',
    '## Anti-Patterns (DO NOT)',
    '',
    block(s('antipatterns'), '_No anti-patterns documented yet_'),
    '',
    '## Key Files Quick Reference',
    '',
    block(s('quick_reference'), '_No quick reference documented yet_'),
    '',
    '## Agent Notes',
    '',
    block(s('agent_notes'), '_No agent notes documented yet_'),
    '',
    ...dd.extra_sections.flatMap((e) => [`## ${e.title}`, '', block(e.text, ''), '']),
    '## Deep-Dive Log',
    ...dd.log.map((l) => `- ${fileTime(l.at)} ${l.text}`),
  );
  return stateFile(deepDiveFrontmatter(dd), body);
}
