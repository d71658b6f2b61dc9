import { existsSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { codePath, laneName } from '../../../events/work-units/vocabulary.js';
import { describeZodIssues } from '../../../events/validation.js';
import type { LumenflowLane } from '../../../deciders/lumenflow-import.js';
import { BatonError, ErrorCode } from '../../errors.js';
import { INPUT_LIMITS, InputRefused, readInputFile } from '../../input/bounded-input.js';

/**
 * A LumenFlow repository as `workspace.yaml` describes it: where its WU YAML, initiative
 * YAML, stamps and state live (LumenFlow's defaults when a key is absent), its lane definitions and
 * its worker capacity.
 */
export const LUMENFLOW_DEFAULT_DIRECTORIES = {
  wuDir: 'docs/operations/tasks/wu',
  initiativesDir: 'docs/operations/tasks/initiatives',
  stampsDir: '.lumenflow/stamps',
  stateDir: '.lumenflow/state',
} as const;
type DirectoryKey = keyof typeof LUMENFLOW_DEFAULT_DIRECTORIES;

export type LaneDefinition = LumenflowLane;

export interface LumenflowRepository {
  /** Absolute path of the repository. */
  root: string;
  /** Absolute folders, by LumenFlow's key names. */
  dirs: Record<DirectoryKey, string>;
  /** Where workspace.yaml is, or null when the repository has none (defaults everywhere). */
  workspace_yaml: string | null;
  lanes: LaneDefinition[];
  max_active_workers: number | null;
  /** Problems with single lane definitions (path and field), skippable with --skip-invalid. */
  failures: string[];
}

const LOCK_POLICIES = ['all', 'active', 'none'] as const;

function notLumenflow(repo: string, why: string): BatonError {
  return new BatonError(ErrorCode.INVALID_INPUT, `REPO: ${repo} is not a LumenFlow repository (${why})`, { field: 'REPO', path: repo });
}

function bad(path: string, field: string, rule: string): BatonError {
  return new BatonError(ErrorCode.INVALID_INPUT, `${path}: ${field}: ${rule}`, { field, path });
}

function mappingAt(doc: Record<string, unknown>, keys: readonly string[], path: string): Record<string, unknown> | undefined {
  let here: unknown = doc;
  for (let i = 0; i < keys.length; i++) {
    if (here === undefined || here === null) return undefined;
    if (typeof here !== 'object' || Array.isArray(here)) throw bad(path, keys.slice(0, i).join('.') || '(root)', 'must be a mapping');
    here = (here as Record<string, unknown>)[keys[i]!];
  }
  if (here === undefined || here === null) return undefined;
  if (typeof here !== 'object' || Array.isArray(here)) throw bad(path, keys.join('.'), 'must be a mapping');
  return here as Record<string, unknown>;
}

/** A folder named in workspace.yaml: relative to the repository, never outside it. */
function directoryOf(root: string, path: string, key: DirectoryKey, value: unknown): string {
  if (value === undefined || value === null) return resolve(root, LUMENFLOW_DEFAULT_DIRECTORIES[key]);
  if (typeof value !== 'string' || value.trim() === '') throw bad(path, `software_delivery.directories.${key}`, 'must be a non-empty folder path');
  const abs = resolve(root, value.trim());
  const rel = relative(root, abs);
  if (rel.startsWith('..') || isAbsolute(rel)) throw bad(path, `software_delivery.directories.${key}`, 'must be a folder inside the repository');
  return abs;
}

function laneDefinitions(raw: unknown, path: string, failures: string[]): LaneDefinition[] {
  if (raw === undefined || raw === null) return [];
  const field = 'software_delivery.lanes.definitions';
  if (!Array.isArray(raw)) throw bad(path, field, 'must be a list');
  const lanes: LaneDefinition[] = [];
  raw.forEach((item: unknown, i) => {
    const at = `${path}: ${field}[${i}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return failures.push(`${at}: must be a mapping`);
    const d = item as Record<string, unknown>;
    const problems: string[] = [];
    const name = laneName.safeParse(typeof d['name'] === 'string' ? d['name'].trim() : d['name']);
    if (!name.success) problems.push(`${at}.name: ${describeZodIssues(name.error)[0]?.rule ?? 'must be a lane name'}`);
    const lane: LaneDefinition = { name: name.success ? name.data : '' };
    const wip = d['wip_limit'];
    if (wip !== undefined && wip !== null) {
      if (typeof wip === 'number' && Number.isInteger(wip) && wip >= 1 && wip <= 1000) lane.wip_limit = wip;
      else problems.push(`${at}.wip_limit: must be an integer from 1 to 1000`);
    }
    const policy = d['lock_policy'];
    if (policy !== undefined && policy !== null) {
      if ((LOCK_POLICIES as readonly unknown[]).includes(policy)) lane.lock_policy = policy as LaneDefinition['lock_policy'];
      else problems.push(`${at}.lock_policy: must be one of ${LOCK_POLICIES.join(', ')}`);
    }
    const paths = d['code_paths'];
    if (paths !== undefined && paths !== null) {
      if (!Array.isArray(paths)) problems.push(`${at}.code_paths: must be a list`);
      else {
        const ok: string[] = [];
        paths.forEach((p: unknown, j) => {
          const r = codePath.safeParse(p);
          if (r.success) ok.push(r.data);
          else problems.push(`${at}.code_paths[${j}]: ${describeZodIssues(r.error)[0]?.rule ?? 'must be a code path'}`);
        });
        lane.code_paths = ok;
      }
    }
    if (problems.length > 0) return failures.push(...problems);
    lanes.push(lane);
  });
  const seen = new Set<string>();
  for (const lane of lanes) {
    if (seen.has(lane.name)) failures.push(`${path}: ${field}: lane "${lane.name}" is defined twice`);
    seen.add(lane.name);
  }
  return lanes.filter((l, i) => lanes.findIndex((m) => m.name === l.name) === i);
}

/**
 * Read the repository: exit 2 naming the path and field when it is not a LumenFlow repository (no
 * workspace.yaml, no `.lumenflow/`, no WU folder) or when workspace.yaml cannot be read or parsed.
 */
export function readLumenflowRepository(repoInput: string, cwd: string): LumenflowRepository {
  const root = resolve(cwd, repoInput);
  let stat;
  try {
    stat = statSync(root);
  } catch {
    throw new BatonError(ErrorCode.INVALID_INPUT, `REPO: ${repoInput}: no such folder`, { field: 'REPO', path: root });
  }
  if (!stat.isDirectory()) throw new BatonError(ErrorCode.INVALID_INPUT, `REPO: ${repoInput}: not a folder`, { field: 'REPO', path: root });
  const yamlPath = join(root, 'workspace.yaml');
  const display = displayOf(root, yamlPath);
  const failures: string[] = [];
  if (!existsSync(yamlPath)) {
    const dirs = {
      wuDir: resolve(root, LUMENFLOW_DEFAULT_DIRECTORIES.wuDir),
      initiativesDir: resolve(root, LUMENFLOW_DEFAULT_DIRECTORIES.initiativesDir),
      stampsDir: resolve(root, LUMENFLOW_DEFAULT_DIRECTORIES.stampsDir),
      stateDir: resolve(root, LUMENFLOW_DEFAULT_DIRECTORIES.stateDir),
    };
    if (!existsSync(join(root, '.lumenflow')) && !existsSync(dirs.wuDir))
      throw notLumenflow(root, `no workspace.yaml, no .lumenflow/ and no ${LUMENFLOW_DEFAULT_DIRECTORIES.wuDir}/`);
    return { root, dirs, workspace_yaml: null, lanes: [], max_active_workers: null, failures };
  }
  let text: string;
  try {
    // At most 1 MiB, and a file: a named pipe or a device there is never read (bounded-input.ts).
    text = readInputFile(yamlPath, 'REPO', INPUT_LIMITS.yaml, { namedPipe: 'refuse' }).toString('utf8');
  } catch (error) {
    throw bad(display, 'file', `cannot be read (${error instanceof InputRefused ? error.reason : (error as Error).message})`);
  }
  let doc: unknown;
  try {
    doc = parseYaml(text, { schema: 'core', customTags: [], uniqueKeys: true });
  } catch (error) {
    throw bad(display, 'yaml', (error as Error).message.split('\n')[0] ?? 'cannot be parsed');
  }
  if (doc === null || doc === undefined) doc = {};
  if (typeof doc !== 'object' || Array.isArray(doc)) throw bad(display, '(root)', 'must be a mapping');
  const top = doc as Record<string, unknown>;
  const directories = mappingAt(top, ['software_delivery', 'directories'], display) ?? {};
  const dirs = {
    wuDir: directoryOf(root, display, 'wuDir', directories['wuDir']),
    initiativesDir: directoryOf(root, display, 'initiativesDir', directories['initiativesDir']),
    stampsDir: directoryOf(root, display, 'stampsDir', directories['stampsDir']),
    stateDir: directoryOf(root, display, 'stateDir', directories['stateDir']),
  };
  const lanes = laneDefinitions(mappingAt(top, ['software_delivery', 'lanes'], display)?.['definitions'], display, failures);
  const max = mappingAt(top, ['software_delivery', 'orchestration'], display)?.['max_active_workers'];
  if (max !== undefined && max !== null && !(typeof max === 'number' && Number.isInteger(max) && max >= 0 && max <= 1000)) {
    throw bad(display, 'software_delivery.orchestration.max_active_workers', 'must be an integer from 0 to 1000');
  }
  return { root, dirs, workspace_yaml: yamlPath, lanes, max_active_workers: typeof max === 'number' ? max : null, failures };
}

/** A path as recorded: relative (POSIX) when inside `base`, else absolute. */
export function displayOf(base: string, abs: string): string {
  const rel = relative(base, abs);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split(sep).join('/') : abs;
}
