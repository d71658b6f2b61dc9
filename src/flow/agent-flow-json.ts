/**
 * JSON on one line with a space after every `:` and `,` — the spacing Agent Flow's
 * `merge-parallel-results.sh` prints, which its `team-orchestrate.md` reads back with a `sed` that
 * expects `"summary": "…"`. Strings use JSON.stringify's escapes, so the line still parses.
 */
export function agentFlowJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(agentFlowJson).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${agentFlowJson(v)}`).join(', ')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
