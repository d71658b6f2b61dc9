import { getStateNodes } from '@xstate/graph';
import { afterAll, expect, it } from 'vitest';
import { FlowEventType } from '../../events/flow/flow-events.js';
import { GateStatus, Variant } from '../../events/flow/vocabulary.js';
import { mergeVerdict, type FlowContext } from '../../machines/flow-context.js';
import type { FlowMachineEvent } from '../../machines/flow-events.js';
import { stateValueOf, type FlowSnapshot } from '../../machines/flow-snapshot.js';
import { flowMachine } from '../../machines/flow.js';
import { flowView, STATE_FILE } from '../../projections/flow/index.js';
import { errorEnvelopeOf, type CliResult } from '../helpers/cli.js';
import { flowWorkspace, forkWorkspace, merged, status, type FlowWs } from '../helpers/flow-cli.js';
import { removeTempDirs } from '../helpers/workspace.js';
import { argsFor, expectedFront, initArgs, stepTime } from './model/cli-driver.js';
import {
  MAX_ITERATIONS,
  ModelStart,
  eventsFor,
  initialSnapshot,
  machineTransitions,
  serializeFlow,
  startContext,
  transitionsTaken,
} from './model/flow-model.js';
import { buildPlan, type PlanNode } from './model/flow-plan.js';

afterAll(removeTempDirs);

/**
 * Model-based tests (phase-gates.md §2): the `flow` machine's graph, walked by @xstate/graph from
 * an orchestrate flow and a team-mode flow, gives the shortest path to every vertex and a step for
 * every machine transition; each path drives the built CLI in its own workspace (copied where
 * paths branch), and after every step the CLI's `flow_status` must equal the view of the machine's
 * context, the state file must say the same, and the log must have grown by exactly the facts the
 * machine emitted. In every state node, one event the machine refuses must be refused by the CLI
 * (exit 2, nothing changed). At the end every state node and every transition of the machine must
 * have been exercised through the CLI.
 */
const CONCURRENCY = 3;

function limiter(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await task();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}

const slot = limiter(CONCURRENCY);

interface Coverage {
  transitions: Set<string>;
  stateNodes: Set<string>;
  vertices: Set<string>;
  cliCalls: number;
  /** State nodes whose refusal was checked. */
  refusals: Set<string>;
  failures: string[];
}

/** The atomic and final state nodes a snapshot is in (`_nodes` is xstate's active configuration). */
function leafIds(snapshot: FlowSnapshot): string[] {
  return snapshot._nodes.filter((node) => node.type === 'atomic' || node.type === 'final').map((node) => node.id);
}

/** The verdict `flow merge` prints when it appends nothing (§6.3's table). */
function standingVerdict(ctx: FlowContext): { all_passed: boolean; failed_phases: string[]; summary: string; recorded: boolean } {
  const group = ctx.group!;
  if ((group.status === GateStatus.passed || group.status === GateStatus.failed) && ctx.last_merge !== null) {
    const { all_passed, failed_phases, summary } = ctx.last_merge;
    return { all_passed, failed_phases, summary, recorded: true };
  }
  return { ...mergeVerdict(group), recorded: false };
}

const REFUSAL_CODES = ['ILLEGAL_TRANSITION', 'FLOW_ENDED', 'NOT_TEAM_MODE'];

/** The first tried event the machine refuses in this state (an ended flow refuses an abort). */
function refusedEvent(snapshot: FlowSnapshot, depth: number): FlowMachineEvent | null {
  const at = stepTime(depth + 1);
  if (snapshot.status === 'done') return { type: 'ABORT', reason: 'too late', at };
  const refused = eventsFor(snapshot).find((event) => transitionsTaken(snapshot, event).taken.length === 0);
  return refused === undefined ? null : { ...refused, at };
}

function describePath(path: readonly FlowMachineEvent[]): string {
  return path.map((e) => JSON.stringify({ ...e, at: undefined })).join(' → ') || '(init)';
}

async function runPlan(start: ModelStart, coverage: Coverage): Promise<void> {
  const plan = buildPlan(start);
  const names = machineTransitions();
  const w = await flowWorkspace();
  const init = initArgs(start, MAX_ITERATIONS);
  const initResult = await slot(() => w.run(init.args, { at: stepTime(0), env: init.env }));
  coverage.cliCalls++;
  const flowId = status(initResult).flow!.flow_id;
  const variantFile = STATE_FILE[start === ModelStart.team ? Variant.team : Variant.orchestrate];

  const check = (ws: FlowWs, ctx: FlowContext, result: CliResult | null): void => {
    if (result !== null) expect(status(result).flow).toEqual({ ...flowView(ctx), flow_id: flowId });
    expect(ws.front(variantFile)).toMatchObject(expectedFront(ctx));
  };

  const first = initialSnapshot({ ...startContext(start), flow_id: flowId });
  check(w, first.context, initResult);
  coverage.vertices.add(serializeFlow(first));
  leafIds(first).forEach((id) => coverage.stateNodes.add(id));

  const visit = async (node: PlanNode, ws: FlowWs, before: FlowSnapshot, path: FlowMachineEvent[]): Promise<void> => {
    let after = before;
    if (node.event !== null) {
      const event = { ...node.event, at: stepTime(node.depth) };
      const { next, taken } = transitionsTaken(before, event);
      after = next;
      path = [...path, event];
      try {
        // The machine re-run on the CLI's clock lands on the vertex the graph walk planned, and
        // the snapshot rebuilt from the context alone (what commands do) is the same state.
        expect(serializeFlow(next)).toBe(serializeFlow(node.snapshot));
        if (next.status !== 'done') expect(stateValueOf(next.context)).toEqual(next.value);
        const facts = next.context.outbox;
        const logBefore = ws.events().length;
        const args = argsFor(event, before.context);
        const result = await slot(() => ws.run(args, { at: event.at }));
        coverage.cliCalls++;
        expect(result.code, `baton ${args.join(' ')}: ${result.stdout}${result.stderr}`).toBe(0);
        expect(
          ws
            .events()
            .slice(logBefore)
            .map((e) => e.type),
        ).toEqual(facts.map((f) => f.type));
        if (event.type === 'MERGE') {
          const mergedFact = facts.find((f) => f.type === FlowEventType.group_merged);
          const verdict =
            mergedFact?.type === FlowEventType.group_merged
              ? { all_passed: mergedFact.data.all_passed, failed_phases: mergedFact.data.failed_phases, summary: mergedFact.data.summary, recorded: true }
              : standingVerdict(before.context);
          expect(merged(result)).toMatchObject(verdict);
          // `flow merge` prints the verdict; after a recorded merge the flow's state comes from
          // `flow status` (a merge that appends nothing is proven a no-op by the log and file).
          const after = facts.length === 0 ? null : await slot(() => ws.run(['flow', 'status'], { at: event.at }));
          if (after !== null) coverage.cliCalls++;
          check(ws, next.context, after);
        } else {
          check(ws, next.context, result);
        }
        taken.forEach((t) => coverage.transitions.add(names.get(t) ?? `unknown:${t.eventType}`));
        coverage.vertices.add(serializeFlow(next));
        leafIds(next).forEach((id) => coverage.stateNodes.add(id));
      } catch (error) {
        coverage.failures.push(`${start}: ${describePath(path)}\n${error instanceof Error ? error.message : String(error)}`);
        return;
      }
    }
    // Once per state node: an event the machine refuses there is refused by the CLI too.
    const refusal = refusedEvent(after, node.depth);
    const fresh = leafIds(after).filter((id) => !coverage.refusals.has(id));
    if (refusal !== null && fresh.length > 0) {
      fresh.forEach((id) => coverage.refusals.add(id));
      try {
        const args = argsFor(refusal, after.context);
        const before = ws.snapshot();
        const result = await slot(() => ws.run(args, { at: refusal.at }));
        coverage.cliCalls++;
        expect(result.code, `baton ${args.join(' ')} should be refused: ${result.stdout}${result.stderr}`).toBe(2);
        expect(REFUSAL_CODES).toContain(errorEnvelopeOf(result).code);
        expect(ws.snapshot()).toEqual(before);
      } catch (error) {
        coverage.failures.push(
          `${start}: ${describePath(path)} then refused ${JSON.stringify(refusal)}\n${error instanceof Error ? error.message : String(error)}`,
        );
        return;
      }
    }
    // Copies are taken before the first child runs in this workspace.
    const workspaces = node.children.map((_, i) => (i === 0 ? ws : forkWorkspace(ws)));
    await Promise.all(node.children.map((c, i) => visit(c, workspaces[i]!, after, path)));
  };
  await visit(plan.root, w, first, []);
  // A failed step leaves its subtree unvisited; report the failure, not the gap it made.
  if (coverage.failures.length === 0) expect([...plan.vertices].filter((v) => !coverage.vertices.has(v))).toEqual([]);
}

it('walks every state and transition of the flow machine through the CLI', async () => {
  const coverage: Coverage = { transitions: new Set(), stateNodes: new Set(), vertices: new Set(), refusals: new Set(), cliCalls: 0, failures: [] };
  const started = Date.now();
  await Promise.all([runPlan(ModelStart.orchestrate, coverage), runPlan(ModelStart.team, coverage)]);
  expect(coverage.failures).toEqual([]);
  // Every transition of the machine's state-node graph, and every atomic or final state node.
  expect([...coverage.transitions].sort()).toEqual([...new Set(machineTransitions().values())].sort());
  const leaves = getStateNodes(flowMachine.root)
    .filter((n) => n.type === 'atomic' || n.type === 'final')
    .map((n) => n.id);
  expect([...coverage.stateNodes].sort()).toEqual([...leaves].sort());
  expect([...coverage.refusals].sort()).toEqual([...leaves].sort());
  process.stdout.write(
    `flow model: ${coverage.vertices.size} vertices, ${coverage.transitions.size} transitions, ${coverage.refusals.size} refusals, ${coverage.cliCalls} CLI calls in ${Date.now() - started} ms\n`,
  );
}, 300_000);
