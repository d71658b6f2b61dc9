import { importWuYaml } from '../../work-units/import.js';
import type { CommandContext } from '../context.js';
import { WuImportEnvelope } from '../../app/envelopes/work-units.js';
import { workUnitsEnv } from '../../app/work-units-env.js';

export async function wuImport(ctx: CommandContext, paths: string[]): Promise<void> {
  const result = await importWuYaml(await workUnitsEnv(ctx), paths);
  ctx.output.emit(WuImportEnvelope, { v: 1, type: 'wu_import', generated_at: ctx.now, ...result }, (e) =>
    [
      ...e.files.map((f) => `${f.result.padEnd(9)} ${f.wu_id ?? '-'}  ${f.path}${f.changed_fields.length > 0 ? `  (${f.changed_fields.join(', ')})` : ''}`),
      `${e.appended} event(s) appended`,
    ].join('\n'),
  );
}
