/**
 * What CommandContext loads to reach the workspace and its store, as ONE lazy module: every
 * dynamic import is a bundle entry point of its own (a chunk, or a stub re-exporting one), so
 * one import instead of five saves a short command that many files to load.
 */
export { builtInCatalog } from '../../events/builtin-catalog.js';
export { workspaceLayout } from '../store/jsonl/layout.js';
export { assertNoLinkBelow } from '../artifacts/owned-paths.js';
export { openStore } from '../store/open-store.js';
export { readStoreConfig } from '../config/store.js';
export { readConfigText, resolveWorkspace } from '../workspace.js';
export { checkWorkspaceDir } from './workspace-dir.js';
