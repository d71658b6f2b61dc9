import { defineWorkUnit, type WuCreateInput } from '../../app/commands/work-unit-definitions.js';
import type { CommandContext } from '../context.js';
import { WuDefinitionEnvelope } from '../../app/envelopes/work-units.js';

/** `wu create`'s flags (`--deps`, `--code-paths`: comma-separated lists). */
export interface WuCreateFlags {
  initiative?: string;
  title?: string;
  description?: string;
  acceptance?: string[];
  lane?: string;
  type?: string;
  priority?: string;
  deps?: string;
  codePaths?: string;
}

/** A comma-separated list flag → its trimmed, non-empty items. */
export function splitList(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** `baton wu create WU …`: src/app/commands/work-unit-definitions.ts, printed. */
export async function wuCreate(ctx: CommandContext, wu: string, flags: WuCreateFlags): Promise<void> {
  ctx.output.nameArguments({ wu: 'WU', dependencies: '--deps' });
  const { deps, codePaths, ...rest } = flags;
  const input: WuCreateInput = { wu, ...rest, dependencies: splitList(deps), code_paths: splitList(codePaths) };
  ctx.output.emit(WuDefinitionEnvelope, await defineWorkUnit(ctx, input), (e) =>
    e.result === 'unchanged' ? `${e.wu_id} unchanged` : `${e.wu_id} ${e.result}: ${e.changed_fields.join(', ')}`,
  );
}
