import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { errorEnvelopeOf } from '../helpers/cli.js';
import { flowWorkspace, merged, O, runTo, status, TF, type FlowWs } from '../helpers/flow-cli.js';
import { removeTempDirs } from '../helpers/workspace.js';
import { expectRefused, expectUnchanged } from './refusal-helper.js';

afterAll(removeTempDirs);

const SPEC_TF = readFileSync(new URL('./fixtures-team-file.txt', import.meta.url), 'utf8');
const TEAMS = { CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: '1' };

/** The commands of §7.3 (F23). */
async function documentedTeam(): Promise<FlowWs> {
  const w = await flowWorkspace();
  await w.d(['init'], { at: '2024-01-14T14:00:00.000Z' });
  await w.d(['compile', '--mark-complete'], { at: '2024-01-14T15:00:00.000Z' });
  status(await w.f(['init', '--team', 'Add', 'user', 'authentication', 'with', 'JWT', 'tokens'], { at: '10:30', env: TEAMS }));
  status(await w.adv('planning', 'Riko', { at: '10:31' }));
  status(await w.adv('implementation', 'Senku', { at: '10:35' }));
  status(await w.adv('review_verification', 'Loid', { at: '10:44' }));
  status(
    await w.f(['update', '--parallel-group', 'review_verification', '--teammate', 'verification', '--gate-result', 'in_progress', '--agent', 'Alphonse'], {
      at: '10:45:15',
    }),
  );
  status(
    await w.f(
      ['update', '--parallel-group', 'review_verification', '--teammate', 'review', '--gate-result', 'passed', '--agent', 'Lawliet', '--message', 'APPROVED'],
      { at: '10:46:30' },
    ),
  );
  return w;
}

async function inGroup(maxIterations?: number): Promise<FlowWs> {
  const w = await flowWorkspace();
  status(await w.f(['init', '--team', ...(maxIterations ? ['--max-iterations', String(maxIterations)] : []), 'x'], { at: '10:30', env: TEAMS }));
  await runTo(w, 'review_verification', 'team');
  return w;
}

const teammate = (w: FlowWs, who: string, result: string, extra: string[] = []) =>
  w.f(['update', '--parallel-group', 'review_verification', '--teammate', who, '--gate-result', result, ...extra]);

const grep = (args: string[], file: string): string => execFileSync('grep', [...args, file], { encoding: 'utf8' });

describe.concurrent('team flows (phase-gates.md §10)', () => {
  it('F21 — team init', async () => {
    const w = await flowWorkspace();
    status(await w.f(['init', '--team', 'Add', 'user', 'auth'], { at: '10:30', env: TEAMS }));
    const front = w.front(TF);
    expect(front).toMatchObject({ mode: 'team', team_available: true });
    expect(front['parallel_groups']).toEqual({
      review_verification: {
        status: 'pending',
        started_at: '',
        completed_at: '',
        review: { status: 'pending', agent: 'Lawliet', timestamp: '', result: '' },
        verification: { status: 'pending', agent: 'Alphonse', timestamp: '', result: '' },
      },
    });
    expect(front['gates']).toEqual({
      exploration: { status: 'in_progress', timestamp: '2024-01-15T10:30:00Z' },
      planning: { status: 'pending' },
      implementation: { status: 'pending' },
      review_verification: { status: 'pending' },
      review: { status: 'pending' },
      verification: { status: 'pending' },
    });
    expect(w.body(TF).startsWith('## Team Orchestration Log')).toBe(true);
    expect(w.body(TF)).toContain('- Mode: team\n- Team Available: true\n');
    expect(w.exists(O)).toBe(false);
  });

  it('F22 — team availability', async () => {
    for (const [env, args] of [
      [{}, ['--team']],
      [{ CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: 'true' }, ['--team']],
      [TEAMS, ['--team', '--force-sequential']],
      [TEAMS, ['--force-sequential']],
    ] as const) {
      const w = await flowWorkspace();
      const s = status(await w.f(['init', ...args, 'x'], { env }));
      expect([s.flow?.mode, s.flow?.team_available, s.flow?.variant]).toEqual(['sequential', false, 'team']);
      expect([w.exists(TF), w.exists(O)]).toEqual([true, false]);
    }
  });

  it('F23, F41 — the documented team file, byte for byte; monitoring greps', async () => {
    const w = await documentedTeam();
    expect(w.read(TF)).toBe(SPEC_TF);
    const tf = join(w.ws, TF);
    expect(grep(['^mode:'], tf)).toBe('mode: "team"\n');
    const group = grep(['parallel_groups:', '-A15'], tf);
    expect(group).toContain('      result: "APPROVED"\n');
    expect(group).toContain('      result: ""\n');
    expect(grep(['-A4', 'review:'], tf)).toContain(
      '    review:\n      status: "passed"\n      agent: "Lawliet"\n      timestamp: "2024-01-15T10:46:30Z"\n      result: "APPROVED"\n',
    );
  });

  it('F24, F25 — the group starts on entry; team phase names', async () => {
    const w = await flowWorkspace();
    status(await w.f(['init', '--team', 'x'], { at: '10:30', env: TEAMS }));
    await runTo(w, 'implementation', 'team');
    await expectRefused(
      w,
      () => w.f(['update', '--phase', 'review', '--gate-result', 'passed']),
      'INVALID_INPUT',
      "Invalid --phase value: 'review'. Allowed: exploration, planning, implementation, review_verification, complete.",
    );
    const before = w.events().length;
    const s = status(await w.adv('review_verification', 'Loid', { at: '10:44' }));
    expect(s.flow?.parallel_groups?.review_verification).toMatchObject({
      status: 'in_progress',
      started_at: '2024-01-15T10:44:00.000Z',
      completed_at: null,
      review: { status: 'pending' },
      verification: { status: 'pending' },
    });
    expect(s.flow?.gates.review_verification).toMatchObject({ status: 'in_progress', timestamp: '2024-01-15T10:44:00.000Z' });
    expect(
      w
        .events()
        .slice(before)
        .map((e) => e.type),
    ).toEqual(['flow.gate_recorded', 'flow.phase_changed', 'flow.group_started']);
    await expectUnchanged(w, () =>
      w.f(['update', '--parallel-group', 'review_verification', '--gate-result', 'in_progress', '--message', 'Starting parallel review and verification']),
    );
  });

  it('F26, F27, F28, F29 — teammate results, rules and the provisional merge', async () => {
    const w = await inGroup();
    const m0 = merged(await expectUnchanged(w, () => w.f(['merge'])));
    expect([m0.failed_phases, m0.summary, m0.recorded]).toEqual([['review', 'verification'], '2 sub-phase(s) failed: review,verification', false]);
    const s = status(await teammate(w, 'review', 'passed', ['--agent', 'Lawliet', '--message', 'Code review: APPROVED']));
    expect(s.flow?.parallel_groups?.review_verification.review).toMatchObject({ status: 'passed', agent: 'Lawliet', result: 'Code review: APPROVED' });
    expect(s.flow?.gates.review?.status).toBe('passed');
    expect(s.flow?.parallel_groups?.review_verification.status).toBe('in_progress');
    await expectRefused(w, () => teammate(w, 'docs', 'passed'), 'INVALID_INPUT');
    await expectRefused(w, () => w.f(['update', '--parallel-group', 'other', '--teammate', 'review', '--gate-result', 'passed']), 'INVALID_INPUT');
    await expectRefused(w, () => teammate(w, 'verification', 'passed', ['--agent', 'Lawliet']), 'ILLEGAL_TRANSITION');
    await expectRefused(w, () => teammate(w, 'review', 'failed'), 'ILLEGAL_TRANSITION', "The review teammate already reported 'passed' in this iteration.");
    status(await teammate(w, 'verification', 'in_progress'));
    const m = merged(await expectUnchanged(w, () => w.f(['merge'])));
    expect(m).toMatchObject({
      type: 'flow_merge',
      group: 'review_verification',
      all_passed: false,
      failed_phases: ['verification'],
      summary: '1 sub-phase(s) failed: verification',
      recorded: false,
    });
    await expectRefused(
      w,
      () => w.f(['update', '--gate-result', 'passed']),
      'ILLEGAL_TRANSITION',
      "The group's verdict comes from the merge: run baton flow merge.",
    );
  });

  it('F30 — passing merge persisted', async () => {
    const w = await inGroup();
    status(await teammate(w, 'review', 'passed'));
    status(await teammate(w, 'verification', 'passed'));
    const m = merged(await w.f(['merge'], { at: '10:50' }));
    expect([m.all_passed, m.failed_phases, m.summary, m.recorded]).toEqual([true, [], 'All sub-phases passed', true]);
    const group = (w.front(TF)['parallel_groups'] as Record<string, Record<string, unknown>>)['review_verification']!;
    expect([group['status'], group['completed_at']]).toEqual(['passed', '2024-01-15T10:50:00Z']);
    expect(w.body(TF)).toContain('- Status: PASSED\n- Completed: 2024-01-15T10:50:00Z\n- Summary: All sub-phases passed\n');
    expect(merged(await expectUnchanged(w, () => w.f(['merge']))).recorded).toBe(true);
    expect(status(await w.f(['update', '--phase', 'complete', '--gate-result', 'passed', '--agent', 'Orchestrator'])).flow?.status).toBe('complete');
  });

  it('F31 — failing merge loops and resets', async () => {
    const w = await inGroup();
    status(await teammate(w, 'review', 'passed'));
    status(await teammate(w, 'verification', 'failed', ['--message', '3 tests failing']));
    const s = status(await w.f(['update', '--parallel-group', 'review_verification', '--merge-parallel']));
    expect([s.flow?.parallel_groups?.review_verification.status, s.flow?.gates.review_verification?.status, s.flow?.current_phase, s.flow?.iteration]).toEqual([
      'failed',
      'failed',
      'implementation',
      2,
    ]);
    expect(s.flow?.parallel_groups?.review_verification.completed_at).not.toBeNull();
    const again = status(await w.adv('review_verification', 'Loid', { at: '11:10' }));
    expect(again.flow?.parallel_groups?.review_verification).toMatchObject({
      started_at: '2024-01-15T11:10:00.000Z',
      completed_at: null,
      review: { status: 'pending' },
      verification: { status: 'pending' },
    });
    const m = merged(await w.f(['merge']));
    expect([m.failed_phases, m.recorded]).toEqual([['review', 'verification'], false]);
  });

  it('F32 — the group gate only via merge', async () => {
    const w = await inGroup();
    const verdict = "The group's verdict comes from the merge: run baton flow merge.";
    await expectRefused(w, () => w.f(['update', '--gate-result', 'passed']), 'ILLEGAL_TRANSITION', verdict);
    await expectRefused(w, () => w.f(['update', '--phase', 'complete', '--gate-result', 'passed']), 'ILLEGAL_TRANSITION', verdict);
  });

  it('F36 — fallback refused after the group has passed its merge', async () => {
    const w = await inGroup();
    status(await teammate(w, 'review', 'passed'));
    status(await teammate(w, 'verification', 'passed'));
    expect(merged(await w.f(['merge'])).recorded).toBe(true);
    const before = w.snapshot();
    const r = await w.f(['update', '--fallback-sequential']);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(errorEnvelopeOf(r).message).toBe('The group has already passed; complete the flow instead.');
    expect(w.snapshot()).toEqual(before);
    // A team flow that started sequential (--force-sequential) has no team mode to leave.
    const seq = await flowWorkspace();
    status(await seq.f(['init', '--force-sequential', 'x'], { env: TEAMS }));
    await expectRefused(seq, () => seq.f(['update', '--fallback-sequential']), 'NOT_TEAM_MODE');
    await expectRefused(seq, () => seq.f(['merge']), 'NOT_TEAM_MODE');
  });

  it('F33 — team max iterations', async () => {
    const w = await inGroup(1);
    status(await teammate(w, 'review', 'failed'));
    status(await teammate(w, 'verification', 'passed'));
    merged(await w.f(['merge']));
    const s = status(await w.f(['status']));
    expect([s.flow?.status, s.flow?.abort_reason, s.flow?.parallel_groups?.review_verification.status]).toEqual(['aborted', 'max_iterations', 'failed']);
  });

  it('F34 — quotes and newlines in results', async () => {
    const w = await inGroup();
    const message = 'FAILED: "auth.test.ts"\nline 2: x\\y';
    status(await teammate(w, 'verification', 'failed', ['--message', message]));
    const front = w.front(TF);
    expect((front['parallel_groups'] as Record<string, Record<string, Record<string, unknown>>>)['review_verification']!['verification']!['result']).toBe(
      message,
    );
    // Agent Flow's v1.5+ keys in its order around the documented ones.
    expect(Object.keys(front)).toEqual([
      'active',
      'current_phase',
      'iteration',
      'max_iterations',
      'codex_divergence_rounds',
      'started_at',
      'task',
      'task_complexity',
      'report_requested',
      'intent',
      'mode',
      'team_available',
      'deep_dive',
      'graph',
      'personal_kb',
      'codex',
      'agentsview',
      'parallel_groups',
      'gates',
    ]);
    expect(w.body(TF)).toContain('- Result: FAILED: "auth.test.ts"\\nline 2: x\\\\y\n');
  });

  it('F35, F36 — fallback mid-run; fallback and merge refused outside team mode', async () => {
    const w = await inGroup();
    status(await teammate(w, 'review', 'passed'));
    const before = w.events().length;
    const s = status(await w.f(['update', '--fallback-sequential', '--message', 'TeamCreate failed'], { at: '11:00' }));
    expect([s.flow?.mode, s.flow?.team_available, s.flow?.current_phase]).toEqual(['sequential', true, 'review']);
    expect(s.flow?.gates.review).toMatchObject({ status: 'in_progress', timestamp: '2024-01-15T11:00:00.000Z' });
    expect(s.flow?.parallel_groups?.review_verification).toMatchObject({
      status: 'pending',
      review: { status: 'pending' },
      verification: { status: 'pending' },
    });
    expect(s.flow?.gates.review_verification?.status).toBe('pending');
    expect(
      w
        .events()
        .slice(before)
        .map((e) => e.type),
    ).toEqual(['flow.mode_changed', 'flow.phase_changed']);
    expect(w.body(TF)).toContain('### Mode Changed\n- From: team\n- To: sequential\n');
    expect(status(await w.adv('verification', 'Lawliet')).flow?.current_phase).toBe('verification');
    await expectRefused(w, () => w.f(['merge']), 'NOT_TEAM_MODE');
    await expectRefused(w, () => w.f(['update', '--fallback-sequential']), 'NOT_TEAM_MODE');
    const o = await flowWorkspace();
    await expectRefused(o, () => o.f(['merge']), 'NO_FLOW');
    status(await o.f(['init', 'x']));
    await expectRefused(o, () => o.f(['merge']), 'NOT_TEAM_MODE');
    await expectRefused(o, () => o.f(['update', '--fallback-sequential']), 'NOT_TEAM_MODE');
  });

  it('F37 — concurrent teammates both land', async () => {
    const w = await inGroup();
    const [a, b] = await Promise.all([teammate(w, 'review', 'passed'), teammate(w, 'verification', 'passed')]);
    expect([a.code, b.code]).toEqual([0, 0]);
    expect(w.events().filter((e) => e.type === 'flow.teammate_recorded')).toHaveLength(2);
    const group = (w.front(TF)['parallel_groups'] as Record<string, Record<string, Record<string, unknown>>>)['review_verification']!;
    expect([group['review']!['status'], group['verification']!['status']]).toEqual(['passed', 'passed']);
  });
});
