import { cpSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { DeepDiveStatusEnvelope, FlowMergeEnvelope, FlowStatusEnvelope } from '../../projections/flow/index.js';
import { batonIn, jsonLines, type CliResult } from './cli.js';
import { hashTree, makeTempDir, sharedSetup, storedEvents } from './workspace.js';

/**
 * A phase-gate workspace driven through the built binary, in the spec's shorthand: `f(...)` is
 * `baton --dir WS --json flow …`, `d(...)` the same for `deep-dive`, `at` an `@HH:MM[:SS]` time on
 * 2024-01-15.
 */
export const O = '.claude/orchestration.local.md';
export const TF = '.claude/team-orchestration.local.md';
export const DD = '.claude/deep-dive.local.md';

export interface Call {
  at?: string;
  env?: Record<string, string | undefined>;
}

export function time(at: string): string {
  if (at.includes('T')) return at;
  const [h, m, s] = at.split(':');
  return `2024-01-15T${h}:${m}:${s ?? '00'}.000Z`;
}

export interface FlowWs {
  ws: string;
  run(args: string[], call?: Call): Promise<CliResult>;
  f(args: string[], call?: Call): Promise<CliResult>;
  d(args: string[], call?: Call): Promise<CliResult>;
  /** `adv P A`: --phase P --gate-result passed --agent A. */
  adv(phase: string, agent: string, call?: Call): Promise<CliResult>;
  read(file: string): string;
  exists(file: string): boolean;
  front(file: string): Record<string, unknown>;
  body(file: string): string;
  events(): ReturnType<typeof storedEvents>;
  snapshot(): { events: number; tree: Record<string, string> };
}

/** `baton init` run once per test file; each flow workspace is a copy of that one (sharedSetup). */
const initialised = sharedSetup('baton-flow-', async (ws) => {
  const init = await batonIn(ws, ['--json', 'init']);
  if (init.code !== 0) throw new Error(`init failed: ${init.stdout}${init.stderr}`);
});

export async function flowWorkspace(): Promise<FlowWs> {
  return flowWsAt((await initialised()).dir);
}

/**
 * A copy of a workspace (log, config, state files) in a new temporary folder: model-based tests
 * fork a workspace where paths branch instead of replaying the shared prefix through the CLI.
 */
export function forkWorkspace(w: FlowWs): FlowWs {
  const ws = makeTempDir('baton-flow-fork-');
  cpSync(w.ws, ws, { recursive: true });
  return flowWsAt(ws);
}

/** The shorthand over an existing workspace folder. */
export function flowWsAt(ws: string): FlowWs {
  const run = (args: string[], call: Call = {}): Promise<CliResult> =>
    batonIn(ws, ['--json', ...args], {
      env: { CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: undefined, ...(call.at ? { BATON_NOW: time(call.at) } : {}), ...call.env },
    });
  const read = (file: string): string => readFileSync(join(ws, file), 'utf8');
  const split = (file: string): [string, string] => {
    const text = read(file);
    const end = text.indexOf('\n---\n', 4);
    if (!text.startsWith('---\n') || end < 0) throw new Error(`${file} has no frontmatter`);
    return [text.slice(4, end + 1), text.slice(end + 6)];
  };
  return {
    ws,
    run,
    f: (args, call) => run(['flow', ...args], call),
    d: (args, call) => run(['deep-dive', ...args], call),
    adv: (phase, agent, call) => run(['flow', 'update', '--phase', phase, '--gate-result', 'passed', '--agent', agent], call),
    read,
    exists: (file) => existsSync(join(ws, file)),
    front: (file) => parse(split(file)[0]) as Record<string, unknown>,
    body: (file) => split(file)[1],
    events: () => storedEvents(ws),
    snapshot: () => ({ events: storedEvents(ws).length, tree: hashTree(join(ws, '.claude')) }),
  };
}

function last(result: CliResult): unknown {
  const line = jsonLines(result.stdout).at(-1);
  if (line === undefined || result.code !== 0) throw new Error(`exit ${result.code}: ${result.stdout}${result.stderr}`);
  return line;
}

/** The flow_status envelope a successful command printed (schema-checked). */
export function status(result: CliResult): FlowStatusEnvelope {
  return FlowStatusEnvelope.parse(last(result));
}
export function merged(result: CliResult): FlowMergeEnvelope {
  return FlowMergeEnvelope.parse(last(result));
}
export function deepDive(result: CliResult): DeepDiveStatusEnvelope {
  return DeepDiveStatusEnvelope.parse(last(result));
}

const SEQ_AGENTS: Record<string, string> = {
  exploration: 'Riko',
  planning: 'Senku',
  implementation: 'Loid',
  review: 'Lawliet',
  verification: 'Alphonse',
  review_verification: 'Orchestrator',
};
const ORDER = {
  sequential: ['exploration', 'planning', 'implementation', 'review', 'verification'],
  team: ['exploration', 'planning', 'implementation', 'review_verification'],
};

/** "Run to X": the adv calls, each with the agent of the phase being left, one minute apart from 10:31. */
export async function runTo(w: FlowWs, target: string, mode: 'sequential' | 'team' = 'sequential', from = 'exploration', startMinute = 31): Promise<number> {
  const order = ORDER[mode];
  let minute = startMinute;
  for (let i = order.indexOf(from); order[i] !== target; i++) {
    const r = await w.adv(order[i + 1]!, SEQ_AGENTS[order[i]!]!, { at: `10:${String(minute).padStart(2, '0')}` });
    if (r.code !== 0) throw new Error(`adv ${order[i + 1]} failed: ${r.stdout}${r.stderr}`);
    minute++;
  }
  return minute;
}

/** The keys Agent Flow's state files carry since v1.5, with the defaults a new flow shows. */
export const AGENT_FLOW_DEFAULT_KEYS = {
  codex_divergence_rounds: 0,
  task_complexity: 'unclassified',
  report_requested: false,
  intent: { goal: '', description: '', actions: '', constraints: '', assumptions: '' },
  graph: { available: false, path: '', generated: '', nodes: 0, edges: 0, communities: 0 },
  personal_kb: { available: false, path: '', graph_path: '', generated: '', nodes: 0, edges: 0 },
  codex: { available: false, binary: '', auth_present: false },
  agentsview: { available: false, binary: '', archive_reachable: false },
} as const;
