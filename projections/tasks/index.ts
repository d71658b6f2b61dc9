export * from './auth-rule.js';
export * from './last-stopping-point.js';
export * from './projections.js';
export * from './refusal.js';
export * from '../shell-quote.js';
export * from './state.js';
export * from './views.js';
export * from './wizard-shapes.js';
