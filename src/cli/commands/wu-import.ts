import { importWorkUnits } from '../../app/commands/work-unit-definitions.js';
import type { CommandContext } from '../context.js';
import { WuImportEnvelope } from '../../app/envelopes/work-units.js';

/** `baton wu import PATH…`: src/app/commands/work-unit-definitions.ts, printed. */
export async function wuImport(ctx: CommandContext, paths: string[]): Promise<void> {
  ctx.output.emit(WuImportEnvelope, await importWorkUnits(ctx, { paths }), (e) =>
    [
      ...e.files.map((f) => `${f.result.padEnd(9)} ${f.wu_id ?? '-'}  ${f.path}${f.changed_fields.length > 0 ? `  (${f.changed_fields.join(', ')})` : ''}`),
      `${e.appended} event(s) appended`,
    ].join('\n'),
  );
}
