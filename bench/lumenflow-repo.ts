import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { seeded } from './support.js';

/**
 * A LumenFlow repository shaped like real ones, generated (never copied) from what a long-lived
 * repository holds: a WU YAML per work unit with 5–15 fields, LumenFlow's `wu-events.jsonl` with
 * each WU's history (claim, checkpoints, then complete, release or block), a done stamp for ~95% of
 * the done WUs, initiatives of 5–70 WUs (one of 70 with work in flight) and lanes with WIP limits
 * in workspace.yaml. Deterministic: the same shape and seed give the same bytes.
 *
 * Two sizes: REAL, the size of LumenFlow's own repository (1,400 WUs, ~52 initiatives, ~6,500
 * events once imported), and LARGE (20,000 WUs, ~200,000 events: a team with years of history,
 * whose WUs were claimed up to three times and checkpointed more).
 */
export interface RepoShape {
  label: string;
  wus: number;
  seed: number;
  /** How many times a WU was claimed, from … to (every attempt but the last ends in a release). */
  attempts: readonly [number, number];
  /** Weights of 0, 1, 2, 3 … checkpoint lines per attempt. */
  checkpointWeights: readonly number[];
}

export const REAL_SHAPE: RepoShape = { label: 'real', wus: 1400, seed: 1400, attempts: [1, 1], checkpointWeights: [45, 35, 20] };
export const LARGE_SHAPE: RepoShape = { label: 'large', wus: 20_000, seed: 20_000, attempts: [1, 3], checkpointWeights: [0, 1, 1, 1] };

/** A smaller repository of REAL's shape (tests). */
export function realShaped(wus: number, seed = wus): RepoShape {
  return { ...REAL_SHAPE, label: `${wus}`, wus, seed };
}

export const WU_DIR = 'docs/operations/tasks/wu';
const INITIATIVES_DIR = 'docs/operations/tasks/initiatives';
const STAMPS_DIR = '.lumenflow/stamps';
const STATE_DIR = '.lumenflow/state';
/** The size of the initiative `orchestrate status` is measured on. */
export const ACTIVE_INITIATIVE_SIZE = 70;

export type LockPolicy = 'all' | 'active' | 'none';
export interface Lane {
  name: string;
  wip_limit: number;
  lock_policy: LockPolicy;
  /** Its WUs in progress once imported (blocked ones go to unlocked or `active` lanes only). */
  holders: number;
}

const LANE_NAMES = [
  'Framework: Core',
  'Framework: CLI',
  'Framework: Memory',
  'Framework: Agent',
  'Operations: Tooling',
  'Operations: CI',
  'Content: Documentation',
  'Content: Site',
  'Experience: UI',
  'Experience: Web',
  'Intelligence: Agents',
  'Intelligence: Prompts',
  'Infrastructure: Store',
  'Discovery: Research',
];

/** WIP limits 1–4, every fifth lane unlocked. */
function lanes(): Lane[] {
  return LANE_NAMES.map((name, i) => ({
    name,
    wip_limit: 1 + (i % 4),
    lock_policy: i % 5 === 4 ? 'none' : i % 2 === 1 ? 'active' : 'all',
    holders: 0,
  }));
}
/**
 * Claims a lane holds once imported: one lane in three is idle (nothing in progress or blocked in
 * it: what `wu claim` is measured in), the others full to their WIP limit.
 */
const holderTarget = (lane: Lane, i: number): number => (i % 3 === 0 ? 0 : lane.lock_policy === 'none' ? 1 : lane.wip_limit);

export type WuStatus = 'done' | 'in_progress' | 'blocked' | 'ready';

export interface GeneratedWu {
  n: number;
  id: string;
  lane: number;
  status: WuStatus;
  initiative: string | null;
  deps: string[];
  blockedBy: string[];
  stamped: boolean;
}

export interface GeneratedRepo {
  dir: string;
  shape: RepoShape;
  lanes: Lane[];
  /** Every initiative and its number of WUs, in id order. */
  initiatives: { id: string; wus: number }[];
  /** The initiative of ACTIVE_INITIATIVE_SIZE WUs with work in flight. */
  activeInitiative: string;
  counts: Record<WuStatus, number>;
  stamps: number;
  historyLines: number;
  /** The WUs `wu list --state eligible` answers: ready, every dependency done, sorted by number. */
  eligible: string[];
  /** Eligible WUs in an idle lane (nothing in progress or blocked there): what `wu claim` is measured on. */
  claimable: string[];
  /** WUs in progress, in number order. */
  inProgress: string[];
  /** Files written: WU YAML, initiative YAML, stamps, workspace.yaml and wu-events.jsonl. */
  files: number;
  /** What `baton import lumenflow` appends into an empty workspace. */
  expectedEvents: number;
  generateMs: number;
}

type Rng = () => number;
const between = (rng: Rng, min: number, max: number): number => min + Math.floor(rng() * (max - min + 1));
function weighted(rng: Rng, weights: readonly number[]): number {
  const total = weights.reduce((a, b) => a + b, 0);
  let x = rng() * total;
  for (let i = 0; i < weights.length; i++) if ((x -= weights[i]!) < 0) return i;
  return weights.length - 1;
}

const initiativeId = (i: number): string => (i === 0 ? 'INIT-MCP' : `INIT-${String(i).padStart(3, '0')}`);

/**
 * Initiative sizes (5–70, most small, as in real repositories), the one of 70 third from the
 * end, and which initiative each WU belongs to: contiguous blocks in creation order, with ~4% of
 * the WUs in none.
 */
function assignInitiatives(rng: Rng, total: number): { of: (string | null)[]; sizes: number[]; active: number } {
  const inInitiatives = Math.round(total * 0.96);
  const sizes: number[] = [];
  let sum = ACTIVE_INITIATIVE_SIZE;
  while (sum < inInitiatives) {
    const size = Math.min(5 + Math.floor(65 * rng() ** 2.4), ACTIVE_INITIATIVE_SIZE - 1);
    sizes.push(Math.min(size, Math.max(5, inInitiatives - sum)));
    sum += sizes.at(-1)!;
  }
  const active = Math.max(0, sizes.length - 2);
  sizes.splice(active, 0, ACTIVE_INITIATIVE_SIZE);
  const of: (string | null)[] = new Array<string | null>(total).fill(null);
  const spare = total - sizes.reduce((a, b) => a + b, 0);
  let n = 0;
  let left = spare;
  sizes.forEach((size, i) => {
    for (let k = 0; k < size && n < total; k++, n++) {
      // A WU outside any initiative now and then, before the active one's block.
      if (left > 0 && i < active && rng() < spare / total) {
        left--;
        k--;
        continue;
      }
      of[n] = initiativeId(i);
    }
  });
  return { of, sizes, active };
}

/**
 * Statuses: the WUs not done are among the most recent (the last initiatives, the active one
 * included): ~4% ready, ~0.5% blocked, and WUs in progress filling each lane to its holder target.
 */
function assignStatuses(rng: Rng, total: number, laneOf: number[], laneList: Lane[]): WuStatus[] {
  const status: WuStatus[] = new Array<WuStatus>(total).fill('done');
  const ready = Math.max(2, Math.round(total * 0.04));
  const blocked = Math.max(1, Math.round(total * 0.005));
  const targets = laneList.map((l, i) => holderTarget(l, i));
  const pool = Math.min(total, Math.max(Math.ceil((ready + blocked + targets.reduce((a, b) => a + b, 0)) * 2.5), 3 * ACTIVE_INITIATIVE_SIZE));
  const recent = Array.from({ length: pool }, (_, k) => total - pool + k);
  for (let k = recent.length - 1; k > 0; k--) {
    const j = Math.floor(rng() * (k + 1));
    [recent[k], recent[j]] = [recent[j]!, recent[k]!];
  }
  let readyLeft = ready;
  let blockedLeft = blocked;
  for (const n of recent) {
    const lane = laneList[laneOf[n]!]!;
    if (lane.holders < targets[laneOf[n]!]!) {
      status[n] = 'in_progress';
      lane.holders++;
    } else if (blockedLeft > 0 && lane.lock_policy !== 'all' && targets[laneOf[n]!]! > 0) {
      status[n] = 'blocked';
      blockedLeft--;
    } else if (readyLeft > 0) {
      status[n] = 'ready';
      readyLeft--;
    }
  }
  return status;
}

/** Dependencies on earlier WUs for a quarter of them, a `blocked_by` now and then (not on WUs in progress: at most 15 fields). */
function dependenciesOf(rng: Rng, n: number, status: WuStatus): { deps: string[]; blockedBy: string[] } {
  const deps: string[] = [];
  if (n > 1 && rng() < 0.25) {
    for (let k = between(rng, 1, 2); k > 0; k--) deps.push(`WU-${Math.max(1, n - between(rng, 1, 12))}`);
  }
  const blockedBy = n > 30 && rng() < 0.04 && status !== 'in_progress' ? [`WU-${n - between(rng, 13, 30)}`] : [];
  return { deps: [...new Set(deps)], blockedBy };
}

const quote = (s: string): string => `'${s.replace(/'/g, "''")}'`;
const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const BASE = Date.parse('2024-01-08T09:00:00.000Z');
const SPAN = 2 * 365 * 86_400_000;

function wuYaml(wu: GeneratedWu, laneName: string, created: number, rng: Rng): string {
  const title = `WU ${wu.n}: ${['add', 'fix', 'document', 'refactor', 'speed up'][wu.n % 5]} the ${laneName.split(': ')[1]!.toLowerCase()} part ${wu.n}`;
  const lines = [
    `id: ${wu.id}`,
    `title: ${quote(title)}`,
    `lane: ${quote(laneName)}`,
    `type: ${['feature', 'bug', 'documentation', 'refactor', 'chore'][wu.n % 5]}`,
  ];
  lines.push(`status: ${wu.status}`);
  if (wu.initiative !== null) lines.push(`initiative: ${wu.initiative}`);
  // A few terse WUs (five or six fields); most carry the usual ones.
  if (wu.status === 'done' && rng() < 0.05) return `${lines.join('\n')}\n`;
  lines.push(`priority: P${wu.n % 4}`);
  lines.push(`created: ${day(created)}`);
  lines.push('description: |', `  Part ${wu.n} of the plan: read the code paths, change what the acceptance asks for,`, '  and leave the rest alone.');
  lines.push('acceptance:', `  - Part ${wu.n} works as described`, '  - Tests cover the change');
  lines.push(`code_paths: ['packages/part-${wu.n % 40}/src/**']`);
  if (wu.deps.length > 0) lines.push(`dependencies: [${wu.deps.join(', ')}]`);
  if (wu.blockedBy.length > 0) lines.push(`blocked_by: [${wu.blockedBy.join(', ')}]`);
  if (wu.status === 'in_progress')
    lines.push('claimed_mode: worktree', `worktree_path: worktrees/part-${wu.n}`, `claimed_at: '${new Date(created + 3_600_000).toISOString()}'`);
  if (wu.status === 'blocked') lines.push('blocked_reason: waiting on review');
  if (wu.status === 'done') lines.push(`completed_at: '${day(created + 86_400_000)}'`);
  return `${lines.join('\n')}\n`;
}

/** The WU's lines of wu-events.jsonl: each attempt a claim and its checkpoints, ended by a release, and the last by what its status says. */
function historyOf(wu: GeneratedWu, shape: RepoShape, laneName: string, created: number, rng: Rng, into: string[]): void {
  const attempts = between(rng, shape.attempts[0], shape.attempts[1]);
  let t = created + 600_000;
  const at = (): string => new Date((t += between(rng, 5, 240) * 60_000)).toISOString();
  for (let a = 0; a < attempts; a++) {
    const last = a === attempts - 1;
    const sessionId = `sess-${(wu.n * 7 + a).toString(16).padStart(6, '0')}`;
    into.push(JSON.stringify({ type: 'claim', wuId: wu.id, timestamp: at(), lane: laneName, title: `Part ${wu.n}`, sessionId }));
    let checkpoints = weighted(rng, shape.checkpointWeights);
    if (last && wu.status === 'in_progress') checkpoints = Math.max(1, Math.min(3, checkpoints));
    for (let c = 0; c < checkpoints; c++)
      into.push(
        JSON.stringify({ type: 'checkpoint', wuId: wu.id, timestamp: at(), note: `step ${c + 1} of part ${wu.n}`, progress: `${(c + 1) * 30}%`, sessionId }),
      );
    if (!last || wu.status === 'ready') into.push(JSON.stringify({ type: 'release', wuId: wu.id, timestamp: at(), reason: 'handed back', sessionId }));
    else if (wu.status === 'done') into.push(JSON.stringify({ type: 'complete', wuId: wu.id, timestamp: at() }));
    else if (wu.status === 'blocked') into.push(JSON.stringify({ type: 'block', wuId: wu.id, timestamp: at(), reason: 'waiting on review' }));
  }
}

function workspaceYaml(laneList: readonly Lane[]): string {
  const defs = laneList.map(
    (l, i) =>
      `      - name: ${quote(l.name)}\n        wip_limit: ${l.wip_limit}\n        lock_policy: ${l.lock_policy}\n        code_paths: ['packages/lane-${i}/**']\n`,
  );
  return `software_delivery:\n  lanes:\n    definitions:\n${defs.join('')}  orchestration:\n    max_active_workers: 4\n`;
}

function initiativeYaml(id: string, i: number, members: readonly GeneratedWu[], laneList: readonly Lane[]): string {
  const finished = members.every((w) => w.status === 'done');
  const laneNames = [...new Set(members.map((w) => laneList[w.lane]!.name))].slice(0, 4);
  return [
    `id: ${id}`,
    `slug: initiative-${i}`,
    `title: ${quote(`Initiative ${i}`)}`,
    `status: ${finished ? 'done' : 'in_progress'}`,
    `priority: P${i % 4}`,
    `owner: team-${i % 7}`,
    `created: ${day(BASE + (i * SPAN) / 800)}`,
    `lanes: [${laneNames.map(quote).join(', ')}]`,
    'phases:',
    '  - id: 1',
    '    title: First',
    '    status: done',
    `wus: [${members.map((w) => w.id).join(', ')}]`,
    '',
  ].join('\n');
}

/** Write the repository into `dir` (created when missing) and say what it holds. */
export function generateLumenflowRepository(dir: string, shape: RepoShape): GeneratedRepo {
  const started = performance.now();
  const rng = seeded(shape.seed);
  const total = shape.wus;
  const laneList = lanes();
  const { of: initiativeOf, sizes, active } = assignInitiatives(rng, total);
  const laneOf = Array.from({ length: total }, () => Math.floor(rng() * laneList.length));
  const statuses = assignStatuses(rng, total, laneOf, laneList);
  const wus: GeneratedWu[] = statuses.map((status, k) => {
    const n = k + 1;
    return {
      n,
      id: `WU-${n}`,
      lane: laneOf[k]!,
      status,
      initiative: initiativeOf[k]!,
      ...dependenciesOf(rng, n, status),
      stamped: status === 'done' && rng() < 0.95,
    };
  });
  for (const folder of [WU_DIR, INITIATIVES_DIR, STAMPS_DIR, STATE_DIR]) mkdirSync(join(dir, folder), { recursive: true });
  const put = (rel: string, text: string): void => writeFileSync(join(dir, rel), text);
  put('workspace.yaml', workspaceYaml(laneList));
  const history: string[] = [];
  for (const wu of wus) {
    const laneName = laneList[wu.lane]!.name;
    const created = BASE + Math.floor((wu.n * SPAN) / total);
    put(`${WU_DIR}/${wu.id}.yaml`, wuYaml(wu, laneName, created, rng));
    historyOf(wu, shape, laneName, created, rng, history);
    if (wu.stamped)
      put(`${STAMPS_DIR}/${wu.id}.done`, wu.n % 50 === 0 ? 'done by hand\n' : `WU ${wu.id} \u2014 Part ${wu.n}\nCompleted: ${day(created + 86_400_000)}\n`);
  }
  // Appended over time: the lines in timestamp order, as LumenFlow wrote them.
  const stamped = history.map((line) => ({ line, t: /"timestamp":"([^"]+)"/.exec(line)![1]! }));
  stamped.sort((a, b) => (a.t < b.t ? -1 : a.t > b.t ? 1 : 0));
  put(`${STATE_DIR}/wu-events.jsonl`, `${stamped.map((s) => s.line).join('\n')}\n`);
  const members = new Map<string, GeneratedWu[]>();
  for (const wu of wus) if (wu.initiative !== null) (members.get(wu.initiative) ?? members.set(wu.initiative, []).get(wu.initiative)!).push(wu);
  sizes.forEach((_, i) => put(`${INITIATIVES_DIR}/${initiativeId(i)}.yaml`, initiativeYaml(initiativeId(i), i, members.get(initiativeId(i)) ?? [], laneList)));

  const isDone = new Set(wus.filter((w) => w.status === 'done').map((w) => w.id));
  const eligibleWus = wus.filter((w) => w.status === 'ready' && [...w.deps, ...w.blockedBy].every((d) => isDone.has(d)));
  // An idle lane has room whichever WIP limit applies (LumenFlow's, or Baton's default of 1).
  const idle = new Set(laneList.map((_, i) => i).filter((i) => holderTarget(laneList[i]!, i) === 0));
  const counts: Record<WuStatus, number> = { done: 0, in_progress: 0, blocked: 0, ready: 0 };
  for (const wu of wus) counts[wu.status]++;
  const stamps = wus.filter((w) => w.stamped).length;
  const initiatives = sizes.map((_, i) => ({ id: initiativeId(i), wus: members.get(initiativeId(i))?.length ?? 0 })).sort((a, b) => (a.id < b.id ? -1 : 1));
  return {
    dir,
    shape,
    lanes: laneList,
    initiatives,
    activeInitiative: initiativeId(active),
    counts,
    stamps,
    historyLines: history.length,
    eligible: eligibleWus.map((w) => w.id),
    claimable: eligibleWus.filter((w) => idle.has(w.lane)).map((w) => w.id),
    inProgress: wus.filter((w) => w.status === 'in_progress').map((w) => w.id),
    files: total + sizes.length + stamps + 2,
    // The lane settings, one observation per initiative file, WU file, stamp and history line.
    expectedEvents: 1 + sizes.length + total + stamps + history.length,
    generateMs: performance.now() - started,
  };
}
