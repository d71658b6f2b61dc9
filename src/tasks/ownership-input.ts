import { isAbsolute, relative, resolve, sep } from 'node:path';
import { OwnershipKind, type Ownership } from '../../events/tasks/ownership.js';
import { PR_STATES, type PrState } from '../../events/tasks/vocabulary.js';
import { invalidField } from '../errors.js';
import { invalidNaming } from './refusals.js';

/** `task own`'s input → one normalized ownership entry (tasks.md §7 O1–O3), by the domain's names. */
export interface OwnershipInput {
  branch?: string | undefined;
  worktree?: string | undefined;
  pr?: string | undefined;
  pr_state?: string | undefined;
  file?: string | undefined;
}

const KINDS = ['branch', 'worktree', 'pr', 'file'] as const;

export const PR_URL_MESSAGE = 'must be a pull-request URL of the form https://HOST/OWNER/REPO/pull/NUMBER';
const PR_PATH = /^\/([^/\s]+)\/([^/\s]+)\/pull\/([0-9]+)\/?$/;

function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}

export function parsePullRequest(raw: string, rawState: string | undefined): Ownership {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidField(PR_URL_MESSAGE, 'pr');
  }
  const match = PR_PATH.exec(url.pathname);
  const number = match ? Number(match[3]) : 0;
  if (
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    !match ||
    url.search !== '' ||
    url.hash !== '' ||
    !Number.isSafeInteger(number) ||
    number < 1
  ) {
    throw invalidField(PR_URL_MESSAGE, 'pr');
  }
  if (rawState !== undefined && !(PR_STATES as readonly string[]).includes(rawState)) throw invalidField(`must be one of ${PR_STATES.join(', ')}`, 'pr_state');
  return {
    kind: OwnershipKind.pull_request,
    number,
    repo: `${match[1]}/${match[2]}`,
    url: raw,
    ...(rawState !== undefined ? { state: rawState as PrState } : {}),
  };
}

export function parseOwnership(flags: OwnershipInput, workspace: string, cwd: string = process.cwd()): Ownership {
  const given = KINDS.filter((k) => flags[k] !== undefined);
  if (given.length !== 1) {
    // The words name the four kinds, then those given: `give exactly one of --branch, … (got --branch, --file)`.
    throw invalidNaming('branch', [...KINDS, ...given], (...names) => {
      const got = names.slice(KINDS.length);
      return `give exactly one of ${names.slice(0, KINDS.length).join(', ')} (got ${got.length === 0 ? 'none' : got.join(', ')})`;
    });
  }
  if (flags.pr_state !== undefined && flags.pr === undefined) throw invalidNaming('pr_state', ['pr'], (pr) => `only with ${pr}`);
  if (flags.branch !== undefined) {
    const name = flags.branch;
    if (name === '' || /\s/.test(name) || name.includes('..') || name.startsWith('-') || name.length > 250) {
      throw invalidField('must be non-empty, at most 250 characters, with no whitespace or "..", and not start with "-"', 'branch');
    }
    return { kind: OwnershipKind.branch, name };
  }
  if (flags.worktree !== undefined) {
    if (flags.worktree.trim() === '') throw invalidField('must not be empty', 'worktree');
    let path = toPosix(resolve(cwd, flags.worktree));
    while (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
    return { kind: OwnershipKind.worktree, path };
  }
  if (flags.file !== undefined) {
    if (flags.file.trim() === '') throw invalidField('must not be empty', 'file');
    const absolute = resolve(cwd, flags.file);
    const inside = relative(workspace, absolute);
    const path = inside !== '' && !inside.startsWith('..') && !isAbsolute(inside) ? toPosix(inside) : toPosix(absolute);
    return { kind: OwnershipKind.file, path };
  }
  return parsePullRequest(flags.pr!, flags.pr_state);
}
