import type { RecordedSettings } from './lumenflow-fold.js';
import type { WorkUnitsConfig } from './settings.js';

/**
 * The settings a view uses: `.baton/config.yaml`, over the lane and capacity settings a repository's
 * own configuration recorded in the log (`settings.recorded`, from `import lumenflow`), over the
 * defaults. A lane named in config.yaml keeps its entry whole; a capacity set there wins.
 */
export function withRecordedSettings(config: WorkUnitsConfig, recorded: RecordedSettings | undefined): WorkUnitsConfig {
  if (recorded === undefined) return config;
  const lanes: WorkUnitsConfig['lanes'] = {};
  for (const [lane, s] of Object.entries(recorded.lanes)) {
    lanes[lane] = { ...(s.lock_policy !== undefined ? { lock_policy: s.lock_policy } : {}), ...(s.wip_limit !== undefined ? { wip_limit: s.wip_limit } : {}) };
  }
  for (const [lane, s] of Object.entries(config.lanes)) lanes[lane] = s;
  const max = config.orchestration.max_active_workers ?? recorded.max_active_workers;
  return { ...config, orchestration: { ...config.orchestration, max_active_workers: max }, lanes };
}
