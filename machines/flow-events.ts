import { z } from 'zod';
import { AgentName, FlowFieldsPatch } from '../events/flow/flow-events.js';
import { GATE_RESULTS, PHASES, TEAMMATES } from '../events/flow/vocabulary.js';

/** The flow machine's events (phase-gates.md §2). Every one carries the command's clock `at`. */
const at = z.iso.datetime();
const agent = AgentName;

export const FlowMachineEvent = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('RECORD_GATE'), status: z.enum(GATE_RESULTS), agent, message: z.string().optional(), at }),
  z.strictObject({ type: z.literal('ADVANCE'), to: z.enum(PHASES), at }),
  z.strictObject({ type: z.literal('COMPLETE'), agent, message: z.string().optional(), at }),
  z.strictObject({ type: z.literal('RECORD_TEAMMATE'), teammate: z.enum(TEAMMATES), status: z.enum(GATE_RESULTS), agent, result: z.string().optional(), at }),
  z.strictObject({ type: z.literal('MERGE'), at }),
  z.strictObject({ type: z.literal('ABORT'), reason: z.string(), message: z.string().optional(), at }),
  z.strictObject({ type: z.literal('FALLBACK'), message: z.string().optional(), at }),
  z.strictObject({ type: z.literal('SET_FIELDS'), fields: FlowFieldsPatch, at }),
]);
export type FlowMachineEvent = z.infer<typeof FlowMachineEvent>;
export type FlowMachineEventOf<T extends FlowMachineEvent['type']> = Extract<FlowMachineEvent, { type: T }>;
