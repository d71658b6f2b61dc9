import { execFileSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DD, flowWorkspace, O, runTo, status, TF, type FlowWs } from '../helpers/flow-cli.js';
import { removeTempDirs } from '../helpers/workspace.js';

/**
 * Agent Flow's update commands, as the shapes its scripts use — a `sed -n` frontmatter
 * range, `sed -i` key replacement, an `awk` pass over the gates block, a log entry appended to the
 * body — written here as small shell scripts and run against Baton's files. The frontmatter must
 * still parse and every documented check must read right; Baton's next command then takes the edit
 * as a fact, or keeps it aside with a warning when it is not a legal flow step.
 */
afterAll(removeTempDirs);

/** `update-orchestration-state.sh`-like edits, one shell function per documented flag. */
const SCRIPT = String.raw`
set -eu
FILE="$1"; shift
frontmatter() { sed -n '/^---$/,/^---$/p' "$FILE"; }
set_key() { sed -i "s/^$1: .*/$1: $2/" "$FILE"; }
set_gate_status() {
  awk -v phase="$1" -v value="$2" '
    /^gates:/ { in_gates = 1 }
    in_gates && $0 ~ "^  " phase ":$" { target = 1; print; next }
    target && /^    status:/ { print "    status: \"" value "\""; target = 0; next }
    target && /^  [a-z_]+:$/ { target = 0 }
    { print }
  ' "$FILE" > "$FILE.tmp.$$" && mv "$FILE.tmp.$$" "$FILE"
}
log_entry() { printf '\n### Phase: %s\n- Status: %s\n' "$1" "$2" >> "$FILE"; }
while [ $# -gt 0 ]; do
  case "$1" in
    --phase) CURRENT=$(frontmatter | grep '^current_phase:' | sed 's/.*: *//; s/"//g'); NEXT="$2"; shift 2 ;;
    --gate-result) RESULT="$2"; shift 2 ;;
    --set-task-complexity) set_key task_complexity "\"$2\""; shift 2 ;;
    --set-report-requested) set_key report_requested "$2"; shift 2 ;;
    --set-codex-divergence-rounds) set_key codex_divergence_rounds "$2"; shift 2 ;;
    --complete) set_key active false; set_key current_phase '"complete"'; shift ;;
    *) echo "unknown flag $1" >&2; exit 1 ;;
  esac
done
if [ -n "\${RESULT:-}" ]; then
  [ -n "\${CURRENT:-}" ] || CURRENT=$(frontmatter | grep '^current_phase:' | sed 's/.*: *//; s/"//g')
  set_gate_status "$CURRENT" "$RESULT"
fi
if [ -n "\${NEXT:-}" ]; then set_key current_phase "\"$NEXT\""; log_entry "$NEXT" "IN PROGRESS"; fi
`.replace(/\\\$\{/g, '${');

function agentFlow(w: FlowWs, file: string, ...args: string[]): void {
  execFileSync('sh', ['-c', SCRIPT, 'update-state', join(w.ws, file), ...args], { encoding: 'utf8' });
}

function sh(w: FlowWs, command: string): string {
  return execFileSync('sh', ['-c', command], { cwd: w.ws, encoding: 'utf8' });
}

/** The frontmatter exactly as Agent Flow's scripts read it: the `sed -n` range, fences dropped. */
function sedFrontmatter(w: FlowWs, file: string): Record<string, unknown> {
  const range = sh(w, `sed -n '/^---$/,/^---$/p' ${file}`);
  const lines = range.split('\n').filter((l) => l !== '');
  expect(lines[0]).toBe('---');
  expect(lines.at(-1)).toBe('---');
  expect(lines.filter((l) => l === '---')).toHaveLength(2);
  return parse(lines.slice(1, -1).join('\n')) as Record<string, unknown>;
}

const observedBatches = (w: FlowWs): string[][] => {
  const events = w.events();
  return events
    .filter((e) => e.type === 'flow.observed')
    .map((o) => events.filter((e) => e.seq > o.seq && e.actor === o.actor && e.at === o.at).map((e) => e.type));
};

describe("Agent Flow's update scripts on Baton's files", () => {
  it('sequential file: each documented update keeps the frontmatter parseable, the greps right, and becomes a recorded fact', async () => {
    const w = await flowWorkspace();
    status(await w.f(['init', 'Add', 'user', 'auth'], { at: '10:30' }));
    expect(sedFrontmatter(w, O)['current_phase']).toBe('exploration');

    agentFlow(w, O, '--phase', 'planning', '--gate-result', 'passed');
    const front = sedFrontmatter(w, O);
    expect([front['current_phase'], (front['gates'] as Record<string, { status: string }>)['exploration']!.status]).toEqual(['planning', 'passed']);
    expect(sh(w, `grep '^current_phase:' ${O}`)).toBe('current_phase: "planning"\n');
    expect(sh(w, `grep '^iteration:' ${O}`)).toBe('iteration: 1\n');
    expect(sh(w, `grep 'deep_dive:' -A4 ${O}`).split('\n').filter(Boolean)).toHaveLength(5);

    agentFlow(w, O, '--set-task-complexity', 'complex', '--set-report-requested', 'true', '--set-codex-divergence-rounds', '2');
    expect(sedFrontmatter(w, O)['task_complexity']).toBe('complex');
    expect(sh(w, `grep '^task_complexity:' ${O}`)).toBe('task_complexity: "complex"\n');
    expect(sh(w, `grep '^codex_divergence_rounds:' ${O} | sed 's/.*: *//'`)).toBe('2\n');
    expect(sh(w, `grep '^report_requested:' ${O}`)).toBe('report_requested: true\n');

    // The next Baton command reads the edit and records it, attributed to the file.
    const before = w.events().length;
    const s = status(await w.f(['status'], { at: '10:31' }));
    expect(s.warnings).toEqual([]);
    expect(s.flow?.current_phase).toBe('planning');
    expect(s.flow?.gates.exploration?.status).toBe('passed');
    expect([s.flow?.fields.task_complexity, s.flow?.fields.report_requested, s.flow?.fields.codex_divergence_rounds]).toEqual(['complex', true, 2]);
    const added = w.events().slice(before);
    expect(added.map((e) => e.type)).toEqual(['flow.observed', 'flow.fields_set', 'flow.gate_recorded', 'flow.phase_changed']);
    expect(new Set(added.map((e) => e.actor))).toEqual(new Set([`file:${O}`]));
    expect(observedBatches(w)).toHaveLength(1);
    // The file is Baton's rendering again, and Baton goes on from the observed state.
    expect(
      w
        .read(O)
        .split('\n')
        .filter((l) => l === '---'),
    ).toHaveLength(2);
    status(await w.adv('implementation', 'Senku', { at: '10:32' }));
    expect(w.front(O)['current_phase']).toBe('implementation');
    expect(w.front(O)['task_complexity']).toBe('complex');

    // --complete from mid-flow (Agent Flow completes from anywhere) is recorded as the early end it is.
    agentFlow(w, O, '--complete');
    expect(sedFrontmatter(w, O)['active']).toBe(false);
    const ended = status(await w.f(['status'], { at: '10:33' }));
    expect([ended.flow?.status, ended.flow?.ended_in_phase, ended.flow?.gates.implementation?.status]).toEqual(['aborted', 'implementation', 'in_progress']);
  });

  it('an illegal edit or a broken file is kept aside with a warning naming the key, and the file is restored', async () => {
    const w = await flowWorkspace();
    status(await w.f(['init', 'x'], { at: '10:30' }));
    const rendered = w.read(O);
    agentFlow(w, O, '--phase', 'verification', '--gate-result', 'passed');
    const edited = w.read(O);
    const before = w.events().length;
    const s = status(await w.f(['status'], { at: '10:31' }));
    expect(w.events().length).toBe(before);
    expect(s.warnings).toHaveLength(1);
    expect(s.warnings[0]).toContain("key 'current_phase'");
    expect(s.warnings[0]).toContain('.claude/orchestration.local.md.bak.20240115103100');
    expect(w.read(`${O}.bak.20240115103100`)).toBe(edited);
    expect(w.read(O)).toBe(rendered);

    agentFlow(w, O, '--set-task-complexity', 'enormous');
    const bad = status(await w.f(['update', '--gate-result', 'passed'], { at: '10:32' }));
    expect(bad.warnings[0]).toContain("key 'task_complexity'");
    expect(bad.flow?.gates.exploration?.status).toBe('passed');
    expect(w.front(O)['task_complexity']).toBe('unclassified');

    writeFileSync(join(w.ws, O), 'not a state file any more\n');
    const broken = status(await w.f(['status'], { at: '10:33' }));
    expect(broken.warnings[0]).toContain("key '(frontmatter)'");
    expect(w.read(`${O}.bak.20240115103300`)).toBe('not a state file any more\n');
    expect(w.front(O)['current_phase']).toBe('exploration');
    expect(readdirSync(join(w.ws, '.claude')).filter((n) => n.includes('.tmp.'))).toEqual([]);
  });

  it('team file: a teammate result written by a script is recorded; the documented team greps still read right', async () => {
    const w = await flowWorkspace();
    const env = { CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: '1' };
    status(await w.f(['init', '--team', 'x'], { at: '10:30', env }));
    await runTo(w, 'review_verification', 'team');
    // update-team-state.sh --parallel-group review_verification --teammate review --gate-result passed
    sh(
      w,
      `awk '/^    review:$/ { r = 1 } r && /^      status:/ { print "      status: \\"passed\\""; next } r && /^      result:/ { print "      result: \\"APPROVED\\""; r = 0; next } { print }' ${TF} > ${TF}.tmp && mv ${TF}.tmp ${TF}`,
    );
    const front = sedFrontmatter(w, TF) as { parallel_groups: { review_verification: { review: { status: string } } } };
    expect(front.parallel_groups.review_verification.review.status).toBe('passed');
    expect(sh(w, `grep '^mode:' ${TF}`)).toBe('mode: "team"\n');
    expect(sh(w, `grep 'parallel_groups:' -A15 ${TF} | grep -c 'result:'`)).toBe('2\n');
    const s = status(await w.f(['status'], { at: '10:40' }));
    expect(s.warnings).toEqual([]);
    expect(s.flow?.parallel_groups?.review_verification.review).toMatchObject({ status: 'passed', result: 'APPROVED' });
    expect(
      w
        .events()
        .filter((e) => e.type === 'flow.teammate_recorded')
        .at(-1)?.actor,
    ).toBe(`file:${TF}`);
  });

  it('deep dive: sections another tool added are carried through compile; edits of owned sections are recorded', async () => {
    const w = await flowWorkspace();
    await w.d(['init'], { at: '10:00' });
    await w.d(['compile', '--conventions', 'Use kebab-case files'], { at: '10:01' });
    sh(
      w,
      `printf '## Team Notes\\n\\nAsk Ana before touching billing.\\n\\n' > notes && awk '/^## Deep-Dive Log$/ { system("cat notes") } { print }' ${DD} > ${DD}.tmp && mv ${DD}.tmp ${DD}`,
    );
    sh(w, `sed -i 's/^Use kebab-case files$/Use kebab-case files and ESM imports/' ${DD}`);
    const r = await w.d(['compile', '--tech-stack', 'TypeScript', '--mark-complete'], { at: '10:02' });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const body = w.read(DD);
    expect(body).toContain('## Team Notes\n\nAsk Ana before touching billing.\n');
    expect(body).toContain('Use kebab-case files and ESM imports');
    expect(body).toContain('- **Tech stack**: TypeScript');
    expect(sh(w, `grep '^phase:' ${DD}`)).toBe('phase: "complete"\n');
    const observed = w.events().filter((e) => e.type === 'deep_dive.compiled' && e.actor === `file:${DD}`);
    expect(observed).toHaveLength(1);
    // A later compile keeps the carried section.
    await w.d(['compile', '--agent-notes', 'x'], { at: '10:03' });
    expect(w.read(DD)).toContain('## Team Notes');
  });
});
