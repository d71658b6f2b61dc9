import { importLumenflowRepository } from '../../app/commands/lumenflow-import.js';
import type { CommandContext } from '../context.js';
import { LumenflowImportEnvelope } from '../../app/envelopes/lumenflow.js';

/** `baton import lumenflow [REPO]`: src/app/commands/lumenflow-import.ts, printed. */
export async function importLumenflowCommand(
  ctx: CommandContext,
  repo: string | undefined,
  options: { dryRun?: boolean; skipInvalid?: boolean },
): Promise<void> {
  const envelope = await importLumenflowRepository(ctx, { repo, cwd: process.cwd(), dry_run: options.dryRun, skip_invalid: options.skipInvalid });
  ctx.output.emit(LumenflowImportEnvelope, envelope, (e) =>
    [
      `${e.dry_run ? 'dry run: ' : ''}LumenFlow repository ${e.repo}`,
      `  settings     ${e.settings.lanes} lane(s), max_active_workers ${e.settings.max_active_workers ?? 'unlimited'}${e.settings.recorded ? ' (recorded)' : ''}`,
      `  initiatives  ${e.initiatives.defined} defined, ${e.initiatives.changed} changed, ${e.initiatives.unchanged} unchanged`,
      `  work units   ${e.wus.defined} defined, ${e.wus.changed} changed, ${e.wus.unchanged} unchanged`,
      `  wu-events    ${e.wu_events.imported} line(s) imported, ${e.wu_events.already_imported} already imported, ${e.wu_events.malformed} malformed`,
      `  stamps       ${e.stamps.files} file(s), ${e.stamps.recorded} recorded`,
      ...(e.skipped_invalid > 0 ? [`  skipped ${e.skipped_invalid} invalid file(s)`] : []),
      ...e.findings.map((f) => `  ${f.severity.padEnd(9)} ${f.code}: ${f.message}`),
      e.dry_run ? `nothing appended (dry run)` : `${e.appended} event(s) appended`,
    ].join('\n'),
  );
}
