import { GateStatus, PHASE_TITLE, Phase, VARIANT_GATES, Variant, type GateStatus as GateStatusT } from '../../events/flow/vocabulary.js';
import type { FlowContext, Gate, SubPhase } from '../../machines/flow-context.js';
import { withExtraKeys } from './extra-keys.js';
import type { Entry } from './flow-entries.js';
import type { FlowRecord } from './flow-state.js';
import { fileTime, oneLine, stateFile } from './render-text.js';

/** The two flow state files (§7.2, §7.3, §7.4), rendered from a folded flow. */
export const STATE_FILE = {
  orchestrate: '.claude/orchestration.local.md',
  team: '.claude/team-orchestration.local.md',
} as const satisfies Record<Variant, string>;

const STATUS_WORD: Record<GateStatusT, string> = { pending: 'PENDING', in_progress: 'IN PROGRESS', passed: 'PASSED', failed: 'FAILED', skipped: 'SKIPPED' };

function deepDiveFront(ctx: FlowContext): Record<string, unknown> {
  const dd = ctx.deep_dive;
  return { available: dd.available, using: dd.using, scope: dd.scope ?? '', generated: dd.generated === null ? '' : fileTime(dd.generated) };
}

function gateFront(gate: Gate | undefined, variant: Variant): Record<string, unknown> {
  if (gate === undefined || gate.status === GateStatus.pending) return { status: GateStatus.pending };
  const out: Record<string, unknown> = { status: gate.status, timestamp: gate.timestamp === null ? '' : fileTime(gate.timestamp) };
  if (variant === Variant.team) return out;
  out['agent'] = gate.agent ?? '';
  if (gate.message !== null) out['message'] = gate.message;
  return out;
}

function subFront(sub: SubPhase): Record<string, unknown> {
  return { status: sub.status, agent: sub.agent, timestamp: sub.timestamp === null ? '' : fileTime(sub.timestamp), result: sub.result ?? '' };
}

/**
 * The frontmatter object, keys in Agent Flow's (v1.5+) order: the documented keys keep their
 * relative order, `codex_divergence_rounds` follows `max_iterations`, `task_complexity`,
 * `report_requested` and `intent` follow `task`, and the detector blocks (`graph`, `personal_kb`,
 * `codex`, `agentsview`) follow `deep_dive`. The keys Baton does not know are kept where the file
 * had them (extra-keys.ts).
 */
export function flowFrontmatter(ctx: FlowContext): Record<string, unknown> {
  const f = ctx.fields;
  const front: Record<string, unknown> = {
    active: ctx.status === 'active',
    current_phase: ctx.current_phase,
    iteration: ctx.iteration,
    max_iterations: ctx.max_iterations,
    codex_divergence_rounds: f.codex_divergence_rounds,
    started_at: fileTime(ctx.started_at),
    task: ctx.task,
    task_complexity: f.task_complexity,
    report_requested: f.report_requested,
    intent: { ...f.intent },
  };
  if (ctx.variant === Variant.team) {
    front['mode'] = ctx.mode;
    front['team_available'] = ctx.team_available ?? false;
  }
  front['deep_dive'] = deepDiveFront(ctx);
  front['graph'] = { ...f.graph };
  front['personal_kb'] = { ...f.personal_kb };
  front['codex'] = { ...f.codex };
  front['agentsview'] = { ...f.agentsview };
  if (ctx.variant === Variant.team && ctx.group !== null) {
    const g = ctx.group;
    front['parallel_groups'] = {
      review_verification: {
        status: g.status,
        started_at: g.started_at === null ? '' : fileTime(g.started_at),
        completed_at: g.completed_at === null ? '' : fileTime(g.completed_at),
        review: subFront(g.review),
        verification: subFront(g.verification),
      },
    };
  }
  const gates: Record<string, unknown> = {};
  for (const phase of VARIANT_GATES[ctx.variant]) gates[phase] = gateFront(ctx.gates[phase], ctx.variant);
  front['gates'] = gates;
  if (ctx.status !== 'active') front['outcome'] = ctx.status;
  if (ctx.status === 'aborted') front['abort_reason'] = ctx.abort_reason ?? '';
  return ctx.extra_keys.length === 0 ? front : withExtraKeys(front, ctx.extra_keys);
}

function deepDiveLine(ctx: FlowContext): string {
  const dd = ctx.deep_dive;
  if (dd.using) return `Using (scope: ${oneLine(dd.scope ?? '')}, generated: ${dd.generated === null ? '' : fileTime(dd.generated)})`;
  if (dd.available) return ctx.variant === Variant.team ? 'Available but not requested' : 'Available but not requested (use --use-deep-dive)';
  if (dd.requested) return 'Requested but not available';
  return 'Not available';
}

function iterationSuffix(iteration: number): string {
  return iteration >= 2 ? ` (Iteration ${iteration})` : '';
}

function entryLines(entry: Entry): string[] {
  switch (entry.kind) {
    case 'phase': {
      const lines = [
        `### Phase: ${PHASE_TITLE[entry.phase]}${iterationSuffix(entry.iteration)}`,
        `- Agent: ${entry.agent}`,
        `- Status: ${STATUS_WORD[entry.status]}`,
      ];
      lines.push(entry.status === GateStatus.in_progress ? `- Started: ${fileTime(entry.at)}` : `- Timestamp: ${fileTime(entry.at)}`);
      if (entry.message !== null) lines.push(`- Message: ${oneLine(entry.message)}`);
      for (const e of entry.earlier) lines.push(`- Earlier: FAILED at ${fileTime(e.at)}${e.message === null ? '' : `: ${oneLine(e.message)}`}`);
      return lines;
    }
    case 'group': {
      const lines = [
        `### Phase: ${PHASE_TITLE[Phase.review_verification]}${iterationSuffix(entry.iteration)}`,
        `- Started: ${fileTime(entry.started_at)}`,
        '- Mode: team',
      ];
      if (entry.merged !== null) {
        lines.push(
          `- Status: ${STATUS_WORD[entry.merged.status]}`,
          `- Completed: ${fileTime(entry.merged.completed_at)}`,
          `- Summary: ${oneLine(entry.merged.summary)}`,
        );
      }
      for (const [title, sub] of [
        ['Review (Lawliet)', entry.review],
        ['Verification (Alphonse)', entry.verification],
      ] as const) {
        lines.push('', `#### ${title}`, `- Status: ${STATUS_WORD[sub.status]}`);
        if (sub.status === GateStatus.pending || sub.at === null) continue;
        lines.push(sub.status === GateStatus.in_progress ? `- Started: ${fileTime(sub.at)}` : `- Timestamp: ${fileTime(sub.at)}`);
        if (sub.result !== null && sub.result !== '') lines.push(`- Result: ${oneLine(sub.result)}`);
      }
      return lines;
    }
    case 'iteration':
      return [`### Iteration ${entry.iteration}`, `- Reason: ${entry.failed_phase} failed`, `- Timestamp: ${fileTime(entry.at)}`];
    case 'mode':
      return [
        '### Mode Changed',
        '- From: team',
        '- To: sequential',
        `- Timestamp: ${fileTime(entry.at)}`,
        ...(entry.message === null ? [] : [`- Message: ${oneLine(entry.message)}`]),
      ];
    case 'complete':
      return [
        '### Orchestration Complete',
        `- Agent: ${entry.agent}`,
        `- Timestamp: ${fileTime(entry.at)}`,
        ...(entry.message === null ? [] : [`- Message: ${oneLine(entry.message)}`]),
      ];
    case 'abort':
      return [
        '### Orchestration Aborted',
        `- Reason: ${oneLine(entry.reason)}`,
        `- Timestamp: ${fileTime(entry.at)}`,
        ...(entry.message === null ? [] : [`- Message: ${oneLine(entry.message)}`]),
      ];
    case 'message':
      return [
        `### Message${iterationSuffix(entry.iteration)}`,
        `- Phase: ${PHASE_TITLE[entry.phase]}`,
        ...(entry.agent === null ? [] : [`- Agent: ${entry.agent}`]),
        `- Timestamp: ${fileTime(entry.at)}`,
        `- Message: ${oneLine(entry.message)}`,
      ];
  }
}

/** The whole state file of a flow. */
export function renderFlowFile(record: FlowRecord): string {
  const ctx = record.context;
  const team = ctx.variant === Variant.team;
  const body: string[] = [
    team ? '## Team Orchestration Log' : '## Orchestration Log',
    '',
    '### Session Started',
    `- Task: ${JSON.stringify(ctx.task)}`,
    `- Max Iterations: ${ctx.max_iterations}`,
  ];
  if (team) body.push(`- Mode: ${record.start_mode}`, `- Team Available: ${String(ctx.team_available ?? false)}`);
  // No body line is exactly `---`: Agent Flow's scripts read the frontmatter with
  // `sed -n '/^---$/,/^---$/p'`, a range that would start again at such a line and run to the end.
  body.push(`- Started: ${fileTime(ctx.started_at)}`, `- Deep-Dive Context: ${deepDiveLine(ctx)}`, '', '***');
  for (const entry of record.entries) body.push('', ...entryLines(entry));
  return stateFile(flowFrontmatter(ctx), body);
}
