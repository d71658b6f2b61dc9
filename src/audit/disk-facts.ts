import { join } from 'node:path';
import type { DiskFacts } from '../../projections/audit/types.js';
import { DEEP_DIVE_FILE, latestFlow, renderDeepDiveFile, renderFlowFile, STATE_FILE, type FlowState } from '../../projections/flow/index.js';
import type { WorkUnitsState } from '../../projections/work-units/state.js';
import type { AppContext } from '../app/context.js';
import { readIfFile } from '../artifacts/atomic-write.js';
import { isActiveAgentFlowRun } from '../flow/agent-flow-file.js';
import { editedOutside, sha256 } from '../flow/state-file-memory.js';
import { probeStamps } from '../probes/work-units.js';
import { isValidStamp, stampContent } from '../work-units/stamps.js';
import type { YamlComparison } from '../work-units/observe.js';

/**
 * The files the log projects, each compared with the log the way its own probe compares it: stamp
 * files (the stamp probe), WU YAML files (the YAML probe, prepared before the log is folded), Baton's
 * own stamps (`wu done` rewrites an invalid one), and the flow state files (an edit is what differs
 * from both the current rendering and the last one Baton wrote). Nothing is appended or rewritten here.
 */
export interface DiskInput {
  workspace: string;
  fold: WorkUnitsState;
  flows: FlowState;
  /** The YAML probe's comparison, prepared before the fold; undefined when no WU YAML folder is configured. */
  compareYaml: YamlComparison;
  /** In a git repository a stamp file the log recorded and that is gone is news (as the probes say it). */
  inGit: boolean;
  warn?: ((message: string) => void) | undefined;
}

export async function gatherDiskFacts(app: AppContext, input: DiskInput): Promise<DiskFacts> {
  const { workspace, fold } = input;
  const observations = probeStamps(workspace, fold, input.inGit).filter((e) => e.type === 'observation.stamp_file');
  const yaml_changes: DiskFacts['yaml_changes'] = [];
  if (input.compareYaml !== undefined) {
    const outcome = await input.compareYaml(fold);
    for (const warning of outcome.warnings) input.warn?.(`YAML probe skipped ${warning}`);
    observations.push(...outcome.events);
    for (const row of outcome.rows)
      if (row.wu_id !== null && row.changed_fields.length > 0) yaml_changes.push({ path: row.path, wu_id: row.wu_id, changed_fields: row.changed_fields });
  }
  return { observations, yaml_changes, altered_stamps: alteredStamps(workspace, fold), edited_flow_files: await editedFlowFiles(app, workspace, input.flows) };
}

/** Baton's stamps that are missing or no longer valid (what `wu done` rewrites); a valid hand-written one is kept, as `wu done` keeps it. */
function alteredStamps(workspace: string, fold: WorkUnitsState): DiskFacts['altered_stamps'] {
  const out: DiskFacts['altered_stamps'] = [];
  for (const wu of Object.values(fold.wus)) {
    const stamped = wu.stamped;
    if (stamped === null) continue;
    let bytes: Buffer | undefined;
    try {
      bytes = readIfFile(workspace, join(workspace, stamped.stamp_path));
    } catch {
      bytes = undefined;
    }
    if (bytes !== undefined && isValidStamp(wu.wu_id, bytes)) continue;
    const expected = sha256(stampContent(wu.wu_id, stamped.title, stamped.completed_date));
    out.push({ wu_id: wu.wu_id, path: stamped.stamp_path, sha256: bytes === undefined ? null : sha256(bytes), expected_sha256: expected });
  }
  return out;
}

/** The latest flow's state file and the deep-dive file, when someone else edited them (state-file-edits.ts reads such an edit). */
async function editedFlowFiles(app: AppContext, workspace: string, flows: FlowState): Promise<DiskFacts['edited_flow_files']> {
  const out: DiskFacts['edited_flow_files'] = [];
  const record = latestFlow(flows);
  const files: { rel: string; rendering: string; ended: boolean }[] = [];
  if (record !== null) files.push({ rel: STATE_FILE[record.context.variant], rendering: renderFlowFile(record), ended: record.context.status !== 'active' });
  if (flows.deep_dive !== null) files.push({ rel: DEEP_DIVE_FILE, rendering: renderDeepDiveFile(flows.deep_dive), ended: false });
  for (const file of files) {
    const bytes = readIfFile(workspace, join(workspace, file.rel));
    if (bytes === undefined || !(await editedOutside(app, file.rel, bytes, file.rendering))) continue;
    // A new Agent Flow run over a flow that has ended is no edit of that flow: `flow adopt` takes it over.
    if (file.ended && isActiveAgentFlowRun(bytes.toString('utf8')) !== null) continue;
    out.push({ path: file.rel, sha256: sha256(bytes), rendering_sha256: sha256(file.rendering) });
  }
  return out;
}
