import { AgentsviewInfo, CodexInfo, GraphInfo, Intent, PersonalKbInfo, type ExtraKey } from '../../events/flow/flow-events.js';
import { PHASES, TEAMMATES } from '../../events/flow/vocabulary.js';

/**
 * Which keys of a state file's frontmatter Baton knows, as a tree: a key maps to `true` (a value
 * Baton reads) or to the known keys of the object it holds. Every other key, at the top or nested
 * in a known object, is an extra key: Baton keeps it as the file has it and renders it back in
 * place (projections/flow/extra-keys.ts), and never refuses a file for it. Agent Flow adds keys
 * between versions (v1.9's `personal_kb.communities`); a file a newer plugin wrote stays readable.
 */
type Known = { readonly [key: string]: true | Known };

const keysOf = (shape: object): Known => Object.fromEntries(Object.keys(shape).map((k) => [k, true]));
const GATE: Known = keysOf({ status: 0, timestamp: 0, agent: 0, message: 0 });
const SUB: Known = keysOf({ status: 0, agent: 0, timestamp: 0, result: 0 });

const KNOWN: Known = {
  ...keysOf({ active: 0, current_phase: 0, iteration: 0, max_iterations: 0, codex_divergence_rounds: 0, started_at: 0, task: 0 }),
  ...keysOf({ task_complexity: 0, report_requested: 0, mode: 0, team_available: 0, outcome: 0, abort_reason: 0 }),
  intent: keysOf(Intent.shape),
  deep_dive: keysOf({ available: 0, using: 0, scope: 0, generated: 0 }),
  graph: keysOf(GraphInfo.shape),
  personal_kb: keysOf(PersonalKbInfo.shape),
  codex: keysOf(CodexInfo.shape),
  agentsview: keysOf(AgentsviewInfo.shape),
  parallel_groups: {
    review_verification: { ...keysOf({ status: 0, started_at: 0, completed_at: 0 }), ...Object.fromEntries(TEAMMATES.map((t) => [t, SUB])) },
  },
  gates: Object.fromEntries(PHASES.map((p) => [p, GATE])),
};

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A YAML value as JSON keeps it (an event holds JSON): `.inf` and `.nan` become null. */
function jsonValue(value: unknown): unknown {
  return value === undefined ? null : (JSON.parse(JSON.stringify(value)) as unknown);
}

/** The frontmatter's extra keys, in the file's order, each with the key it followed. */
export function extraKeysOf(front: Record<string, unknown>): ExtraKey[] {
  const out: ExtraKey[] = [];
  const walk = (obj: Record<string, unknown>, known: Known, path: readonly string[]): void => {
    let previous: string | null = null;
    for (const [key, value] of Object.entries(obj)) {
      const k = known[key];
      if (k === undefined) out.push({ path: [...path, key], after: previous, value: jsonValue(value) });
      else if (k !== true && isObject(value)) walk(value, k, [...path, key]);
      previous = key;
    }
  };
  walk(front, KNOWN, []);
  return out;
}

/** The part of an object Baton knows (`known`'s keys), the extra keys left out. */
export function knownPart(value: unknown, known: readonly string[]): unknown {
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([k]) => known.includes(k)));
}
