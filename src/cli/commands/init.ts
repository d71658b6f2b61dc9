import { existsSync, writeFileSync } from 'node:fs';
import { JsonlEventStore } from '../../store/jsonl/jsonl-store.js';
import { FILE_MODE, workspaceLayout } from '../../store/jsonl/layout.js';
import type { CommandContext } from '../context.js';
import { WorkspaceEnvelope } from '../../app/envelopes/foundation.js';
import { gitignoreBaton } from './init-gitignore.js';

const DEFAULT_CONFIG = `# Baton workspace settings (see README). The log under log/ is the only source of truth.
store:
  kind: jsonl
`;

/** What a new user does next (printed by `init`, so the first command is not a guess). */
export const INIT_NEXT_STEPS = [
  { command: 'baton session start --client codex', why: 'start a session for an agent (Claude Code: baton setup claude-code)' },
  { command: `baton log append --type note.recorded --stream note/ops --data '{"text":"hello"}'`, why: 'record a first fact' },
  { command: 'baton status', why: 'what to do next, and how to resume' },
  { command: 'baton --help', why: 'every command, with examples' },
] as const;

export async function initCommand(ctx: CommandContext, options: { gitignore?: boolean } = {}): Promise<void> {
  ctx.mayCreateWorkspace();
  const dir = await ctx.workspace();
  const created = JsonlEventStore.initWorkspace(dir);
  const config = workspaceLayout(dir).config;
  if (!existsSync(config)) writeFileSync(config, DEFAULT_CONFIG, { mode: FILE_MODE, flag: 'wx' });
  const gitignore = gitignoreBaton(dir, options.gitignore === true);
  ctx.output.emit(
    WorkspaceEnvelope,
    { v: 1, type: 'workspace', generated_at: ctx.now, dir, created, gitignore, next_steps: INIT_NEXT_STEPS.map((step) => ({ ...step })) },
    (e) =>
      [
        e.created ? `initialised Baton workspace in ${e.dir}/.baton` : `Baton workspace already initialised in ${e.dir}/.baton`,
        e.gitignore === 'added'
          ? 'added .baton/ to .gitignore'
          : e.gitignore === 'already_ignored'
            ? '.baton/ is already in .gitignore'
            : '.baton/ is not in .gitignore (it holds machine-local state): baton init --gitignore adds it',
        'Next:',
        ...e.next_steps.map((step) => `  ${step.command}\n      ${step.why}`),
      ].join('\n'),
  );
}
