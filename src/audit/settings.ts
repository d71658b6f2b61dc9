import { z } from 'zod';
import type { AuditWindows } from '../../projections/audit/types.js';
import { durationSeconds } from '../../projections/work-units/settings.js';
import { branchName } from '../../events/work-units/vocabulary.js';
import { parseConfigSection } from '../config/parse-section.js';

/**
 * The `audit:` section of `.baton/config.yaml`: which branch done work must reach, and the windows
 * after which a claim without a checkpoint is stalled, an unanswered ACK overdue, a flow phase stuck.
 *
 *   audit:
 *     integration_branch: main      # default: the remote HEAD's branch (origin/HEAD), else main
 *     stall_window: 24h
 *     ack_window: 4h
 *     flow_phase_window: 24h
 */
const window = (fallback: string) =>
  z
    .string()
    .refine((s) => durationSeconds(s) !== undefined, 'must be <int>(s|m|h|d), > 0')
    .default(fallback);

export const AuditConfigSchema = z.looseObject({
  audit: z
    .strictObject({
      integration_branch: branchName.optional(),
      stall_window: window('24h'),
      ack_window: window('4h'),
      flow_phase_window: window('24h'),
    })
    .prefault({}),
});
export type AuditConfig = z.output<typeof AuditConfigSchema>['audit'];

export interface AuditSettings {
  /** The configured integration branch; undefined: the remote HEAD's, else `main`. */
  integrationBranch: string | undefined;
  windows: AuditWindows;
}

const DEFAULTS: AuditConfig = { stall_window: '24h', ack_window: '4h', flow_phase_window: '24h' };

/** The audit settings of config.yaml's text (undefined: no file); a bad value is INVALID_INPUT naming `config.yaml.audit.<key>`. */
export function auditSettingsFrom(configText: string | undefined): AuditSettings {
  const config = parseConfigSection(configText, AuditConfigSchema, { audit: DEFAULTS }).audit;
  return {
    integrationBranch: config.integration_branch,
    windows: {
      stall_seconds: durationSeconds(config.stall_window)!,
      ack_seconds: durationSeconds(config.ack_window)!,
      flow_phase_seconds: durationSeconds(config.flow_phase_window)!,
    },
  };
}
