import { mkdirSync, rmSync, statSync, writeFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { errorEnvelopeOf } from '../helpers/cli.js';
import { AGENT_FLOW_DEFAULT_KEYS, flowWorkspace, O, runTo, status, TF } from '../helpers/flow-cli.js';
import { removeTempDirs } from '../helpers/workspace.js';
import { expectRefused, expectUnchanged } from './refusal-helper.js';

afterAll(removeTempDirs);

const grep = (args: string[], file: string): string => execFileSync('grep', [...args, file], { encoding: 'utf8' });

const SPEC_O = `---
active: true
current_phase: "implementation"
iteration: 1
max_iterations: 10
codex_divergence_rounds: 0
started_at: "2024-01-15T10:30:00Z"
task: "Add user authentication with JWT tokens"
task_complexity: "unclassified"
report_requested: false
intent:
  goal: ""
  description: ""
  actions: ""
  constraints: ""
  assumptions: ""
deep_dive:
  available: true
  using: false
  scope: "full"
  generated: "2024-01-14T15:00:00Z"
graph:
  available: false
  path: ""
  generated: ""
  nodes: 0
  edges: 0
  communities: 0
personal_kb:
  available: false
  path: ""
  graph_path: ""
  generated: ""
  nodes: 0
  edges: 0
codex:
  available: false
  binary: ""
  auth_present: false
agentsview:
  available: false
  binary: ""
  archive_reachable: false
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
    timestamp: "2024-01-15T10:35:00Z"
    agent: "Loid"
  review:
    status: "pending"
  verification:
    status: "pending"
---

## Orchestration Log

### Session Started
- Task: "Add user authentication with JWT tokens"
- Max Iterations: 10
- Started: 2024-01-15T10:30:00Z
- Deep-Dive Context: Available but not requested (use --use-deep-dive)

***

### Phase: Exploration
- Agent: Riko
- Status: PASSED
- Timestamp: 2024-01-15T10:31:00Z
- Message: Exploration complete

### Phase: Planning
- Agent: Senku
- Status: PASSED
- Timestamp: 2024-01-15T10:35:00Z
- Message: Plan created with 5 steps

### Phase: Implementation
- Agent: Loid
- Status: IN PROGRESS
- Started: 2024-01-15T10:35:00Z
`;

/** The commands of §7.2 (F06). */
async function documented() {
  const w = await flowWorkspace();
  expect((await w.d(['init'], { at: '2024-01-14T14:00:00.000Z' })).code).toBe(0);
  expect((await w.d(['compile', '--mark-complete'], { at: '2024-01-14T15:00:00.000Z' })).code).toBe(0);
  status(await w.f(['init', 'Add', 'user', 'authentication', 'with', 'JWT', 'tokens'], { at: '10:30' }));
  status(await w.f(['update', '--phase', 'planning', '--gate-result', 'passed', '--agent', 'Riko', '--message', 'Exploration complete'], { at: '10:31' }));
  status(
    await w.f(['update', '--phase', 'implementation', '--gate-result', 'passed', '--agent', 'Senku', '--message', 'Plan created with 5 steps'], {
      at: '10:35',
    }),
  );
  return w;
}

async function started(args: string[] = ['Add', 'user', 'auth']) {
  const w = await flowWorkspace();
  status(await w.f(['init', ...args], { at: '10:30' }));
  return w;
}

describe.concurrent('sequential flows (phase-gates.md §10)', () => {
  it('F01 — sequential init', async () => {
    const w = await flowWorkspace();
    const s = status(await w.f(['init', 'Add', 'user', 'auth'], { at: '10:30' }));
    expect(s.flow?.variant).toBe('orchestrate');
    expect(s.flow?.status).toBe('active');
    expect(s.state_file).toBe(O);
    expect(w.front(O)).toEqual({
      active: true,
      current_phase: 'exploration',
      iteration: 1,
      max_iterations: 10,
      started_at: '2024-01-15T10:30:00Z',
      task: 'Add user auth',
      deep_dive: { available: false, using: false, scope: '', generated: '' },
      // Agent Flow's v1.5+ keys, with their defaults.
      ...AGENT_FLOW_DEFAULT_KEYS,
      gates: {
        exploration: { status: 'in_progress', timestamp: '2024-01-15T10:30:00Z', agent: 'Riko' },
        planning: { status: 'pending' },
        implementation: { status: 'pending' },
        review: { status: 'pending' },
        verification: { status: 'pending' },
      },
    });
    expect(w.body(O)).toContain('- Deep-Dive Context: Not available');
    expect(w.body(O)).toContain('### Phase: Exploration\n- Agent: Riko\n- Status: IN PROGRESS');
    expect(w.exists(TF)).toBe(false);
  });

  it('F02 — init refusals', async () => {
    const w = await flowWorkspace();
    const none = await w.f(['init']);
    expect(none.code).toBe(2);
    expect(errorEnvelopeOf(none).message).toBe('No task description provided');
    expect(w.exists('.claude')).toBe(false);
    for (const args of [
      ['--max-iterations', 'abc', 'x'],
      ['--max-iterations', '0', 'x'],
      ['--bogus', 'x'],
    ]) {
      await expectRefused(w, () => w.f(['init', ...args]), 'INVALID_INPUT');
    }
    expect(status(await w.f(['init', '--max-iterations', '20', 'x'])).flow?.max_iterations).toBe(20);
    expect(w.front(O)['max_iterations']).toBe(20);
  });

  it('F03 — one active flow', async () => {
    const w = await started();
    await expectRefused(
      w,
      () => w.f(['init', 'other']),
      'FLOW_ACTIVE',
      'A flow is already active (phase: exploration). End it with baton flow update --complete or --abort REASON first.',
    );
    expect(w.front(O)['task']).toBe('Add user auth');
    status(await w.f(['update', '--abort', 'test']));
    expect(status(await w.f(['init', 'other'])).flow?.task).toBe('other');
  });

  it('F04 — task escaping', async () => {
    const task = 'line one\nline "two" \\x --- # y';
    const w = await started([task]);
    expect(
      w
        .read(O)
        .split('\n')
        .filter((l) => l.startsWith('task:')),
    ).toHaveLength(1);
    expect(w.front(O)['task']).toBe(task);
    expect(w.body(O)).toContain('- Task: "line one\\nline \\"two\\" \\\\x --- # y"\n');
    // exactly the two fences; no body line is `---` (Agent Flow's sed ranges).
    expect(
      w
        .read(O)
        .split('\n')
        .filter((l) => l === '---'),
    ).toHaveLength(2);
  });

  it('F05 — update before init', async () => {
    const w = await flowWorkspace();
    await expectRefused(w, () => w.f(['update', '--phase', 'planning', '--gate-result', 'passed']), 'NO_FLOW', 'No flow started. Run baton flow init first.');
    expect(w.exists('.claude')).toBe(false);
  });

  it('F06, F41 — the documented sequential file, byte for byte; monitoring greps', async () => {
    const w = await documented();
    expect(w.read(O)).toBe(SPEC_O);
    // §7.5 with the real grep, as Agent Flow's users and hooks run it.
    const o = join(w.ws, O);
    expect(grep(['^current_phase:'], o)).toBe('current_phase: "implementation"\n');
    expect(grep(['^iteration:'], o)).toBe('iteration: 1\n');
    expect(grep(['deep_dive:', '-A4'], o)).toBe('deep_dive:\n  available: true\n  using: false\n  scope: "full"\n  generated: "2024-01-14T15:00:00Z"\n');
  });

  it('F07 — advancing', async () => {
    const w = await started();
    const before = w.events().length;
    const s = status(await w.f(['update', '--phase', 'planning', '--gate-result', 'passed', '--agent', 'Riko', '--message', 'Found 5 files'], { at: '10:31' }));
    expect(s.flow?.gates.exploration).toEqual({ status: 'passed', timestamp: '2024-01-15T10:31:00.000Z', agent: 'Riko', message: 'Found 5 files' });
    expect(s.flow?.gates.planning).toMatchObject({ status: 'in_progress', agent: 'Senku' });
    expect(s.flow?.current_phase).toBe('planning');
    expect(s.flow?.iteration).toBe(1);
    const added = w.events().slice(before);
    expect(added.map((e) => e.type)).toEqual(['flow.gate_recorded', 'flow.phase_changed']);
    expect(added[0]!.batch_end).toBe(added[1]!.seq);
  });

  it('F08 — order enforced', async () => {
    const w = await started();
    await expectRefused(
      w,
      () => w.adv('implementation', 'Riko'),
      'ILLEGAL_TRANSITION',
      "Cannot move from 'exploration' to 'implementation': the next phase is 'planning'.",
    );
    await expectRefused(
      w,
      () => w.f(['update', '--phase', 'planning']),
      'ILLEGAL_TRANSITION',
      "Cannot leave 'exploration': its gate is 'in_progress', not 'passed'.",
    );
  });

  it('F09 — names validated', async () => {
    const w = await started();
    await expectRefused(
      w,
      () => w.f(['update', '--phase', 'bogus_phase']),
      'INVALID_INPUT',
      "Invalid --phase value: 'bogus_phase'. Allowed: exploration, planning, implementation, review, verification, complete.",
    );
    // `skipped` and any agent name are Agent Flow commands Baton now accepts
    // (test/flow/agent-flow-commands.test.ts); `pending` and unknown words stay refused.
    for (const bad of ['weird', 'pending']) {
      await expectRefused(
        w,
        () => w.f(['update', '--gate-result', bad]),
        'INVALID_INPUT',
        `Invalid --gate-result value: '${bad}'. Allowed: in_progress, passed, failed, skipped.`,
      );
    }
    status(await w.f(['update', '--gate-result', 'failed', '--agent', 'riko']));
    expect((w.front(O)['gates'] as Record<string, Record<string, unknown>>)['exploration']!['agent']).toBe('Riko');
  });

  it('F10 — who records a gate', async () => {
    const w = await started();
    await expectRefused(
      w,
      () => w.f(['update', '--gate-result', 'passed', '--agent', 'Senku']),
      'ILLEGAL_TRANSITION',
      "Agent 'Senku' cannot record the exploration gate (allowed: Riko, Orchestrator).",
    );
    expect(status(await w.f(['update', '--gate-result', 'passed', '--agent', 'Orchestrator'])).flow?.gates.exploration?.status).toBe('passed');
  });

  it('F11 — retry in place', async () => {
    const w = await started();
    await runTo(w, 'implementation');
    let s = status(await w.f(['update', '--gate-result', 'failed', '--agent', 'Loid', '--message', 'build broken'], { at: '10:40' }));
    expect([s.flow?.current_phase, s.flow?.gates.implementation?.status, s.flow?.iteration]).toEqual(['implementation', 'failed', 1]);
    status(await w.f(['update', '--gate-result', 'in_progress'], { at: '10:41' }));
    s = status(await w.adv('review', 'Loid', { at: '10:42' }));
    expect(s.flow?.gates.review?.status).toBe('in_progress');
    expect(w.body(O)).toContain(
      '### Phase: Implementation\n- Agent: Loid\n- Status: PASSED\n- Timestamp: 2024-01-15T10:42:00Z\n- Earlier: FAILED at 2024-01-15T10:40:00Z: build broken\n',
    );
  });

  it('F12, F13 — review failure loops; follow-up calls are harmless', async () => {
    const w = await started();
    await runTo(w, 'review');
    const before = w.events().length;
    const s = status(await w.f(['update', '--gate-result', 'failed', '--agent', 'Lawliet', '--message', 'NEEDS_CHANGES: missing tests'], { at: '10:50' }));
    expect(s.flow?.current_phase).toBe('implementation');
    expect(s.flow?.iteration).toBe(2);
    expect(s.flow?.gates.review).toMatchObject({ status: 'failed', agent: 'Lawliet', message: 'NEEDS_CHANGES: missing tests' });
    expect(s.flow?.gates.implementation).toMatchObject({ status: 'in_progress', agent: 'Loid', timestamp: '2024-01-15T10:50:00.000Z' });
    const added = w.events().slice(before);
    expect(added.map((e) => e.type)).toEqual(['flow.gate_recorded', 'flow.iteration_started', 'flow.phase_changed']);
    expect(added[1]!.data).toMatchObject({ iteration: 2, failed_phase: 'review' });
    expect(new Set(added.map((e) => e.batch_end)).size).toBe(1);
    expect(w.body(O)).toContain('### Iteration 2\n- Reason: review failed\n');
    expect(w.body(O)).toContain('### Phase: Implementation (Iteration 2)');
    // F13
    await expectUnchanged(w, () => w.f(['update', '--iteration', '2']));
    await expectUnchanged(w, () => w.f(['update', '--phase', 'implementation']));
    await expectRefused(
      w,
      () => w.f(['update', '--iteration', '5']),
      'ILLEGAL_TRANSITION',
      'Iteration is managed by Baton: it is 2 (it advances when review or verification fails).',
    );
  });

  it('F14 — verification failure loops', async () => {
    const w = await started();
    await runTo(w, 'verification');
    let s = status(await w.f(['update', '--gate-result', 'failed', '--agent', 'Alphonse', '--message', '3 tests failing']));
    expect([s.flow?.current_phase, s.flow?.iteration, s.flow?.gates.verification?.status, s.flow?.gates.review?.status]).toEqual([
      'implementation',
      2,
      'failed',
      'passed',
    ]);
    s = status(await w.adv('review', 'Loid'));
    expect([s.flow?.gates.review?.status, s.flow?.gates.verification?.status]).toEqual(['in_progress', 'failed']);
  });

  it('F15, F16 — max_iterations; nothing after the end', async () => {
    const w = await started(['--max-iterations', '2', 'x']);
    await runTo(w, 'review');
    status(await w.f(['update', '--gate-result', 'failed']));
    await runTo(w, 'verification', 'sequential', 'implementation', 40);
    const s = status(await w.f(['update', '--gate-result', 'failed']));
    expect([s.flow?.status, s.flow?.abort_reason, s.flow?.ended_in_phase]).toEqual(['aborted', 'max_iterations', 'verification']);
    const front = w.front(O);
    expect(front).toMatchObject({ active: false, current_phase: 'complete', iteration: 2, outcome: 'aborted', abort_reason: 'max_iterations' });
    expect((front['gates'] as Record<string, Record<string, unknown>>)['verification']!['status']).toBe('failed');
    expect(Object.keys(front).slice(-2)).toEqual(['outcome', 'abort_reason']);
    expect(w.body(O)).toMatch(/### Orchestration Aborted\n- Reason: max_iterations\n- Timestamp: [^\n]+\n- Message: Max iterations reached \(2\)\n$/);
    const ended = 'The flow has ended (aborted); nothing can change it. Start a new one with baton flow init.';
    await expectRefused(w, () => w.adv('planning', 'Riko'), 'FLOW_ENDED', ended);
    await expectRefused(w, () => w.f(['update', '--gate-result', 'passed']), 'FLOW_ENDED', ended);
    await expectRefused(w, () => w.f(['update', '--complete']), 'FLOW_ENDED', ended);
    await expectRefused(w, () => w.f(['update', '--abort', 'x']), 'FLOW_ENDED', ended);
  });

  it('F17 — completion', async () => {
    const w = await started();
    await runTo(w, 'verification');
    const s = status(
      await w.f(['update', '--phase', 'complete', '--gate-result', 'passed', '--agent', 'Alphonse', '--message', 'All tests pass'], { at: '11:00' }),
    );
    expect(s.flow?.status).toBe('complete');
    const front = w.front(O);
    expect(front).toMatchObject({ active: false, current_phase: 'complete', outcome: 'complete' });
    expect(front).not.toHaveProperty('abort_reason');
    expect(Object.values(front['gates'] as Record<string, { status: string }>).map((g) => g.status)).toEqual([
      'passed',
      'passed',
      'passed',
      'passed',
      'passed',
    ]);
    expect(w.body(O)).toMatch(/### Orchestration Complete\n[^#]*$/);
    await expectUnchanged(w, () => w.f(['update', '--complete', '--agent', 'Orchestrator', '--message', 'All phases completed successfully']));
    await expectRefused(w, () => w.adv('review', 'Lawliet'), 'FLOW_ENDED');
  });

  it('F18 — no false completion', async () => {
    const w = await started();
    await runTo(w, 'implementation');
    await expectRefused(w, () => w.f(['update', '--complete']), 'ILLEGAL_TRANSITION', /^Cannot complete: the implementation gate is 'in_progress'/);
    const s = status(await w.f(['update', '--abort', 'user stopped']));
    expect([s.flow?.status, s.flow?.abort_reason]).toEqual(['aborted', 'user stopped']);
  });

  it('F19 — naming the current phase', async () => {
    const w = await started();
    await runTo(w, 'verification');
    let s = status(await w.f(['update', '--phase', 'verification', '--gate-result', 'passed', '--agent', 'Alphonse']));
    expect([s.flow?.current_phase, s.flow?.gates.verification?.status]).toEqual(['verification', 'passed']);
    s = status(await w.f(['update', '--phase', 'complete']));
    expect(s.flow?.status).toBe('complete');
  });

  it('F20 — flag combinations', async () => {
    const w = await started();
    await expectRefused(w, () => w.f(['update', '--complete', '--abort', 'x']), 'INVALID_INPUT', /^Conflicting flags: /);
    await expectRefused(w, () => w.f(['update', '--teammate', 'review', '--gate-result', 'passed']), 'INVALID_INPUT', /^Conflicting flags: /);
    await expectRefused(w, () => w.f(['update', '--merge-parallel']), 'INVALID_INPUT', /^Conflicting flags: /);
    await expectRefused(w, () => w.f(['update']), 'INVALID_INPUT', 'Nothing to update');
  });

  it('F38 — the file is a projection', async () => {
    const w = await documented();
    rmSync(join(w.ws, O));
    status(await w.f(['status']));
    expect(w.read(O)).toBe(SPEC_O);
    rmSync(join(w.ws, '.baton', 'cache'), { recursive: true, force: true });
    status(await w.f(['status']));
    expect(w.read(O)).toBe(SPEC_O);
    const firstUpdateEnd = w.events().filter((e) => e.type === 'flow.phase_changed')[0]!.seq;
    const replayed = await w.run(['replay', '--view', 'flow-file', '--to', String(firstUpdateEnd)]);
    expect(replayed.code).toBe(0);
    expect(replayed.stdout).toContain('current_phase: "planning"\n');
    expect(replayed.stdout.startsWith('---\n')).toBe(true);
    const mtime = statSync(join(w.ws, O)).mtimeMs;
    await new Promise((r) => setTimeout(r, 20));
    await expectUnchanged(w, () => w.f(['update', '--phase', 'implementation']));
    expect(statSync(join(w.ws, O)).mtimeMs).toBe(mtime);
  });

  it('F39 — atomic writes and recovery', async () => {
    const w = await started();
    rmSync(join(w.ws, O));
    mkdirSync(join(w.ws, O));
    const before = w.events().length;
    const r = await w.adv('planning', 'Riko');
    expect(r.code).toBe(1);
    expect(errorEnvelopeOf(r).code).toBe('UNEXPECTED');
    expect(w.events().length).toBe(before + 2);
    expect(readdirSync(join(w.ws, '.claude')).filter((n) => n.includes('.tmp.'))).toEqual([]);
    rmSync(join(w.ws, O), { recursive: true });
    status(await w.f(['status']));
    expect(w.front(O)['current_phase']).toBe('planning');
  });

  it('F40 — foreign state file kept', async () => {
    const w = await flowWorkspace();
    mkdirSync(join(w.ws, '.claude'));
    writeFileSync(join(w.ws, O), '---\nactive: true\ncurrent_phase: planning\n---\nhand written\n');
    status(await w.f(['init', 'x'], { at: '10:30' }));
    expect(w.read(`${O}.bak.20240115103000`)).toBe('---\nactive: true\ncurrent_phase: planning\n---\nhand written\n');
  });

  it('F42 — flow status JSON', async () => {
    const w = await documented();
    const s = status(await w.f(['status']));
    expect(s.flow?.current_phase).toBe('implementation');
    expect(s.flow?.next_phase).toBe('review');
    expect(s.flow?.gates.review).toEqual({ status: 'pending', timestamp: null, agent: null, message: null });
    expect(s.flow?.parallel_groups).toBeNull();
    expect(s.flow?.mode).toBe('sequential');
    expect(s.flow?.team_available).toBeNull();
    expect(s.flow?.deep_dive.generated).toBe('2024-01-14T15:00:00.000Z');
    const empty = await flowWorkspace();
    const none = status(await empty.f(['status']));
    expect(none.flow).toBeNull();
  });
});
