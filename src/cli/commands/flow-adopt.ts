import { randomBytes } from 'node:crypto';
import { join, relative, resolve } from 'node:path';
import { decideFlowAdopt, type AdoptFlow } from '../../../deciders/flows.js';
import { FLOW_REGISTRY_STREAM } from '../../../events/flow/flow-registry-events.js';
import type { Variant } from '../../../events/flow/vocabulary.js';
import { FlowStatusEnvelope, flowStatusEnvelope, STATE_FILE } from '../../../projections/flow/index.js';
import { readIfFile } from '../../artifacts/atomic-write.js';
import { backupFile } from '../../artifacts/backup-file.js';
import { ErrorCode } from '../../errors.js';
import { readAgentFlowFile } from '../../flow/agent-flow-file.js';
import { planAdoption } from '../../flow/adopt-flow.js';
import { adoptDeepDiveEvents } from '../../flow/adopt-deep-dive.js';
import { refuse } from '../../flow/flow-errors.js';
import { emitFlowWarnings } from '../../flow/flow-warnings.js';
import { decideAndAppend, StateFileKind, syncStateFiles } from '../../flow/flow-workspace.js';
import { reconcileDeepDiveFile } from '../../flow/state-file-edits.js';
import { sha256 } from '../../flow/state-file-memory.js';
import type { CommandContext } from '../context.js';
import { humanFlowStatus } from './flow-render.js';

export interface FlowAdoptFlags {
  file?: string;
}

function invalid(message: string): Error {
  return refuse(ErrorCode.INVALID_INPUT, message);
}

/** Which Agent Flow file to adopt: `--file`, else the one present (the active one when both are). */
function chooseFile(workspace: string, flags: FlowAdoptFlags): { rel: string; variant: Variant; bytes: Buffer } {
  const candidates = (Object.entries(STATE_FILE) as [Variant, string][]).map(([variant, rel]) => ({
    variant,
    rel,
    bytes: readIfFile(workspace, join(workspace, rel)),
  }));
  if (flags.file !== undefined) {
    const rel = relative(workspace, resolve(workspace, flags.file)).split('\\').join('/');
    const match = candidates.find((c) => c.rel === rel);
    if (match === undefined) throw invalid(`--file must be ${STATE_FILE.orchestrate} or ${STATE_FILE.team} (got '${flags.file}')`);
    if (match.bytes === undefined) throw invalid(`--file: ${match.rel} does not exist`);
    return { rel: match.rel, variant: match.variant, bytes: match.bytes };
  }
  const present = candidates.filter((c): c is typeof c & { bytes: Buffer } => c.bytes !== undefined);
  if (present.length === 0) throw invalid(`No Agent Flow state file to adopt: neither ${STATE_FILE.orchestrate} nor ${STATE_FILE.team} exists`);
  if (present.length === 1) return present[0]!;
  const active = present.filter((c) => {
    const read = readAgentFlowFile(c.bytes.toString('utf8'));
    return 'file' in read && read.file.active;
  });
  if (active.length === 1) return active[0]!;
  throw invalid(`Both ${STATE_FILE.orchestrate} and ${STATE_FILE.team} exist; name the run to adopt with --file`);
}

/** `baton flow adopt [--file F]`: take over an Agent Flow run (and its deep dive) as events. */
export async function flowAdopt(ctx: CommandContext, flags: FlowAdoptFlags): Promise<void> {
  const workspace = await ctx.workspace();
  const chosen = chooseFile(workspace, flags);
  const read = readAgentFlowFile(chosen.bytes.toString('utf8'));
  if (!('file' in read)) throw invalid(`${chosen.rel}: key '${read.key}': ${read.rule}`);
  const flowId = `flow_${randomBytes(12).toString('hex')}`;
  const adoption = planAdoption(read.file, chosen.variant, { flow_id: flowId, file: chosen.rel, sha256: sha256(chosen.bytes), at: ctx.now });
  if (!('plan' in adoption)) throw invalid(`${chosen.rel}: key '${adoption.key}': ${adoption.rule}`);
  const plan = adoption.plan;
  const deepDive = adoptDeepDiveEvents(workspace);
  if (deepDive !== null && 'key' in deepDive) throw invalid(`${deepDive.rel}: key '${deepDive.key}': ${deepDive.rule}`);
  // A deep dive Baton already records is never overwritten in silence by the sync below.
  const warnings: string[] = await reconcileDeepDiveFile(ctx);
  let backedUp = false;

  const command: AdoptFlow = { flowId, variant: chosen.variant, plan, deepDive: deepDive === null ? null : deepDive.events };
  await decideAndAppend(
    ctx,
    (state, versions) => {
      const decision = decideFlowAdopt(command, { state, versions });
      if (!backedUp) {
        // The adopted bytes are kept as they were; the file becomes Baton's rendering.
        backupFile(workspace, join(workspace, chosen.rel), chosen.bytes, ctx.now);
        if (decision.outcome.deepDiveAdopted && deepDive !== null && 'bytes' in deepDive)
          backupFile(workspace, join(workspace, deepDive.rel), deepDive.bytes, ctx.now);
        backedUp = true;
      }
      return decision;
    },
    [FLOW_REGISTRY_STREAM],
  );
  const state = await syncStateFiles(ctx, [StateFileKind.flow, StateFileKind.deepDive]);
  emitFlowWarnings(ctx, warnings);
  ctx.output.emit(FlowStatusEnvelope, flowStatusEnvelope(state, ctx.now, warnings), humanFlowStatus);
}
