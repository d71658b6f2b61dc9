import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Where a workspace keeps its state. Every path Baton writes under `.baton/` comes from here, so
 * the layout of the architecture spec is written down once.
 */
export const BATON_DIR_NAME = '.baton';
/** Where done stamps are, relative to the workspace (stamps are shown and compared by this path). */
export const STAMPS_RELATIVE_DIR = `${BATON_DIR_NAME}/stamps`;
export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;

export interface WorkspaceLayout {
  workspace: string;
  root: string;
  log: string;
  cache: string;
  quarantine: string;
  artifacts: string;
  stamps: string;
  config: string;
  /** Hook calls queued while the store was busy (coordination/pending-queue.ts). */
  pendingHooks: string;
}

export function workspaceLayout(workspace: string): WorkspaceLayout {
  const root = join(workspace, BATON_DIR_NAME);
  return {
    workspace,
    root,
    log: join(root, 'log'),
    cache: join(root, 'cache'),
    quarantine: join(root, 'quarantine'),
    artifacts: join(root, 'artifacts'),
    stamps: join(root, 'stamps'),
    config: join(root, 'config.yaml'),
    pendingHooks: join(root, 'hooks', 'pending'),
  };
}

/** An initiative's orchestration artifacts (plan, launch, status, handoffs), by launch attempt below it. */
export function orchestrationDir(workspace: string, initiative: string): string {
  return join(workspace, BATON_DIR_NAME, 'artifacts', 'orchestration', initiative);
}

/**
 * Whether the workspace has a store to read: its `.baton/` folder, or an external store named by
 * BATON_STORE_URL (PostgreSQL needs no folder). The one answer to "is there a store"; a read where
 * there is none folds an empty log and creates nothing.
 */
export function storeExists(workspace: string, env: NodeJS.ProcessEnv = {}): boolean {
  return Boolean(env['BATON_STORE_URL']) || existsSync(join(workspace, BATON_DIR_NAME));
}

/** Segment files are named after the seq of their first event, zero-padded so names sort. */
const SEGMENT_NAME = /^(\d{12})\.jsonl$/;

export function segmentName(firstSeq: number): string {
  return `${String(firstSeq).padStart(12, '0')}.jsonl`;
}

export function segmentFirstSeq(name: string): number | undefined {
  const match = SEGMENT_NAME.exec(name);
  return match ? Number(match[1]) : undefined;
}
