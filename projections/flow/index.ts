import type { Projection } from '../projection.js';
import type { FlowStatusEnvelope } from './flow-envelopes.js';
import { applyFlowEvent, FlowState, initFlowState, latestFlow } from './flow-state.js';
import { flowStatusEnvelope } from './flow-status-view.js';
import { renderDeepDiveFile } from './render-deep-dive-file.js';
import { renderFlowFile } from './render-flow-file.js';

export * from './deep-dive-state.js';
export * from './extra-keys.js';
export * from './flow-entries.js';
export * from './flow-envelopes.js';
export * from './flow-state.js';
export * from './flow-status-view.js';
export * from './render-deep-dive-file.js';
export * from './render-flow-file.js';

/**
 * The flow views of `replay --view`: `flow` (the flow_status envelope), `flow_file` and
 * `deep_dive_file` (the rendered Markdown, a string). One fold, three views; each keeps its own
 * snapshot. Snapshots are parsed back through the state's schema, so a malformed one is rebuilt.
 */
/** 3: contexts keep the state file's unknown keys, the log its messages; older snapshots are rebuilt. */
const VERSION = 3;
const deserialize = (json: unknown): FlowState => FlowState.parse(json);
/** Identity of the flow fold (Projection.fold): its three views are folded once per run. */
const FLOW_FOLD = Object.freeze({ fold: 'flow' });

export const flowProjection: Projection<FlowState, FlowStatusEnvelope> = {
  name: 'flow',
  version: VERSION,
  fold: FLOW_FOLD,
  init: initFlowState,
  apply: applyFlowEvent,
  view: (state, now) => flowStatusEnvelope(state, now),
  deserialize,
};

export const flowFileProjection: Projection<FlowState, string> = {
  name: 'flow_file',
  version: VERSION,
  fold: FLOW_FOLD,
  init: initFlowState,
  apply: applyFlowEvent,
  view: (state) => {
    const record = latestFlow(state);
    return record === null ? '' : renderFlowFile(record);
  },
  deserialize,
};

export const deepDiveFileProjection: Projection<FlowState, string> = {
  name: 'deep_dive_file',
  version: VERSION,
  fold: FLOW_FOLD,
  init: initFlowState,
  apply: applyFlowEvent,
  view: (state) => (state.deep_dive === null ? '' : renderDeepDiveFile(state.deep_dive)),
  deserialize,
};

export const FLOW_PROJECTIONS = [flowProjection, flowFileProjection, deepDiveFileProjection] as const;
