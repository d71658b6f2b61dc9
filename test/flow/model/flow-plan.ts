import type { FlowMachineEvent } from '../../../machines/flow-events.js';
import type { FlowSnapshot } from '../../../machines/flow-snapshot.js';
import {
  eventsFor,
  initialSnapshot,
  machineTransitions,
  serializeEvent,
  shortestPaths,
  startContext,
  transitionsTaken,
  type ModelStart,
} from './flow-model.js';

/**
 * The plan a model-based run executes: the shortest paths to every vertex of the graph, plus, for
 * each machine transition those paths do not take, the shortest path to a vertex where it is
 * enabled followed by the event that takes it. The paths are merged into a tree of steps, so a
 * shared prefix runs once through the CLI and the workspace is copied where paths branch.
 */
export interface PlanNode {
  /** The event that leads here (null at the root: the flow right after `flow init`). */
  event: FlowMachineEvent | null;
  /** The machine's snapshot after this step (graph clock). */
  snapshot: FlowSnapshot;
  depth: number;
  children: PlanNode[];
}

export interface Plan {
  start: ModelStart;
  root: PlanNode;
  /** The vertices the graph reaches from this start. */
  vertices: Set<string>;
  steps: number;
}

function child(node: PlanNode, event: FlowMachineEvent): PlanNode {
  const key = serializeEvent(event);
  const existing = node.children.find((c) => c.event !== null && serializeEvent(c.event) === key);
  if (existing) return existing;
  const created: PlanNode = { event, snapshot: transitionsTaken(node.snapshot, event).next, depth: node.depth + 1, children: [] };
  node.children.push(created);
  return created;
}

function insert(root: PlanNode, events: readonly FlowMachineEvent[]): PlanNode {
  let node = root;
  for (const event of events) node = child(node, event);
  return node;
}

function walk(node: PlanNode, visit: (node: PlanNode, parent: PlanNode | null) => void, parent: PlanNode | null = null): void {
  visit(node, parent);
  for (const c of node.children) walk(c, visit, node);
}

/** The machine transitions a plan's steps take, by name. */
export function transitionsOf(root: PlanNode): Set<string> {
  const names = machineTransitions();
  const out = new Set<string>();
  walk(root, (node, parent) => {
    if (parent === null || node.event === null) return;
    for (const t of transitionsTaken(parent.snapshot, node.event).taken) out.add(names.get(t) ?? `unknown:${t.eventType}`);
  });
  return out;
}

export function buildPlan(start: ModelStart): Plan {
  const root: PlanNode = { event: null, snapshot: initialSnapshot(startContext(start)), depth: 0, children: [] };
  const paths = shortestPaths(start).sort((a, b) => a.events.length - b.events.length);
  for (const path of paths) insert(root, path.events);
  // Where a transition is enabled first (shortest path), take it there as one extra step.
  const names = machineTransitions();
  const covered = transitionsOf(root);
  for (const path of paths) {
    const at = insert(root, path.events);
    for (const event of eventsFor(at.snapshot)) {
      const taken = transitionsTaken(at.snapshot, event).taken.map((t) => names.get(t) ?? '');
      if (taken.some((name) => !covered.has(name))) {
        child(at, event);
        taken.forEach((name) => covered.add(name));
      }
    }
  }
  let steps = 0;
  walk(root, (node) => {
    if (node.event !== null) steps++;
  });
  return { start, root, vertices: new Set(paths.map((p) => p.target)), steps };
}
