import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCatalog } from '../events/index.js';
import { workUnitsStateProjection } from '../projections/work-units/fold.js';
import { initWorkUnits } from '../projections/work-units/state.js';
import { openStore } from '../src/store/open-store.js';
import { runProjection } from '../src/store/projection-runner.js';
import { decideWuImport, withoutDuplicates } from '../deciders/wu-yaml.js';
import { readWuFiles } from '../src/work-units/import.js';

/**
 * A repository at LumenFlow's real scale (issue 17), generated, not copied: 1,400 WU YAML files in
 * `docs/operations/tasks/wu/` across 50 initiatives (28 WUs each, the first 35 finished) and 12 lanes
 * (1,000 done, 150 in progress, 250 ready), 23 more files that are malformed (no lane: what the YAML probe warns about), and a log of
 * ~3,000 events written through the library API in one batch: the initiatives, one
 * `observation.wu_yaml` per file exactly as `wu import` would record it, a stamp observation per
 * done WU, and a worktree observation and two checkpoints per WU in progress.
 */
export const LUMENFLOW_SCALE = { wus: 1400, initiatives: 50, done: 1000, inProgress: 150, invalid: 23 };
export const WU_DIR = 'docs/operations/tasks/wu';
const NOW = '2026-04-17T09:00:00.000Z';
const LANES = [
  'Framework: Core',
  'Framework: CLI',
  'Framework: Memory',
  'Operations: Tooling',
  'Operations: CI',
  'Content: Docs',
  'Content: Site',
  'Experience: UI',
  'Experience: Web',
  'Intelligence: Agents',
  'Intelligence: Prompts',
  'Infrastructure: Store',
];

export interface LumenflowScaleRepo {
  dir: string;
  events: number;
  logBytes: number;
}

function statusOf(n: number): string {
  if (n <= LUMENFLOW_SCALE.done) return 'done';
  if (n <= LUMENFLOW_SCALE.done + LUMENFLOW_SCALE.inProgress) return 'in_progress';
  return 'ready';
}

/** WUs in blocks of 28 per initiative, numbered in creation order: older initiatives are finished, as in a long-lived repository. */
const initiativeOf = (n: number): string => `INIT-${Math.min(LUMENFLOW_SCALE.initiatives, Math.ceil(n / (LUMENFLOW_SCALE.wus / LUMENFLOW_SCALE.initiatives)))}`;
/** An initiative with WUs in progress and ready (WU-1149…WU-1176: the one `orchestrate status` is measured on). */
export const ACTIVE_INITIATIVE = 'INIT-42';
const laneOf = (n: number): string => LANES[n % LANES.length]!;

function wuYaml(n: number): string {
  const status = statusOf(n);
  const deps = n > 100 && n % 3 === 0 ? [`WU-${n - 100}`] : [];
  return [
    `id: WU-${n}`,
    `title: 'Work unit ${n}: make the ${laneOf(n).toLowerCase()} part ${n} better'`,
    `lane: '${laneOf(n)}'`,
    `type: ${n % 5 === 0 ? 'bug' : 'feature'}`,
    `status: ${status}`,
    `priority: P${n % 4}`,
    `initiative: ${initiativeOf(n)}`,
    `created: 2026-0${(n % 9) + 1}-1${n % 10}`,
    'description: |',
    `  Part ${n} of the plan. The agent reads the code paths, changes what the acceptance`,
    '  criteria ask for, and leaves the rest alone.',
    'acceptance:',
    `  - Part ${n} works as described`,
    '  - Tests cover the change',
    'code_paths:',
    `  - packages/part-${n % 40}/src/**`,
    `dependencies: [${deps.join(', ')}]`,
    ...(status === 'in_progress' ? [`claimed_mode: worktree`, `worktree_path: worktrees/part-${n}`, `claimed_at: '2026-04-16T1${n % 10}:00:00Z'`] : []),
    ...(status === 'done' ? [`completed_at: '2026-04-1${n % 7}'`] : []),
    'notes: an unread key, kept in the content hash only',
    '',
  ].join('\n');
}

export async function generateLumenflowScaleRepo(dir: string): Promise<LumenflowScaleRepo> {
  const wuDir = join(dir, WU_DIR);
  mkdirSync(wuDir, { recursive: true });
  for (let n = 1; n <= LUMENFLOW_SCALE.wus; n++) writeFileSync(join(wuDir, `WU-${n}.yaml`), wuYaml(n));
  for (let i = 1; i <= LUMENFLOW_SCALE.invalid; i++)
    writeFileSync(join(wuDir, `WU-${5000 + i}.yaml`), `id: WU-${5000 + i}\ntitle: Missing its lane\nstatus: ready\n`);

  const catalog = createCatalog();
  const store = await openStore({ workspace: dir, config: { kind: 'jsonl' }, catalog, now: () => NOW, actor: 'bench' });
  try {
    const events: { type: string; stream: string; data: Record<string, unknown> }[] = [];
    for (let i = 1; i <= LUMENFLOW_SCALE.initiatives; i++) {
      events.push({
        type: 'initiative.created',
        stream: `initiative/INIT-${i}`,
        data: { initiative: `INIT-${i}`, title: `Initiative ${i}`, slug: null, lanes: [] },
      });
    }
    // What `wu import` of the folder records (the malformed files left out, as --skip-invalid would).
    const read = readWuFiles(dir, [WU_DIR], true);
    events.push(...decideWuImport({ files: withoutDuplicates(read.parsed, read.failures) }, initWorkUnits()).events);
    for (let n = 1; n <= LUMENFLOW_SCALE.wus; n++) {
      const wu = `WU-${n}`;
      const status = statusOf(n);
      if (status === 'done') {
        events.push({
          type: 'observation.stamp_file',
          stream: `wu/${wu}`,
          data: { wu_id: wu, path: `.lumenflow/stamps/${wu}.done`, present: true, valid: true, content_hash: 'a'.repeat(64) },
        });
      } else if (status === 'in_progress') {
        events.push({
          type: 'observation.worktree',
          stream: `wu/${wu}`,
          data: { wu_id: wu, path: `worktrees/part-${n}`, present: true, branch: `lane/part/${wu.toLowerCase()}` },
        });
        for (const step of ['first half', 'second half']) {
          events.push({
            type: 'wu.checkpointed',
            stream: `wu/${wu}`,
            data: { wu_id: wu, session_id: null, note: `${step} of part ${n}`, progress: null, next_steps: null },
          });
        }
      }
    }
    const result = await store.append(events.map((e) => ({ ...e, actor: 'bench', at: NOW })));
    // The work-unit snapshot `import lumenflow` leaves after a large import (src/integrations/lumenflow/import.ts).
    await runProjection(store, workUnitsStateProjection, { catalog, cacheDir: join(dir, '.baton', 'cache'), now: NOW, snapshotEvery: 1 });
    return { dir, events: result.events.length, logBytes: 0 };
  } finally {
    await store.close();
  }
}
