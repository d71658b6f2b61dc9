export * from './convergence.js';
export * from './liveness.js';
export * from './prep-gate.js';
export * from './roster.js';
export * from './sessions.js';
export * from './signals.js';
export * from './state.js';
