import type { z } from 'zod';
import { ANCHOR_REF, formatAnchorMessage, isBadSignature, parseAnchorMessage, type AnchorHead, type AnchorStore } from '../../anchors/anchor-message.js';
import {
  anchorRepositoryOf,
  anchorTip,
  checkSignatures,
  moveAnchorRef,
  readAnchorChain,
  writeAnchorCommit,
  type AnchorCommit,
  type AnchorRepository,
} from '../../anchors/anchor-git.js';
import { BatonError, ConflictError } from '../../errors.js';
import type { EventStore, VerifyReport } from '../../store/contract.js';
import type { AppContext } from '../context.js';
import { checked } from '../envelopes/checked.js';
import { LogAnchorEnvelope, type LogAnchorsReport } from '../envelopes/foundation.js';

/**
 * `baton log anchor` and the anchors' half of `baton log verify`: the log's head recorded outside
 * the log, as a commit on the repository's `refs/baton/anchors` (src/anchors/), where whoever
 * rewrites the log must also rewrite git's history (and every clone the ref was pushed to, and the
 * signatures). `log verify` then holds the log to every anchor of its workspace: the event at the
 * anchored seq still has the anchored hash, and the log reaches the highest anchored seq.
 */
export type LogAnchorEnvelope = z.output<typeof LogAnchorEnvelope>;
export type LogAnchorsCheck = z.output<typeof LogAnchorsReport>;

export interface AnchorLogInput {
  /** Sign the anchor commit with git's own signing (`commit-tree -S`: gpg.format, user.signingkey). */
  sign?: boolean | undefined;
}

/** An unusable environment for anchors: no git repository around the workspace (exit 5). */
export const NO_GIT_REPOSITORY = 'NO_GIT_REPOSITORY';

/** How many times an anchor is tried again when another process moved the ref first. */
const MAX_ATTEMPTS = 25;
/** How far back the latest anchor of this workspace is looked for (a repository's other workspaces in between). */
const DEDUPE_DEPTH = 64;

function storeOf(store: EventStore): AnchorStore {
  const id = (store as { workspaceId?: unknown }).workspaceId;
  return { kind: store.kind, ...(typeof id === 'string' ? { id } : {}) };
}

function repositoryOrRefuse(app: AppContext, workspace: string): AnchorRepository {
  const repository = anchorRepositoryOf(workspace, app.env);
  if (repository === null) {
    throw new BatonError(
      NO_GIT_REPOSITORY,
      `log anchor needs a git repository, and ${workspace} is not in one: anchors are commits on its ${ANCHOR_REF} (git init first)`,
      { dir: workspace },
    );
  }
  return repository;
}

/** The latest anchor of `workspace` among the newest commits of the chain. */
function latestAnchorOf(chain: readonly AnchorCommit[], workspace: string): { commit: AnchorCommit; head: AnchorHead } | undefined {
  for (const commit of chain) {
    const parsed = parseAnchorMessage(commit.message);
    if (parsed.ok && parsed.head.workspace === workspace) return { commit, head: parsed.head };
  }
  return undefined;
}

export async function anchorLog(app: AppContext, input: AnchorLogInput): Promise<LogAnchorEnvelope> {
  const workspace = await app.workspace();
  const repository = repositoryOrRefuse(app, workspace);
  const store = await app.store();
  const head = await store.head();
  const sign = input.sign === true;
  const base = {
    v: 1,
    type: 'log_anchor',
    generated_at: app.now,
    ref: ANCHOR_REF,
    repository: repository.top,
    workspace: repository.workspace,
    store: storeOf(store),
  } as const;
  if (head.seq === 0) {
    return checked(LogAnchorEnvelope, {
      ...base,
      anchored: false,
      outcome: 'empty_log',
      seq: 0,
      hash: head.hash,
      anchored_at: app.now,
      commit: null,
      parent: null,
      signed: false,
    });
  }
  const anchor: AnchorHead = { seq: head.seq, hash: head.hash, anchored_at: app.now, workspace: repository.workspace, store: base.store };
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const tip = anchorTip(repository.top);
    const latest = tip === null ? undefined : latestAnchorOf(readAnchorChain(repository.top, tip, DEDUPE_DEPTH), repository.workspace);
    if (latest !== undefined && latest.head.seq === head.seq && latest.head.hash === head.hash && (latest.commit.signed || !sign)) {
      return checked(LogAnchorEnvelope, {
        ...base,
        anchored: false,
        outcome: 'already_anchored',
        seq: head.seq,
        hash: head.hash,
        anchored_at: latest.head.anchored_at,
        commit: latest.commit.commit,
        parent: latest.commit.parents[0] ?? null,
        signed: latest.commit.signed,
      });
    }
    const commit = writeAnchorCommit(repository.top, formatAnchorMessage(anchor), tip, sign);
    if (moveAnchorRef(repository.top, commit, tip)) {
      return checked(LogAnchorEnvelope, {
        ...base,
        anchored: true,
        outcome: 'anchored',
        seq: head.seq,
        hash: head.hash,
        anchored_at: app.now,
        commit,
        parent: tip,
        signed: sign,
      });
    }
  }
  throw new ConflictError(`${ANCHOR_REF} kept moving under ${MAX_ATTEMPTS} attempts to anchor seq ${head.seq}; try again`, { ref: ANCHOR_REF });
}

type CheckedAnchor = LogAnchorsCheck['checked'][number];

/** The hash of the event at each seq, read one position at a time in ascending order (never a replay). */
async function hashesAt(store: EventStore, seqs: readonly number[], headSeq: number): Promise<Map<number, string>> {
  const hashes = new Map<number, string>();
  const wanted = [...new Set(seqs)].filter((seq) => seq <= headSeq).sort((a, b) => a - b);
  if (wanted.at(-1) === headSeq) {
    const head = await store.head();
    if (head.seq === headSeq) hashes.set(headSeq, head.hash);
  }
  for (const seq of wanted) {
    if (hashes.has(seq)) continue;
    for await (const event of store.read({ from: seq, to: seq })) hashes.set(event.seq, event.hash);
  }
  return hashes;
}

function noAnchors(repository: AnchorRepository | null): LogAnchorsCheck {
  return {
    ok: true,
    repository: repository?.top ?? null,
    ref: ANCHOR_REF,
    workspace: repository?.workspace ?? null,
    found: 0,
    other_workspaces: 0,
    checked: [],
    malformed: [],
  };
}

/**
 * `log verify`'s check of the anchors: every anchor of this workspace in the chain against the log
 * `report` describes (the store's verify ran first). Reads only the events at anchored seqs; a log
 * that failed its own verify is read no further (its anchors are `not_checked`).
 */
export async function checkLogAnchors(app: AppContext, store: EventStore, report: VerifyReport): Promise<LogAnchorsCheck> {
  const repository = anchorRepositoryOf(await app.workspace(), app.env);
  if (repository === null) return noAnchors(null);
  const tip = anchorTip(repository.top);
  if (tip === null) return noAnchors(repository);
  const mine: { commit: AnchorCommit; head: AnchorHead }[] = [];
  const malformed: LogAnchorsCheck['malformed'] = [];
  let others = 0;
  for (const commit of readAnchorChain(repository.top, tip)) {
    const parsed = parseAnchorMessage(commit.message);
    if (!parsed.ok) malformed.push({ commit: commit.commit, problem: parsed.problem });
    else if (parsed.head.workspace !== repository.workspace) others++;
    else mine.push({ commit, head: parsed.head });
  }
  const signatures = checkSignatures(
    repository.top,
    mine.filter((a) => a.commit.signed).map((a) => a.commit.commit),
  );
  const hashes = report.ok
    ? await hashesAt(
        store,
        mine.map((a) => a.head.seq),
        report.head_seq,
      )
    : new Map<number, string>();
  const checkedAnchors = mine.map(({ commit, head }): CheckedAnchor => {
    const found = hashes.get(head.seq);
    const status = !report.ok ? 'not_checked' : head.seq > report.head_seq ? 'truncated' : found === head.hash ? 'ok' : 'rewritten';
    return {
      commit: commit.commit,
      seq: head.seq,
      hash: head.hash,
      anchored_at: head.anchored_at,
      status,
      ...(status === 'rewritten' && found !== undefined ? { found_hash: found } : {}),
      signature: commit.signed ? (signatures.get(commit.commit) ?? { status: 'unverifiable' }) : null,
    };
  });
  const ok =
    malformed.length === 0 &&
    checkedAnchors.every((a) => (a.status === 'ok' || a.status === 'not_checked') && (a.signature === null || !isBadSignature(a.signature.status)));
  return {
    ok,
    repository: repository.top,
    ref: ANCHOR_REF,
    workspace: repository.workspace,
    found: mine.length,
    other_workspaces: others,
    checked: checkedAnchors,
    malformed,
  };
}
