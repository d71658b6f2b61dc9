export * from './commit-graph.js';
export * from './findings.js';
export * from './log-fold.js';
export * from './types.js';
export * from './why.js';
