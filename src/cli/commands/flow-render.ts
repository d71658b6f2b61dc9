import type { DeepDiveStatusEnvelope, FlowMergeEnvelope, FlowStatusEnvelope } from '../../../projections/flow/index.js';

/** Human text for the flow envelopes. */
export function humanFlowStatus(env: FlowStatusEnvelope): string {
  const f = env.flow;
  // Warnings go to stderr once, from the command (ctx.output.warn), never again in this text.
  if (f === null) return 'No flow recorded.';
  const lines = [
    `Flow ${f.flow_id} (${f.variant}, ${f.mode}): ${f.status}`,
    `  phase: ${f.current_phase}${f.next_phase ? ` (next: ${f.next_phase})` : ''}   iteration: ${f.iteration}/${f.max_iterations}`,
    `  task: ${JSON.stringify(f.task)}`,
  ];
  for (const [phase, gate] of Object.entries(f.gates)) lines.push(`  ${phase.padEnd(20)} ${gate.status}${gate.agent ? ` by ${gate.agent}` : ''}`);
  if (f.abort_reason) lines.push(`  aborted: ${f.abort_reason}`);
  if (env.state_file) lines.push(`  state file: ${env.state_file}`);
  return lines.join('\n');
}

export function humanFlowMerge(env: FlowMergeEnvelope): string {
  return `${env.summary}${env.recorded ? '' : ' (provisional, not recorded)'}`;
}

export function humanDeepDive(env: DeepDiveStatusEnvelope): string {
  const d = env.deep_dive;
  const lines = [
    `Deep dive ${d.deep_dive_id}: ${d.phase} (scope: ${d.scope}${d.focus_path ? ` ${d.focus_path}` : ''}, agents: ${d.agent_count})`,
    `  state file: ${env.state_file}`,
  ];
  if (env.backup_path) lines.push(`  backup: ${env.backup_path}`);
  return lines.join('\n');
}
