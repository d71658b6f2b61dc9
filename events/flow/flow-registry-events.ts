import { z } from 'zod';
import { defineEvent } from '../catalog.js';
import { flowId } from './flow-events.js';
import { Variant } from './vocabulary.js';

/**
 * The workspace's flow registry (Baton): one stream every `flow init` appends to, in the same batch
 * as its `flow.started` and with the registry's expected version. Two inits that both saw no active
 * flow then conflict on this stream, so only one lands and the other re-reads, sees the flow the
 * winner started, and is refused with FLOW_ACTIVE (I5) — without it, each init appends to its own new
 * `flow/<id>` stream and both succeed. The type is outside `flow.*`, so the flow fold ignores it.
 */
export const FLOW_REGISTRY_STREAM = 'flow-registry/workspace';

export const FlowRegistryEventType = {
  registered: 'flow_registry.registered',
} as const;
export type FlowRegistryEventType = (typeof FlowRegistryEventType)[keyof typeof FlowRegistryEventType];

export const FlowRegisteredData = z.strictObject({
  flow_id: flowId,
  variant: z.enum([Variant.orchestrate, Variant.team]),
});
export type FlowRegisteredData = z.infer<typeof FlowRegisteredData>;

export const FLOW_REGISTRY_EVENT_DEFINITIONS = [
  defineEvent({
    type: FlowRegistryEventType.registered,
    schema: FlowRegisteredData,
    streams: ['flow-registry'],
    description: 'A flow was started in this workspace (the registry that serializes flow init).',
    internal: true,
  }),
] as const;
