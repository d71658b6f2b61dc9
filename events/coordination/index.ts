import { RECEIPT_EVENTS } from './receipt.js';
import { SESSION_EVENTS } from './session.js';
import { SIGNAL_EVENTS } from './signal.js';
import { WU_PREP_EVENTS } from './work-unit-facts.js';

export * from './identities.js';
export * from './receipt.js';
export * from './session.js';
export * from './signal.js';
export * from './work-unit-facts.js';

export const COORDINATION_EVENTS = [...SESSION_EVENTS, ...SIGNAL_EVENTS, ...RECEIPT_EVENTS, ...WU_PREP_EVENTS] as const;
