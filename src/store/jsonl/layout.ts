import { join } from 'node:path';

/**
 * Where a workspace keeps its state. Every path Baton writes under `.baton/` comes from here, so
 * the layout of the architecture spec is written down once.
 */
export const BATON_DIR_NAME = '.baton';
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
  };
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
