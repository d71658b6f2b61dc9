import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FlowWs } from '../helpers/flow-cli.js';

/**
 * Agent Flow v1.9's behaviour on its state files, reproduced from what its documentation and its
 * scripts' options say (written here, not copied): its update script takes `--phase`,
 * `--gate-result`, `--agent`, `--message`, `--parallel-group`, `--teammate`, `--merge-parallel` and
 * `--complete`; it edits the frontmatter key by key (the current gate's status, a teammate's status,
 * time and result, the merge's verdict on the group and its gate, `active: false` and
 * `current_phase: complete` at the end of a run) and, when it is given an agent or a message,
 * appends an entry to the log below the frontmatter. Its init writes a `personal_kb` block with a
 * `communities` key.
 */
export const UPDATE_SCRIPT = String.raw`
set -eu
FILE="$1"; shift
PHASE=; RESULT=; AGENT=; MESSAGE=; GROUP=; MATE=; MERGE=; COMPLETE=
while [ $# -gt 0 ]; do
  case "$1" in
    --phase) PHASE="$2"; shift 2 ;;
    --gate-result) RESULT="$2"; shift 2 ;;
    --agent) AGENT="$2"; shift 2 ;;
    --message) MESSAGE="$2"; shift 2 ;;
    --parallel-group) GROUP="$2"; shift 2 ;;
    --teammate) MATE="$2"; shift 2 ;;
    --merge-parallel) MERGE=1; shift ;;
    --complete) COMPLETE=1; shift ;;
    *) echo "unknown option $1" >&2; exit 1 ;;
  esac
done
NOW="$AF_NOW"
front() { sed -n '2,/^---$/p' "$FILE"; }
CURRENT=$(front | grep '^current_phase:' | sed 's/^current_phase: *//; s/"//g')
mate_status() {
  front | awk -v mate="$1" '/^parallel_groups:/ { g = 1 } g && $0 ~ "^    " mate ":$" { m = 1; next } m && /^      status:/ { gsub(/["]/, ""); print $2; exit }'
}
VERDICT=
if [ -n "$MERGE" ]; then
  if [ "$(mate_status review)" = passed ] && [ "$(mate_status verification)" = passed ]; then VERDICT=passed; else VERDICT=failed; fi
fi
awk -v cur="$CURRENT" -v phase="$PHASE" -v result="$RESULT" -v group="$GROUP" -v mate="$MATE" \
    -v verdict="$VERDICT" -v complete="$COMPLETE" -v now="$NOW" -v msg="$MESSAGE" '
  NR == 1 { print; next }
  !closed && /^---$/ { closed = 1; print; next }
  !closed && /^ *[A-Za-z_]+:/ {
    indent = match($0, /[^ ]/) - 1; level = indent / 2
    key = substr($0, indent + 1); sub(/:.*/, "", key)
    path[level] = key; full = path[0]; for (i = 1; i <= level; i++) full = full "." path[i]
    v = ""; rv = "parallel_groups.review_verification"
    if (full == "current_phase" && complete) v = "\"complete\""
    else if (full == "current_phase" && phase != "") v = "\"" phase "\""
    else if (full == "active" && complete) v = "false"
    else if (full == "gates." cur ".status" && result != "" && group == "") v = "\"" result "\""
    else if (mate != "" && full == rv "." mate ".status" && result != "") v = "\"" result "\""
    else if (mate != "" && full == rv "." mate ".timestamp") v = "\"" now "\""
    else if (mate != "" && full == rv "." mate ".result" && msg != "") v = "\"" msg "\""
    else if (verdict != "" && (full == rv ".status" || full == "gates.review_verification.status")) v = "\"" verdict "\""
    if (v != "") { print substr($0, 1, indent) key ": " v; next }
  }
  { print }
' "$FILE" > "$FILE.af.$$"
if [ -n "$AGENT$MESSAGE" ]; then
  if [ -n "$MATE" ]; then TITLE="Teammate: $MATE"
  elif [ -n "$GROUP" ]; then TITLE="Parallel group: $GROUP"
  elif [ -n "$COMPLETE" ]; then TITLE="Phase: complete"
  else TITLE="Phase: \${PHASE:-$CURRENT}"; fi
  {
    printf '\n### %s\n' "$TITLE"
    [ -z "$AGENT" ] || printf -- '- Agent: %s\n' "$AGENT"
    [ -z "$MESSAGE" ] || printf -- '- Message: %s\n' "$MESSAGE"
    [ -z "$RESULT" ] || printf -- '- Gate: %s\n' "$RESULT"
    printf -- '- Time: %s\n' "$NOW"
  } >> "$FILE.af.$$"
fi
mv "$FILE.af.$$" "$FILE"
`.replace(/\\\$\{/g, '${');

/** Run the update script on a state file at `now` (`HH:MM` on 2024-01-15, like the CLI shorthand). */
export function agentFlowUpdate(w: FlowWs, file: string, now: string, ...args: string[]): void {
  execFileSync('sh', ['-c', UPDATE_SCRIPT, 'update-state', join(w.ws, file), ...args], {
    encoding: 'utf8',
    env: { ...process.env, AF_NOW: `2024-01-15T${now}:00Z` },
  });
}

export function sh(w: FlowWs, command: string): string {
  return execFileSync('sh', ['-c', command], { cwd: w.ws, encoding: 'utf8' });
}

export function withFiles(w: FlowWs, files: Record<string, string>): void {
  mkdirSync(join(w.ws, '.claude'), { recursive: true });
  for (const [rel, text] of Object.entries(files)) writeFileSync(join(w.ws, rel), text);
}

interface Gate {
  status: string;
  timestamp?: string;
  agent?: string;
  message?: string;
  /** A key of the gate Baton does not know. */
  notes?: string;
}

/**
 * A state file as v1.9's init and update scripts leave it mid-run: the documented keys, the v1.5+
 * blocks, `personal_kb.communities`, and `workflow_version`, a key no Baton version knows.
 */
export function v19File(o: { phase: string; iteration?: number; active?: boolean; gates: Record<string, Gate>; team?: boolean; group?: string }): string {
  const gate = (name: string, g: Gate): string =>
    [
      `  ${name}:`,
      `    status: "${g.status}"`,
      ...(g.timestamp === undefined ? [] : [`    timestamp: "${g.timestamp}"`]),
      ...(g.agent === undefined ? [] : [`    agent: "${g.agent}"`]),
      ...(g.message === undefined ? [] : [`    message: "${g.message}"`]),
      ...(g.notes === undefined ? [] : [`    notes: "${g.notes}"`]),
    ].join('\n');
  return [
    '---',
    `active: ${String(o.active ?? true)}`,
    `current_phase: "${o.phase}"`,
    `iteration: ${o.iteration ?? 1}`,
    'max_iterations: 10',
    'codex_divergence_rounds: 0',
    'started_at: "2024-01-15T10:30:00Z"',
    'task: "Add user authentication with JWT tokens"',
    'workflow_version: "1.9.0"',
    'task_complexity: "complex"',
    'report_requested: false',
    'intent:',
    '  goal: "ship login"',
    '  description: ""',
    '  actions: ""',
    '  constraints: ""',
    '  assumptions: ""',
    ...(o.team ? ['mode: "team"', 'team_available: true'] : []),
    'deep_dive:',
    '  available: false',
    '  using: false',
    'personal_kb:',
    '  available: true',
    '  path: "~/kb"',
    '  graph_path: "~/kb/graph.json"',
    '  generated: "2024-01-14T09:00:00Z"',
    '  nodes: 120',
    '  edges: 340',
    '  communities: 12',
    ...(o.group === undefined ? [] : [o.group]),
    'gates:',
    ...Object.entries(o.gates).map(([name, g]) => gate(name, g)),
    '---',
    '',
    '## Orchestration Log',
    '',
  ].join('\n');
}
