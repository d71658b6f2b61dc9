/**
 * Baton's library API: the event catalog and envelope, the store contract and its adapters, the
 * projection runner. The conformance suites are `baton-state/testing` (`src/conformance/`): they
 * import vitest and fast-check, optional peer dependencies, so they are not re-exported here.
 */
export * from '../events/index.js';
export * from './errors.js';
export type * from './store/contract.js';
export { MemoryEventStore, type MemoryStoreOptions } from './store/memory-store.js';
export { JsonlEventStore, type JsonlStoreOptions } from './store/jsonl/jsonl-store.js';
export { workspaceLayout, type WorkspaceLayout } from './store/jsonl/layout.js';
export { openStore, type OpenStoreOptions } from './store/open-store.js';
export { storeConfigFrom, StoreConfigSchema, StoreKind, type StoreConfig } from './store/store-config.js';
export { hashEvent, serializeEvent } from './store/hash.js';
export { resolveWorkspace } from './workspace.js';
export * from '../projections/index.js';
export { runProjection, runProjections, type RunProjectionOptions, type ProjectionRun } from './store/projection-runner.js';
export { loadSnapshot, writeSnapshot, type Snapshot } from './store/snapshots.js';
// Coordination (coordination.md): the A2A.V1 contract, the coordination fold and its operations.
export * from '../events/coordination/index.js';
export * from '../projections/coordination/index.js';
export { type CoordinationEnv, loadState } from './coordination/env.js';
export { CoordinationErrorCode } from './coordination/errors.js';
export {
  coordinationSettingsFrom,
  DEFAULT_COORDINATION_SETTINGS,
  DEFAULT_DISPLAY_NAME_POOL,
  A2AProfile,
  type CoordinationSettings,
} from './coordination/settings.js';
export { startSession, heartbeatSession, endSession, chooseDisplayName, type StartSessionInput } from './coordination/sessions.js';
export { sendSignal, SendSignalInput, type SendResult } from './coordination/send.js';
export { readInbox, threadConvergence } from './coordination/inbox.js';
export { InboxInput } from './coordination/inbox-input.js';
export { drainHook, watchSignals, renderPrompt, type DeliveredSignal, type WatchDelivery } from './coordination/delivery.js';
export { signalGate, recordOverride, type SignalGateOutcome } from './coordination/prep.js';
export { setupClaudeCode, mergeClaudeSettings, CLAUDE_HOOK_EVENTS } from './integrations/claude-code/setup.js';
export { setupCodex, setupCursor } from './integrations/mcp-clients.js';
export { batonSessionIdFor } from './integrations/claude-code/session-map.js';
// Work units (work-units.md): the orchestration documents and their validating parsers, the fold, the views.
export {
  parseOrchestrationPlanDocument,
  parseOrchestrationLaunchDocument,
  parseOrchestrationStatusDocument,
  PlanDocument,
  LaunchDocument,
  StatusDocument,
} from '../projections/work-units/documents.js';
export {
  computeInitiative,
  statusDocument,
  planDocument,
  explainWu,
  workUnitsStateProjection,
  WORK_UNIT_PROJECTIONS,
} from '../projections/work-units/index.js';
export { type WorkUnitsEnv, loadWorkUnits } from './work-units/env.js';
export { WorkUnitErrorCode } from './work-units/errors.js';
