import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { AGENT_FLOW_DEFAULT_KEYS, flowWorkspace, merged, O, runTo, status, TF } from '../helpers/flow-cli.js';
import { removeTempDirs } from '../helpers/workspace.js';
import { expectRefused } from './refusal-helper.js';

/** every documented Agent Flow command is accepted by `flow update`, in its current format. */
afterAll(removeTempDirs);

describe('Agent Flow commands on flow update', () => {
  it('a new flow carries all current keys with their defaults, in Agent Flow key order', async () => {
    const w = await flowWorkspace();
    status(await w.f(['init', 'x'], { at: '10:30' }));
    const front = w.front(O);
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
      'deep_dive',
      'graph',
      'personal_kb',
      'codex',
      'agentsview',
      'gates',
    ]);
    expect(front).toMatchObject(AGENT_FLOW_DEFAULT_KEYS);
    expect(w.body(O).split('\n')).not.toContain('---');
  });

  it('every --set-* flag is recorded and rendered', async () => {
    const w = await flowWorkspace();
    status(await w.f(['init', 'x'], { at: '10:30' }));
    const before = w.events().length;
    const s = status(
      await w.f(
        [
          'update',
          '--set-task-complexity',
          'complex',
          '--set-report-requested',
          'true',
          '--set-codex-divergence-rounds',
          '3',
          '--set-intent-goal',
          'ship login',
          '--set-intent-description',
          'JWT "auth"',
          '--set-intent-actions',
          'a\nb',
          '--set-intent-constraints',
          'no new deps',
          '--set-intent-assumptions',
          'Node 20',
        ],
        { at: '10:31' },
      ),
    );
    expect(
      w
        .events()
        .slice(before)
        .map((e) => e.type),
    ).toEqual(['flow.fields_set']);
    expect(s.flow?.current_phase).toBe('exploration');
    const front = w.front(O);
    expect([front['task_complexity'], front['report_requested'], front['codex_divergence_rounds']]).toEqual(['complex', true, 3]);
    expect(front['intent']).toEqual({ goal: 'ship login', description: 'JWT "auth"', actions: 'a\nb', constraints: 'no new deps', assumptions: 'Node 20' });
    // The orchestrator's one-line checks read the values.
    expect(execFileSync('grep', ['^task_complexity:', `${w.ws}/${O}`], { encoding: 'utf8' })).toBe('task_complexity: "complex"\n');
    // Set along with a gate result: both land in one batch.
    const mark = w.events().length;
    status(await w.f(['update', '--gate-result', 'passed', '--agent', 'Riko', '--set-task-complexity', 'trivial'], { at: '10:32' }));
    expect(
      w
        .events()
        .slice(mark)
        .map((e) => e.type),
    ).toEqual(['flow.fields_set', 'flow.gate_recorded']);
  });

  it('--gate-result skipped lets the flow move on; any agent name is accepted and kept', async () => {
    const w = await flowWorkspace();
    status(await w.f(['init', 'x'], { at: '10:30' }));
    const s = status(await w.f(['update', '--phase', 'planning', '--gate-result', 'skipped', '--agent', 'Orchestrator'], { at: '10:31' }));
    expect([s.flow?.current_phase, s.flow?.gates.exploration?.status]).toEqual(['planning', 'skipped']);
    expect(w.body(O)).toContain('- Status: SKIPPED');
    const c = status(await w.f(['update', '--gate-result', 'failed', '--agent', 'Codex', '--message', 'divergence'], { at: '10:32' }));
    expect(c.flow?.gates.planning).toMatchObject({ status: 'failed', agent: 'Codex', message: 'divergence' });
    expect((w.front(O)['gates'] as Record<string, { agent: string }>)['planning']!.agent).toBe('Codex');
    // Baton's own six keep their phase rule.
    await expectRefused(
      w,
      () => w.f(['update', '--gate-result', 'passed', '--agent', 'Loid']),
      'ILLEGAL_TRANSITION',
      /^Agent 'Loid' cannot record the planning gate/,
    );
  });

  it('the documented abort, --complete --message "Aborted: …" mid-flow, ends the flow as aborted with gates left as they were', async () => {
    const w = await flowWorkspace();
    status(await w.f(['init', 'x'], { at: '10:30' }));
    await runTo(w, 'implementation');
    const gatesBefore = status(await w.f(['status'])).flow?.gates;
    const before = w.events().length;
    const s = status(await w.f(['update', '--complete', '--agent', 'Orchestrator', '--message', 'Aborted: user changed their mind'], { at: '10:40' }));
    expect([s.flow?.status, s.flow?.abort_reason, s.flow?.ended_in_phase]).toEqual(['aborted', 'user changed their mind', 'implementation']);
    expect(s.flow?.gates).toEqual(gatesBefore);
    const added = w.events().slice(before);
    expect(added.map((e) => e.type)).toEqual(['flow.aborted']);
    expect(added[0]!.data).toMatchObject({ reason: 'user changed their mind', message: 'Aborted: user changed their mind' });
    expect(w.front(O)).toMatchObject({ active: false, current_phase: 'complete', outcome: 'aborted', abort_reason: 'user changed their mind' });
  });

  it('bad --set-* values exit 2 naming the flag; nothing appended, no file changed', async () => {
    const w = await flowWorkspace();
    status(await w.f(['init', 'x'], { at: '10:30' }));
    await expectRefused(w, () => w.f(['update', '--set-task-complexity', 'huge']), 'INVALID_INPUT', /^Invalid --set-task-complexity value: 'huge'/);
    await expectRefused(w, () => w.f(['update', '--set-report-requested', 'yes']), 'INVALID_INPUT', /^Invalid --set-report-requested value: 'yes'/);
    await expectRefused(w, () => w.f(['update', '--set-codex-divergence-rounds', '-1']), 'INVALID_INPUT', /^Invalid --set-codex-divergence-rounds value/);
    await expectRefused(
      w,
      () => w.f(['update', '--gate-result', 'passed', '--set-codex-divergence-rounds', 'two']),
      'INVALID_INPUT',
      /--set-codex-divergence-rounds/,
    );
    await expectRefused(w, () => w.f(['update', '--gate-result', 'passed', '--agent', 'bad\nname']), 'INVALID_INPUT', /--agent/);
  });

  it("flow merge prints its verdict with the plugin's spacing, so its sed extracts the summary", async () => {
    const w = await flowWorkspace();
    const env = { CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: '1' };
    status(await w.f(['init', '--team', 'x'], { at: '10:30', env }));
    await runTo(w, 'review_verification', 'team');
    await w.f(['update', '--parallel-group', 'review_verification', '--teammate', 'review', '--gate-result', 'passed'], { at: '10:40' });
    const r = await w.f(['merge'], { at: '10:41' });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^\{"v": 1, "type": "flow_merge", "generated_at": "[^"]+", "group": "review_verification", "all_passed": false, "failed_phases": \["verification"\], "summary": "1 sub-phase\(s\) failed: verification", "recorded": false\}\n$/,
    );
    expect(merged(r).summary).toBe('1 sub-phase(s) failed: verification');
    const summary = execFileSync('sh', ['-c', `printf '%s' "$1" | sed -n 's/.*"summary": "\\([^"]*\\)".*/\\1/p'`, 'sh', r.stdout], { encoding: 'utf8' });
    expect(summary).toBe('1 sub-phase(s) failed: verification\n');
    expect(w.exists(TF)).toBe(true);
  });
});
