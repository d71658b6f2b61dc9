import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { FlowStatusEnvelope } from '../../projections/flow/index.js';
import { DD, flowWorkspace, O, runTo, status, TF, type FlowWs } from '../helpers/flow-cli.js';
import { removeTempDirs } from '../helpers/workspace.js';
import { expectRefused } from './refusal-helper.js';

/**
 * `baton flow adopt` takes over runs Agent Flow's own scripts wrote (written by hand here
 * in its documented format); going on with `flow update` reaches the same states as a flow run in
 * Baton from the start.
 */
afterAll(removeTempDirs);

const SEQUENTIAL_MID_RUN = `---
active: true
current_phase: "implementation"
iteration: 1
max_iterations: 10
codex_divergence_rounds: 1
started_at: "2024-01-15T10:30:00Z"
task: "Add user authentication with JWT tokens"
task_complexity: "complex"
report_requested: false
intent:
  goal: "ship login"
  description: ""
deep_dive:
  available: false
  using: false
gates:
  exploration:
    status: "passed"
    timestamp: "2024-01-15T10:31:00Z"
    agent: "Riko"
    message: "Exploration complete"
  planning:
    status: "passed"
    timestamp: "2024-01-15T10:35:00Z"
    agent: "Senku"
    message: "Plan created with 5 steps"
  implementation:
    status: "in_progress"
    timestamp: "2024-01-15T10:40:00Z"
    agent: "Loid"
  review:
    status: "pending"
  verification:
    status: "pending"
---

## Orchestration Log

### Session Started
- Task: "Add user authentication with JWT tokens"

---

### Phase: Exploration
- Agent: Riko
- Status: PASSED
`;

const TEAM_IN_GROUP = `---
active: true
current_phase: "review_verification"
iteration: 1
max_iterations: 10
started_at: "2024-01-15T10:30:00Z"
task: "Add user authentication with JWT tokens"
mode: "team"
team_available: true
deep_dive:
  available: true
  using: false
  scope: "full"
  generated: "2024-01-14T15:00:00Z"
parallel_groups:
  review_verification:
    status: "in_progress"
    started_at: "2024-01-15T10:45:00Z"
    completed_at: ""
    review:
      status: "passed"
      agent: "Lawliet"
      timestamp: "2024-01-15T10:46:30Z"
      result: "APPROVED"
    verification:
      status: "in_progress"
      agent: "Alphonse"
      timestamp: "2024-01-15T10:45:15Z"
      result: ""
gates:
  exploration:
    status: "passed"
    timestamp: "2024-01-15T10:31:00Z"
  planning:
    status: "passed"
    timestamp: "2024-01-15T10:35:00Z"
  implementation:
    status: "passed"
    timestamp: "2024-01-15T10:44:00Z"
  review_verification:
    status: "in_progress"
    timestamp: "2024-01-15T10:45:00Z"
  review:
    status: "passed"
    timestamp: "2024-01-15T10:46:30Z"
  verification:
    status: "in_progress"
    timestamp: "2024-01-15T10:45:15Z"
---

## Team Orchestration Log
`;

const DEEP_DIVE_COMPLETE = `---
generated: "2024-01-14T15:00:00Z"
scope: "full"
focus_path: null
expires_hint: "refresh when codebase significantly changes"
phase: "complete"
agent_count: 5
phases:
  parallel_exploration:
    status: "complete"
    agents_spawned: 5
    agents_completed: 5
  synthesis:
    status: "complete"
  compilation:
    status: "complete"
---

# Deep-Dive Context

## Repository Overview
- **Tech stack**: TypeScript, Node.js
- **Entry points**: src/index.ts
- **Key patterns**: Event sourcing

## Architecture Map

| Component | Location |
|-----------|----------|
| CLI | src/cli/ |

## Conventions

### Naming
- Files: kebab-case

## Anti-Patterns (DO NOT)

- Do not use \`any\`

## Key Files Quick Reference

| Task | Look Here |
|------|-----------|
| Add command | src/cli/commands/ |

## Agent Notes

### Testing
- vitest

## Team Notes

Ask Ana before touching billing.
`;

/** A flow's state without what differs between two runs by construction (ids, times). */
function comparable(env: FlowStatusEnvelope): unknown {
  const f = env.flow;
  if (f === null) return null;
  const gates = Object.fromEntries(Object.entries(f.gates).map(([p, g]) => [p, { status: g.status, agent: g.agent, message: g.message }]));
  const group = f.parallel_groups?.review_verification;
  return {
    variant: f.variant,
    status: f.status,
    active: f.active,
    current_phase: f.current_phase,
    ended_in_phase: f.ended_in_phase,
    iteration: f.iteration,
    max_iterations: f.max_iterations,
    next_phase: f.next_phase,
    abort_reason: f.abort_reason,
    task: f.task,
    mode: f.mode,
    team_available: f.team_available,
    deep_dive: { available: f.deep_dive.available, using: f.deep_dive.using, scope: f.deep_dive.scope },
    gates,
    fields: f.fields,
    group:
      group === undefined
        ? null
        : {
            status: group.status,
            review: { status: group.review.status, result: group.review.result },
            verification: { status: group.verification.status, result: group.verification.result },
          },
    last_merge: f.last_merge,
  };
}

function withFiles(w: FlowWs, files: Record<string, string>): void {
  mkdirSync(join(w.ws, '.claude'), { recursive: true });
  for (const [rel, text] of Object.entries(files)) writeFileSync(join(w.ws, rel), text);
}

describe('baton flow adopt', () => {
  it('a sequential mid-run file, then flow update, reaches the same states as the whole flow run in Baton', async () => {
    const adopted = await flowWorkspace();
    withFiles(adopted, { [O]: SEQUENTIAL_MID_RUN });
    // Next to an unrecorded run, status says how to take it over; init refuses to move it away.
    const hint = status(await adopted.f(['status']));
    expect(hint.flow).toBeNull();
    expect(hint.warnings).toEqual([
      `${O} holds an Agent Flow run (phase: implementation) that Baton has not recorded; take it over with: baton flow adopt --file ${O}`,
    ]);
    await expectRefused(adopted, () => adopted.f(['init', 'other']), 'FLOW_ACTIVE', /baton flow adopt/);

    const a = status(await adopted.f(['adopt'], { at: '10:50' }));
    expect(adopted.read(`${O}.bak.20240115105000`)).toBe(SEQUENTIAL_MID_RUN);
    const events = adopted.events();
    expect(events[0]!.type).toBe('flow.started');
    expect(events[0]!.data).toMatchObject({ adopted_from: { file: O, started_at: '2024-01-15T10:30:00.000Z' } });
    expect(a.flow?.started_at).toBe('2024-01-15T10:30:00.000Z');

    const baton = await flowWorkspace();
    status(await baton.f(['init', 'Add', 'user', 'authentication', 'with', 'JWT', 'tokens'], { at: '10:30' }));
    status(await baton.f(['update', '--set-task-complexity', 'complex', '--set-codex-divergence-rounds', '1', '--set-intent-goal', 'ship login']));
    status(await baton.f(['update', '--phase', 'planning', '--gate-result', 'passed', '--agent', 'Riko', '--message', 'Exploration complete']));
    const b = status(
      await baton.f(['update', '--phase', 'implementation', '--gate-result', 'passed', '--agent', 'Senku', '--message', 'Plan created with 5 steps']),
    );
    expect(comparable(a)).toEqual(comparable(b));

    const steps = [
      ['update', '--phase', 'review', '--gate-result', 'passed', '--agent', 'Loid'],
      ['update', '--gate-result', 'failed', '--agent', 'Lawliet', '--message', 'NEEDS_CHANGES'],
      ['update', '--phase', 'review', '--gate-result', 'passed', '--agent', 'Loid'],
      ['update', '--phase', 'verification', '--gate-result', 'passed', '--agent', 'Lawliet'],
      ['update', '--phase', 'complete', '--gate-result', 'passed', '--agent', 'Alphonse'],
    ];
    for (const args of steps) expect(comparable(status(await adopted.f(args)))).toEqual(comparable(status(await baton.f(args))));
    expect(adopted.front(O)).toMatchObject({ active: false, outcome: 'complete', iteration: 2, task_complexity: 'complex' });
  });

  it('a team file inside the parallel group, with its deep dive, then flow update and merge, reaches the same states', async () => {
    const env = { CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: '1' };
    const adopted = await flowWorkspace();
    withFiles(adopted, { [TF]: TEAM_IN_GROUP, [DD]: DEEP_DIVE_COMPLETE });
    const a = status(await adopted.f(['adopt'], { at: '10:50' }));

    const baton = await flowWorkspace();
    await baton.d(['init'], { at: '10:00' });
    await baton.d(['compile', '--mark-complete'], { at: '10:01' });
    status(await baton.f(['init', '--team', 'Add', 'user', 'authentication', 'with', 'JWT', 'tokens'], { at: '10:30', env }));
    await runTo(baton, 'review_verification', 'team');
    await baton.f(['update', '--parallel-group', 'review_verification', '--teammate', 'verification', '--gate-result', 'in_progress']);
    const b = status(
      await baton.f(['update', '--parallel-group', 'review_verification', '--teammate', 'review', '--gate-result', 'passed', '--message', 'APPROVED']),
    );
    const gatesOnly = (e: FlowStatusEnvelope): unknown => {
      const c = comparable(e) as { gates: Record<string, { status: string }>; deep_dive: unknown };
      // Agent and message are not part of the team file's gates (§7.3), so an adopted team run has the phase's own.
      return { ...c, gates: Object.fromEntries(Object.entries(c.gates).map(([p, g]) => [p, g.status])), deep_dive: null };
    };
    expect(gatesOnly(a)).toEqual(gatesOnly(b));
    expect(a.flow?.deep_dive).toMatchObject({ available: true, using: false, scope: 'full' });

    for (const args of [
      ['update', '--parallel-group', 'review_verification', '--teammate', 'verification', '--gate-result', 'passed', '--message', 'VERIFIED'],
      ['merge'],
      ['update', '--phase', 'complete', '--gate-result', 'passed', '--agent', 'Orchestrator'],
    ]) {
      const ra = await adopted.f(args);
      const rb = await baton.f(args);
      expect(ra.code).toBe(0);
      expect(rb.code).toBe(0);
      if (args[0] !== 'merge') expect(gatesOnly(status(ra))).toEqual(gatesOnly(status(rb)));
    }
    expect(adopted.front(TF)).toMatchObject({ active: false, outcome: 'complete' });

    // The deep dive came over too: complete, its sections and the section Baton does not own.
    const dd = adopted.read(DD);
    expect(adopted.front(DD)).toMatchObject({
      phase: 'complete',
      scope: 'full',
      agent_count: 5,
      phases: { parallel_exploration: { agents_spawned: 5, agents_completed: 5 } },
    });
    expect(dd).toContain('- **Tech stack**: TypeScript, Node.js');
    expect(dd).toContain('### Naming\n- Files: kebab-case');
    expect(dd).toContain('## Team Notes\n\nAsk Ana before touching billing.\n');
    const init = status(await adopted.f(['init', '--use-deep-dive', 'next'], { at: '11:00' }));
    expect(init.flow?.deep_dive).toMatchObject({ available: true, using: true });
  });

  it('a malformed or impossible file is refused naming the key; nothing appended, no file changed', async () => {
    const w = await flowWorkspace();
    withFiles(w, { [O]: SEQUENTIAL_MID_RUN.replace('iteration: 1', 'iteration: "two"') });
    await expectRefused(w, () => w.f(['adopt']), 'INVALID_INPUT', new RegExp(`^\\${O.slice(0, 1)}claude/orchestration.local.md: key 'iteration'`));
    withFiles(w, { [O]: SEQUENTIAL_MID_RUN.replace('  planning:\n    status: "passed"', '  planning:\n    status: "pending"') });
    await expectRefused(w, () => w.f(['adopt']), 'INVALID_INPUT', /key 'gates.planning.status'/);
    withFiles(w, { [O]: SEQUENTIAL_MID_RUN.replace('task_complexity: "complex"', 'task_complexity: "huge"') });
    await expectRefused(w, () => w.f(['adopt']), 'INVALID_INPUT', /key 'task_complexity'/);
    withFiles(w, { [O]: SEQUENTIAL_MID_RUN, [DD]: DEEP_DIVE_COMPLETE.replace('scope: "full"', 'scope: "partial"') });
    await expectRefused(w, () => w.f(['adopt']), 'INVALID_INPUT', /deep-dive.local.md: key 'scope'/);
    expect(w.events()).toEqual([]);
  });

  it('--use-deep-dive without a deep dive warns once (stderr in human mode, never repeated on stdout)', async () => {
    const w = await flowWorkspace();
    const r = await w.run(['--human', 'flow', 'init', '--use-deep-dive', 'x']);
    expect(r.code).toBe(0);
    const text = 'Deep-dive context requested but not available; continuing without it.';
    expect(r.stderr.split(text).length - 1).toBe(1);
    expect(r.stdout).not.toContain(text);
  });
});
