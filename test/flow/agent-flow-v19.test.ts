import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DD, flowWorkspace, O, runTo, status, TF, type FlowWs } from '../helpers/flow-cli.js';
import { removeTempDirs } from '../helpers/workspace.js';
import { agentFlowUpdate, sh, v19File, withFiles } from './agent-flow-v19-script.js';
import { expectRefused } from './refusal-helper.js';

/**
 * Agent Flow v1.9 as its own scripts write its state files (reproduced in agent-flow-v19-script.ts):
 * keys Baton does not know are kept in place, every message is recorded, a successful team run is
 * recorded as complete, and an adopted run keeps its history.
 */
afterAll(removeTempDirs);

const TEAMS = { CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: '1' };

const typesAfter = (w: FlowWs, before: number): string[] =>
  w
    .events()
    .slice(before)
    .map((e) => e.type);
const backups = (w: FlowWs): string[] => readdirSync(join(w.ws, '.claude')).filter((n) => n.includes('.bak.'));
const frontLines = (w: FlowWs, file: string): string[] => w.read(file).split('\n---\n')[0]!.split('\n');

const MID_RUN = v19File({
  phase: 'implementation',
  gates: {
    exploration: { status: 'passed', timestamp: '2024-01-15T10:31:00Z', agent: 'Riko' },
    planning: { status: 'passed', timestamp: '2024-01-15T10:35:00Z', agent: 'Senku', notes: 'two options weighed' },
    implementation: { status: 'in_progress', timestamp: '2024-01-15T10:40:00Z', agent: 'Loid' },
    review: { status: 'pending' },
    verification: { status: 'pending' },
  },
});

describe('Agent Flow v1.9: keys Baton does not know (13)', () => {
  it('adopt takes a v1.9 file, keeps its unknown keys in place, re-renders byte for byte; a script editing them is recorded', async () => {
    const w = await flowWorkspace();
    withFiles(w, { [O]: MID_RUN });
    // Every reader takes the file: status names the run, init says how to take it over.
    expect(status(await w.f(['status'])).warnings[0]).toContain(`baton flow adopt --file ${O}`);
    await expectRefused(w, () => w.f(['init', 'other']), 'FLOW_ACTIVE', /baton flow adopt --file \.claude\/orchestration\.local\.md/);

    const a = status(await w.f(['adopt'], { at: '10:50' }));
    expect(a.warnings).toEqual([]);
    expect(a.flow).toMatchObject({ current_phase: 'implementation', fields: { personal_kb: { nodes: 120, edges: 340 } } });
    const lines = frontLines(w, O);
    // In place: after the key each followed, in the block it was in.
    expect(lines.slice(lines.indexOf('  edges: 340'), lines.indexOf('  edges: 340') + 2)).toEqual(['  edges: 340', '  communities: 12']);
    expect(lines[lines.indexOf('task: "Add user authentication with JWT tokens"') + 1]).toBe('workflow_version: "1.9.0"');
    expect(w.front(O)['gates']).toMatchObject({ planning: { status: 'passed', notes: 'two options weighed' } });
    const rendered = w.read(O);
    status(await w.f(['status'], { at: '10:51' }));
    expect(w.read(O)).toBe(rendered);
    const replayed = await w.run(['replay', '--view', 'flow-file', '--to', String(w.events().at(-1)!.seq)]);
    expect(replayed.code).toBe(0);
    expect(replayed.stdout.trimEnd()).toBe(rendered.trimEnd());

    // A script changes a kept key and adds another, nested and at the top: recorded, nothing refused.
    sh(w, `sed -i 's/^  communities: 12$/  communities: 14/; s/^workflow_version: .*/&\\nsession_label: "night run"/' ${O}`);
    agentFlowUpdate(w, O, '10:52', '--gate-result', 'passed', '--agent', 'Loid');
    const before = w.events().length;
    const s = status(await w.f(['status'], { at: '10:53' }));
    expect(s.warnings).toEqual([]);
    expect(typesAfter(w, before)).toEqual(['flow.observed', 'flow.extra_keys_set', 'flow.gate_recorded']);
    expect(w.front(O)).toMatchObject({ session_label: 'night run', personal_kb: { communities: 14 }, gates: { implementation: { status: 'passed' } } });
    expect(backups(w)).toEqual([`orchestration.local.md.bak.20240115105000`]);
  });
});

describe('Agent Flow v1.9: every message is kept (14)', () => {
  it("a script's messages, with or without a change of the frontmatter, become events and log lines; completion is by the --agent given", async () => {
    const w = await flowWorkspace();
    status(await w.f(['init', 'Add', 'auth'], { at: '10:30' }));
    agentFlowUpdate(w, O, '10:31', '--phase', 'planning', '--gate-result', 'passed', '--agent', 'Riko', '--message', 'Found 5 relevant files');
    let before = w.events().length;
    expect(status(await w.f(['status'], { at: '10:32' })).warnings).toEqual([]);
    expect(
      w
        .events()
        .slice(before)
        .find((e) => e.type === 'flow.gate_recorded')?.data,
    ).toMatchObject({
      phase: 'exploration',
      agent: 'Riko',
      message: 'Found 5 relevant files',
    });
    expect(w.body(O)).toContain(
      '### Phase: Exploration\n- Agent: Riko\n- Status: PASSED\n- Timestamp: 2024-01-15T10:32:00Z\n- Message: Found 5 relevant files',
    );

    await runTo(w, 'implementation', 'sequential', 'planning', 33);
    // The script's own message-only example: a log line, never a body edit to restore away.
    agentFlowUpdate(w, O, '10:40', '--agent', 'Loid', '--message', 'Completed step 3 of 5');
    before = w.events().length;
    expect(status(await w.f(['status'], { at: '10:41' })).warnings).toEqual([]);
    expect(typesAfter(w, before)).toEqual(['flow.observed', 'flow.message_logged']);
    expect(w.events().at(-1)?.data).toMatchObject({ phase: 'implementation', agent: 'Loid', message: 'Completed step 3 of 5', iteration: 1 });
    expect(w.body(O)).toContain('### Message\n- Phase: Implementation\n- Agent: Loid\n- Timestamp: 2024-01-15T10:41:00Z\n- Message: Completed step 3 of 5');

    // flow update takes the same forms: a message alone, and a message beside a change that does not carry it.
    before = w.events().length;
    status(await w.f(['update', '--agent', 'loid', '--message', 'Completed step 4 of 5'], { at: '10:42' }));
    status(await w.f(['update', '--set-task-complexity', 'complex', '--message', 'Harder than it looked'], { at: '10:43' }));
    expect(typesAfter(w, before)).toEqual(['flow.message_logged', 'flow.fields_set', 'flow.message_logged']);
    expect(w.events().at(-3)?.data).toMatchObject({ agent: 'Loid', message: 'Completed step 4 of 5' });
    expect(w.body(O)).toContain('- Message: Harder than it looked');

    // A review that fails through the script keeps its verdict on the gate and in the log.
    status(await w.adv('review', 'Loid', { at: '10:44' }));
    agentFlowUpdate(w, O, '10:45', '--gate-result', 'failed', '--agent', 'Lawliet', '--message', 'NEEDS_CHANGES: 2 issues');
    const failed = status(await w.f(['status'], { at: '10:46' }));
    expect([failed.flow?.iteration, failed.flow?.current_phase, failed.flow?.gates.review?.message]).toEqual([2, 'implementation', 'NEEDS_CHANGES: 2 issues']);

    status(await w.adv('review', 'Loid', { at: '10:47' }));
    status(await w.adv('verification', 'Lawliet', { at: '10:48' }));
    agentFlowUpdate(w, O, '10:49', '--complete', '--gate-result', 'passed', '--agent', 'Alphonse', '--message', 'All tests passing');
    const done = status(await w.f(['status'], { at: '10:50' }));
    expect([done.flow?.status, done.warnings]).toEqual(['complete', []]);
    expect(w.events().find((e) => e.type === 'flow.completed')?.data).toMatchObject({ agent: 'Alphonse', message: 'All tests passing' });
    expect(w.body(O)).toContain('### Orchestration Complete\n- Agent: Alphonse\n');
    expect(backups(w)).toEqual([]);
  });
});

describe('Agent Flow v1.9: a successful team run is complete (15)', () => {
  it('teammates, --merge-parallel, then --complete: the verdict the merge wrote is read and the completion recorded', async () => {
    for (const readEachStep of [false, true]) {
      const w = await flowWorkspace();
      status(await w.f(['init', '--team', 'Add', 'auth'], { at: '10:30', env: TEAMS }));
      await runTo(w, 'review_verification', 'team');
      const g = ['--parallel-group', 'review_verification'];
      const steps: [string, string[]][] = [
        ['10:40', [...g, '--teammate', 'review', '--gate-result', 'passed', '--agent', 'Lawliet', '--message', 'APPROVED']],
        ['10:41', [...g, '--teammate', 'verification', '--gate-result', 'passed', '--agent', 'Alphonse', '--message', 'VERIFIED']],
        ['10:42', ['--merge-parallel', ...g]],
        ['10:43', ['--complete', '--agent', 'Lawliet', '--message', 'Shipped']],
      ];
      for (const [at, args] of steps) {
        agentFlowUpdate(w, TF, at, ...args);
        if (readEachStep) expect(status(await w.f(['status'], { at: `${at}:30` })).warnings, args.join(' ')).toEqual([]);
      }
      const s = status(await w.f(['status'], { at: '10:44' }));
      expect(s.warnings).toEqual([]);
      expect([s.flow?.status, s.flow?.ended_in_phase, s.flow?.last_merge?.all_passed]).toEqual(['complete', 'review_verification', true]);
      const types = w.events().map((e) => e.type);
      expect(types).not.toContain('flow.aborted');
      expect(types.filter((t) => t === 'flow.group_merged')).toHaveLength(1);
      expect(w.events().find((e) => e.type === 'flow.completed')?.data).toMatchObject({ agent: 'Lawliet', message: 'Shipped' });
      expect(s.flow?.parallel_groups?.review_verification).toMatchObject({ review: { result: 'APPROVED' }, verification: { result: 'VERIFIED' } });
      expect(w.front(TF)).toMatchObject({ active: false, outcome: 'complete' });
    }
  });
});

const ITERATION_TWO = v19File({
  phase: 'implementation',
  iteration: 2,
  gates: {
    exploration: { status: 'passed', timestamp: '2024-01-15T10:31:00Z', agent: 'Riko', message: 'Found 5 relevant files' },
    planning: { status: 'passed', timestamp: '2024-01-15T10:35:00Z', agent: 'Senku' },
    implementation: { status: 'passed', timestamp: '2024-01-15T10:44:00Z', agent: 'Loid' },
    review: { status: 'failed', timestamp: '2024-01-15T10:50:00Z', agent: 'Lawliet', message: 'NEEDS_CHANGES: 2 issues' },
    verification: { status: 'pending' },
  },
});

describe('Agent Flow v1.9: adopt keeps the history; init and the deep dive (16)', () => {
  it('an iteration-2 run keeps its failed review and the original times; the current gate is not passed', async () => {
    const w = await flowWorkspace();
    withFiles(w, { [O]: ITERATION_TWO });
    const a = status(await w.f(['adopt'], { at: '11:00' }));
    expect([a.flow?.iteration, a.flow?.current_phase, a.flow?.next_phase]).toEqual([2, 'implementation', 'review']);
    expect(a.flow?.gates).toMatchObject({
      exploration: { status: 'passed', timestamp: '2024-01-15T10:31:00.000Z', agent: 'Riko', message: 'Found 5 relevant files' },
      planning: { status: 'passed', timestamp: '2024-01-15T10:35:00.000Z' },
      implementation: { status: 'in_progress', timestamp: '2024-01-15T10:50:00.000Z', agent: 'Loid' },
      review: { status: 'failed', timestamp: '2024-01-15T10:50:00.000Z', agent: 'Lawliet', message: 'NEEDS_CHANGES: 2 issues' },
      verification: { status: 'pending' },
    });
    const failed = w.events().find((e) => e.type === 'flow.gate_recorded' && e.data['status'] === 'failed');
    expect(failed?.data).toMatchObject({ phase: 'review', iteration: 1, occurred_at: '2024-01-15T10:50:00.000Z' });
    expect(w.events().map((e) => e.type)).toContain('flow.iteration_started');
    const body = w.body(O);
    expect(body).toContain('### Phase: Review\n- Agent: Lawliet\n- Status: FAILED\n- Timestamp: 2024-01-15T10:50:00Z\n- Message: NEEDS_CHANGES: 2 issues');
    expect(body).toContain('### Iteration 2\n- Reason: review failed\n- Timestamp: 2024-01-15T10:50:00Z');
    expect(body).toContain('### Phase: Implementation (Iteration 2)\n- Agent: Loid\n- Status: IN PROGRESS');
    // Baton goes on from there.
    const next = status(await w.adv('review', 'Loid', { at: '11:01' }));
    expect([next.flow?.current_phase, next.flow?.gates.review?.status]).toEqual(['review', 'in_progress']);

    // In the first iteration too: a stale `passed` on the current phase's gate is not taken.
    const w1 = await flowWorkspace();
    withFiles(w1, { [O]: MID_RUN.replace('implementation:\n    status: "in_progress"', 'implementation:\n    status: "passed"') });
    const b = status(await w1.f(['adopt'], { at: '11:00' }));
    expect([b.flow?.current_phase, b.flow?.gates.implementation?.status]).toEqual(['implementation', 'in_progress']);
  });

  it('flow init over a mid-run Agent Flow file of either variant, or over a run started after a Baton flow ended, names flow adopt', async () => {
    const w = await flowWorkspace();
    const team = v19File({
      phase: 'implementation',
      team: true,
      gates: { exploration: { status: 'passed' }, planning: { status: 'passed' }, implementation: { status: 'in_progress' } },
    });
    withFiles(w, { [TF]: team });
    await expectRefused(w, () => w.f(['init', 'x']), 'FLOW_ACTIVE', /baton flow adopt --file \.claude\/team-orchestration\.local\.md/);

    const e = await flowWorkspace();
    status(await e.f(['init', 'first'], { at: '10:00' }));
    status(await e.f(['update', '--abort', 'stop'], { at: '10:01' }));
    withFiles(e, { [O]: MID_RUN });
    const s = status(await e.f(['status'], { at: '10:02' }));
    expect(s.warnings).toEqual([expect.stringContaining(`baton flow adopt --file ${O}`) as string]);
    expect(e.read(O)).toBe(MID_RUN);
    await expectRefused(e, () => e.f(['init', 'second']), 'FLOW_ACTIVE', /baton flow adopt/);
    expect(status(await e.f(['adopt'], { at: '10:03' })).flow?.current_phase).toBe('implementation');
  });

  it("a deep dive Agent Flow's compile script completed is used by flow init --use-deep-dive", async () => {
    const compiled = [
      '---',
      'generated: "2024-01-14T15:00:00Z"',
      'scope: full',
      'focus_path: null',
      'expires_hint: "refresh when codebase significantly changes"',
      'phase: "complete"',
      'agent_count: 5',
      'phases:',
      '  parallel_exploration:',
      '    status: "complete"',
      '  synthesis:',
      '    status: "complete"',
      '  compilation:',
      '    status: "complete"',
      '---',
      '',
      '# Deep-Dive Context',
      '',
      '## Repository Overview',
      '- **Tech Stack**: TypeScript, Node.js',
      '- **Entry Points**: src/index.ts',
      '',
      'A CLI over an event log.',
      '',
      '## Conventions',
      'kebab-case files',
      '',
      '## Agent Notes',
      '_No notes recorded yet_',
      '',
      '---',
      '',
      '## Compilation Log',
      '- compiled and marked complete',
      '',
    ].join('\n');
    // No deep dive in the log: the compiled file is taken at init.
    const w = await flowWorkspace();
    withFiles(w, { [DD]: compiled });
    const s = status(await w.f(['init', '--use-deep-dive', 'x'], { at: '10:30' }));
    expect([s.warnings, s.flow?.deep_dive.available, s.flow?.deep_dive.using, s.flow?.deep_dive.scope]).toEqual([[], true, true, 'full']);
    expect(w.read(`${DD}.bak.20240115103000`)).toBe(compiled);
    expect(w.read(DD)).toContain('- **Tech stack**: TypeScript, Node.js');
    expect(w.read(DD)).toContain('## Agent Notes\n\n_No agent notes documented yet_');
    expect(w.read(DD)).not.toContain('Compilation Log');
    expect(w.body(O)).toContain('- Deep-Dive Context: Using (scope: full, generated: 2024-01-15T10:30:00Z)');

    // A deep dive Baton started, which the compile script then completed: read back, then used.
    const v = await flowWorkspace();
    await v.d(['init'], { at: '10:00' });
    withFiles(v, { [DD]: compiled });
    const t = status(await v.f(['init', '--use-deep-dive', 'x'], { at: '10:30' }));
    expect([t.warnings, t.flow?.deep_dive.using]).toEqual([[], true]);
    expect(v.events().find((e) => e.type === 'deep_dive.compiled')).toMatchObject({ actor: `file:${DD}`, data: { mark_complete: true } });
  });
});
