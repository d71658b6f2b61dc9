/**
 * The text of an anchor: the log's head written outside the log, as the message of a git commit on
 * `refs/baton/anchors` (anchor-git.ts writes and reads them). Pure: formatting and parsing only.
 *
 * The message is machine-readable and readable in `git log refs/baton/anchors`:
 *
 *   baton anchor seq=42 hash=0ce5…6f0c
 *
 *   The head of the Baton event log, recorded by `baton log anchor`.
 *
 *   Baton-Seq: 42
 *   Baton-Hash: 0ce5…6f0c
 *   Baton-Anchored-At: 2026-11-22T09:00:00.000Z
 *   Baton-Workspace: .
 *   Baton-Store: jsonl
 *
 * `Baton-Workspace` is the workspace folder relative to the repository's top level, so one
 * repository may hold the anchors of several workspaces; `Baton-Store-Id` is a PostgreSQL store's
 * workspace id. A value outside printable ASCII (or with surrounding spaces) is written as a JSON
 * string. The subject and the trailers must agree.
 */
export const ANCHOR_REF = 'refs/baton/anchors';

export interface AnchorStore {
  /** The adapter: `jsonl`, `postgres`, … */
  kind: string;
  /** The store's own id of the workspace (PostgreSQL's workspace_id), when it has one. */
  id?: string;
}

export interface AnchorHead {
  seq: number;
  hash: string;
  /** When the head was anchored (ISO UTC). */
  anchored_at: string;
  /** The workspace folder relative to the repository's top level (`.` for the top level). */
  workspace: string;
  store: AnchorStore;
}

export type ParsedAnchor = { ok: true; head: AnchorHead } | { ok: false; problem: string };

const SUBJECT = /^baton anchor seq=(\d{1,15}) hash=([0-9a-f]{64})$/;
const HASH = /^[0-9a-f]{64}$/;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;
const TRAILER = /^(Baton-[A-Za-z-]+): (.*)$/;
const PLAIN_VALUE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

const KEYS = {
  seq: 'Baton-Seq',
  hash: 'Baton-Hash',
  at: 'Baton-Anchored-At',
  workspace: 'Baton-Workspace',
  store: 'Baton-Store',
  storeId: 'Baton-Store-Id',
} as const;

/** A trailer value: as it is when plain printable ASCII (not starting with a quote), else a JSON string. */
export function encodeTrailerValue(value: string): string {
  return PLAIN_VALUE.test(value) && !value.startsWith('"') ? value : JSON.stringify(value);
}

function decodeTrailerValue(text: string): string | undefined {
  if (!text.startsWith('"')) return text;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

export function formatAnchorMessage(head: AnchorHead): string {
  return [
    `baton anchor seq=${head.seq} hash=${head.hash}`,
    '',
    'The head of the Baton event log, recorded by `baton log anchor`.',
    '',
    `${KEYS.seq}: ${head.seq}`,
    `${KEYS.hash}: ${head.hash}`,
    `${KEYS.at}: ${head.anchored_at}`,
    `${KEYS.workspace}: ${encodeTrailerValue(head.workspace)}`,
    `${KEYS.store}: ${encodeTrailerValue(head.store.kind)}`,
    ...(head.store.id !== undefined ? [`${KEYS.storeId}: ${encodeTrailerValue(head.store.id)}`] : []),
    '',
  ].join('\n');
}

/** The trailers of the message's last paragraph, by key (a repeated key is a problem). */
function trailersOf(lines: readonly string[]): Map<string, string> | string {
  let start = lines.length;
  while (start > 0 && lines[start - 1]!.trim() !== '') start--;
  const trailers = new Map<string, string>();
  for (const line of lines.slice(start)) {
    const match = TRAILER.exec(line);
    if (!match) continue;
    if (trailers.has(match[1]!)) return `${match[1]} appears twice`;
    const value = decodeTrailerValue(match[2]!);
    if (value === undefined) return `${match[1]} is not a valid JSON string`;
    trailers.set(match[1]!, value);
  }
  return trailers;
}

/** The head a commit message anchors, or what is wrong with it. */
export function parseAnchorMessage(message: string): ParsedAnchor {
  const lines = message.replace(/\n+$/, '').split('\n');
  const subject = SUBJECT.exec(lines[0] ?? '');
  if (!subject) return { ok: false, problem: 'the subject is not "baton anchor seq=N hash=H"' };
  const trailers = trailersOf(lines.slice(1));
  if (typeof trailers === 'string') return { ok: false, problem: trailers };
  const missing = [KEYS.seq, KEYS.hash, KEYS.at, KEYS.workspace, KEYS.store].filter((key) => !trailers.has(key));
  if (missing.length > 0) return { ok: false, problem: `missing ${missing.join(', ')}` };
  const seq = Number(subject[1]);
  const hash = subject[2]!;
  if (trailers.get(KEYS.seq) !== String(seq) || seq < 1) return { ok: false, problem: `${KEYS.seq} does not match the subject's seq=${seq}` };
  if (trailers.get(KEYS.hash) !== hash || !HASH.test(hash)) return { ok: false, problem: `${KEYS.hash} does not match the subject's hash` };
  const at = trailers.get(KEYS.at)!;
  if (!ISO_UTC.test(at) || Number.isNaN(Date.parse(at))) return { ok: false, problem: `${KEYS.at} is not an ISO-8601 UTC time` };
  const workspace = trailers.get(KEYS.workspace)!;
  const kind = trailers.get(KEYS.store)!;
  if (workspace === '' || kind === '') return { ok: false, problem: `${workspace === '' ? KEYS.workspace : KEYS.store} is empty` };
  const id = trailers.get(KEYS.storeId);
  return { ok: true, head: { seq, hash, anchored_at: at, workspace, store: { kind, ...(id !== undefined ? { id } : {}) } } };
}

/** A commit as `git cat-file` gives it: its header fields and its message. */
export interface RawCommit {
  tree: string;
  parents: string[];
  /** It carries a signature (`gpgsig`, `gpgsig-sha256`): whatever the format, gpg, ssh or x509. */
  signed: boolean;
  message: string;
}

/** The headers and message of a raw commit object (continuation lines of a header start with a space). */
export function parseRawCommit(text: string): RawCommit {
  const end = text.indexOf('\n\n');
  const header = end < 0 ? text : text.slice(0, end);
  const message = end < 0 ? '' : text.slice(end + 2);
  let tree = '';
  const parents: string[] = [];
  let signed = false;
  for (const line of header.split('\n')) {
    if (line.startsWith(' ')) continue;
    const space = line.indexOf(' ');
    const key = space < 0 ? line : line.slice(0, space);
    const value = space < 0 ? '' : line.slice(space + 1);
    if (key === 'tree') tree = value;
    else if (key === 'parent') parents.push(value);
    else if (key === 'gpgsig' || key === 'gpgsig-sha256') signed = true;
  }
  return { tree, parents, signed, message };
}

/** `git cat-file --batch` output: each object's id, type and content (sizes are in bytes). */
export function splitCatFileBatch(output: Buffer): { id: string; type: string; content: Buffer }[] {
  const objects: { id: string; type: string; content: Buffer }[] = [];
  let at = 0;
  while (at < output.length) {
    const newline = output.indexOf(0x0a, at);
    if (newline < 0) break;
    const [id, type, size] = output.toString('utf8', at, newline).split(' ');
    if (id === undefined || type === undefined || size === undefined || !/^\d+$/.test(size)) {
      // `<id> missing` and the like: no content follows.
      at = newline + 1;
      continue;
    }
    const start = newline + 1;
    objects.push({ id, type, content: output.subarray(start, start + Number(size)) });
    at = start + Number(size) + 1;
  }
  return objects;
}

export type SignatureStatus = 'good' | 'untrusted' | 'bad' | 'expired' | 'revoked' | 'unverifiable';

/**
 * git's verdict on a signed commit (`%G?` of git log, what `git verify-commit` decides): G good,
 * U good but of a key not trusted, B bad, X/Y expired signature or key, R revoked key, E (or N on a
 * commit that does carry a signature: no allowed-signers file for ssh) cannot be checked here.
 */
export function signatureStatusOf(code: string): SignatureStatus {
  switch (code) {
    case 'G':
      return 'good';
    case 'U':
      return 'untrusted';
    case 'B':
      return 'bad';
    case 'X':
    case 'Y':
      return 'expired';
    case 'R':
      return 'revoked';
    default:
      return 'unverifiable';
  }
}

/** A signature status that is a finding of `log verify`: someone signed what the key did not, or a key withdrawn. */
export function isBadSignature(status: SignatureStatus): boolean {
  return status === 'bad' || status === 'revoked';
}
