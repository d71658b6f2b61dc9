import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { JsonlEventStore } from '../../store/jsonl/jsonl-store.js';
import { FILE_MODE } from '../../store/jsonl/layout.js';
import type { CommandContext } from '../context.js';
import { WorkspaceEnvelope } from '../envelopes.js';

const DEFAULT_CONFIG = `# Baton workspace settings (see README). The log under log/ is the only source of truth.
store:
  kind: jsonl
`;

export async function initCommand(ctx: CommandContext): Promise<void> {
  ctx.mayCreateWorkspace();
  const dir = await ctx.workspace();
  const created = JsonlEventStore.initWorkspace(dir);
  const config = join(dir, '.baton', 'config.yaml');
  if (!existsSync(config)) writeFileSync(config, DEFAULT_CONFIG, { mode: FILE_MODE, flag: 'wx' });
  ctx.output.emit(WorkspaceEnvelope, { v: 1, type: 'workspace', generated_at: ctx.now, dir, created }, (e) =>
    e.created ? `initialised Baton workspace in ${e.dir}/.baton` : `Baton workspace already initialised in ${e.dir}/.baton`,
  );
}
