import { constEnum } from '../const-enum.js';
/**
 * Agent Flow's vocabulary (phase-gates.md §1): phases, agents, statuses, variants and modes, and
 * the phase orders of each mode. Const objects so every name is spelt once.
 */
export const Phase = constEnum(['exploration', 'planning', 'implementation', 'review', 'verification', 'review_verification']);
export type Phase = (typeof Phase)[keyof typeof Phase];
export const PHASES = Object.values(Phase) as readonly Phase[];

/** `complete` is only ever a value of `current_phase` and a `--phase` target, never a gate. */
export const COMPLETE = 'complete' as const;
export type PhaseOrComplete = Phase | typeof COMPLETE;

export const Agent = constEnum(['Riko', 'Senku', 'Loid', 'Lawliet', 'Alphonse', 'Orchestrator']);
export type Agent = (typeof Agent)[keyof typeof Agent];
export const AGENTS = Object.values(Agent) as readonly Agent[];

export const PHASE_AGENT: Readonly<Record<Phase, Agent>> = {
  exploration: Agent.Riko,
  planning: Agent.Senku,
  implementation: Agent.Loid,
  review: Agent.Lawliet,
  verification: Agent.Alphonse,
  review_verification: Agent.Orchestrator,
};

export const PHASE_TITLE: Readonly<Record<Phase, string>> = {
  exploration: 'Exploration',
  planning: 'Planning',
  implementation: 'Implementation',
  review: 'Review',
  verification: 'Verification',
  review_verification: 'Review & Verification (PARALLEL)',
};

export const GateStatus = { pending: 'pending', in_progress: 'in_progress', passed: 'passed', failed: 'failed', skipped: 'skipped' } as const;
export type GateStatus = (typeof GateStatus)[keyof typeof GateStatus];
export const GATE_STATUSES = Object.values(GateStatus) as readonly GateStatus[];

/**
 * What `--gate-result` accepts: a gate is never set back to `pending` by hand. `skipped` is Agent
 * Flow's word for a phase its task classification leaves out; like `passed` it lets the flow move on.
 */
export const GATE_RESULTS = [GateStatus.in_progress, GateStatus.passed, GateStatus.failed, GateStatus.skipped] as const;
/** The statuses that let a flow leave a phase (P4). */
export const GATE_DONE: readonly GateStatus[] = [GateStatus.passed, GateStatus.skipped];
export type GateResult = (typeof GATE_RESULTS)[number];

export const Teammate = { review: 'review', verification: 'verification' } as const;
export type Teammate = (typeof Teammate)[keyof typeof Teammate];
export const TEAMMATES = [Teammate.review, Teammate.verification] as const;
export const TEAMMATE_AGENT: Readonly<Record<Teammate, Agent>> = { review: Agent.Lawliet, verification: Agent.Alphonse };

export const GROUP = 'review_verification' as const;
export const GROUPS = [GROUP] as const;

export const Variant = { orchestrate: 'orchestrate', team: 'team' } as const;
export type Variant = (typeof Variant)[keyof typeof Variant];

export const Mode = { sequential: 'sequential', team: 'team' } as const;
export type Mode = (typeof Mode)[keyof typeof Mode];

export const FlowStatus = { active: 'active', complete: 'complete', aborted: 'aborted' } as const;
export type FlowStatus = (typeof FlowStatus)[keyof typeof FlowStatus];

export const PHASE_ORDER: Readonly<Record<Mode, readonly Phase[]>> = {
  sequential: [Phase.exploration, Phase.planning, Phase.implementation, Phase.review, Phase.verification],
  team: [Phase.exploration, Phase.planning, Phase.implementation, Phase.review_verification],
};

/** The gates each variant's file shows, in the file's order (§7.2, §7.3). */
export const VARIANT_GATES: Readonly<Record<Variant, readonly Phase[]>> = {
  orchestrate: [Phase.exploration, Phase.planning, Phase.implementation, Phase.review, Phase.verification],
  team: [Phase.exploration, Phase.planning, Phase.implementation, Phase.review_verification, Phase.review, Phase.verification],
};

/** `next(P)` in a mode: the following phase, or `complete` after the last one. */
export function nextPhase(mode: Mode, phase: Phase): PhaseOrComplete | null {
  const order = PHASE_ORDER[mode];
  const i = order.indexOf(phase);
  if (i < 0) return null;
  return order[i + 1] ?? COMPLETE;
}

export function lastPhase(mode: Mode): Phase {
  const order = PHASE_ORDER[mode];
  return order[order.length - 1]!;
}

/** The agents that may record a phase's gate (G5): its own agent and the Orchestrator. */
export function allowedAgents(phase: Phase): readonly Agent[] {
  const own = PHASE_AGENT[phase];
  return own === Agent.Orchestrator ? [Agent.Orchestrator] : [own, Agent.Orchestrator];
}

/** One of Baton's six named agents (matched exactly; `--agent` input is normalized first). */
export function isNamedAgent(name: string): name is Agent {
  return (AGENTS as readonly string[]).includes(name);
}

/**
 * G5 for any agent name: Agent Flow stores any string, so a name outside the six (e.g. `Codex`, a
 * reviewer the plugin added in v1.5) may record any gate; the six keep their phase rule.
 */
export function agentMayRecord(phase: Phase, name: string): boolean {
  return !isNamedAgent(name) || allowedAgents(phase).includes(name);
}

/** Agent Flow v1.5+ task classification (`task_complexity`). */
export const TASK_COMPLEXITIES = ['unclassified', 'trivial', 'exploratory', 'implementation', 'complex', 'research'] as const;
export type TaskComplexity = (typeof TASK_COMPLEXITIES)[number];
/** The `intent` block's keys, in Agent Flow's order. */
export const INTENT_KEYS = ['goal', 'description', 'actions', 'constraints', 'assumptions'] as const;
export type IntentKey = (typeof INTENT_KEYS)[number];
export const MAX_AGENT_NAME_LENGTH = 100;

export const DEEP_DIVE_SCOPES = ['full', 'focused'] as const;
export type DeepDiveScope = (typeof DEEP_DIVE_SCOPES)[number];

/** Deep-dive sections in the file's order (§8.1). */
export const DEEP_DIVE_SECTIONS = [
  'overview',
  'tech_stack',
  'entry_points',
  'key_patterns',
  'architecture',
  'conventions',
  'antipatterns',
  'quick_reference',
  'agent_notes',
] as const;
export type DeepDiveSection = (typeof DEEP_DIVE_SECTIONS)[number];

export const MAX_TASK_LENGTH = 2000;
export const MAX_REASON_LENGTH = 200;
/** The spec sets no bound on messages; 64 KiB like deep-dive sections keeps one event sane. */
export const MAX_MESSAGE_LENGTH = 65536;
export const MAX_SECTION_LENGTH = 65536;
