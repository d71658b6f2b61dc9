import { DEEP_DIVE_EVENT_DEFINITIONS } from './deep-dive-events.js';
import { FLOW_EVENT_DEFINITIONS } from './flow-events.js';
import { FLOW_REGISTRY_EVENT_DEFINITIONS } from './flow-registry-events.js';

export * from './deep-dive-events.js';
export * from './flow-events.js';
export * from './flow-registry-events.js';
export * from './vocabulary.js';

/** Every event type of phase-gate flows and deep dives. */
export const FLOW_EVENTS = [...FLOW_EVENT_DEFINITIONS, ...FLOW_REGISTRY_EVENT_DEFINITIONS, ...DEEP_DIVE_EVENT_DEFINITIONS] as const;
