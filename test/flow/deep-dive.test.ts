import { afterAll, describe, expect, it } from 'vitest';
import { errorEnvelopeOf } from '../helpers/cli.js';
import { DD, deepDive, flowWorkspace, O, status } from '../helpers/flow-cli.js';
import { removeTempDirs } from '../helpers/workspace.js';
import { expectRefused } from './refusal-helper.js';

afterAll(removeTempDirs);

/** Deep-dive scenarios F43–F48 (phase-gates.md §8, §10) through the built binary. */
const INITIAL_PHASES = {
  parallel_exploration: { status: 'pending', agents_spawned: 0, agents_completed: 0 },
  synthesis: { status: 'pending' },
  compilation: { status: 'pending' },
};

describe.concurrent('deep dives (phase-gates.md §10)', () => {
  it('F43 — deep-dive init', async () => {
    const w = await flowWorkspace();
    deepDive(await w.d(['init'], { at: '10:00' }));
    const front = w.front(DD);
    expect(front).toEqual({
      generated: '2024-01-15T10:00:00Z',
      scope: 'full',
      focus_path: null,
      expires_hint: 'refresh when codebase significantly changes',
      phase: 'initializing',
      agent_count: 5,
      phases: INITIAL_PHASES,
    });
    // "keys in that order": toEqual ignores order, so the order is checked on its own.
    expect(Object.keys(front)).toEqual(['generated', 'scope', 'focus_path', 'expires_hint', 'phase', 'agent_count', 'phases']);
    expect(Object.keys(front['phases'] as object)).toEqual(['parallel_exploration', 'synthesis', 'compilation']);
    expect(Object.keys((front['phases'] as Record<string, object>)['parallel_exploration']!)).toEqual(['status', 'agents_spawned', 'agents_completed']);
  });

  it('F44 — deep-dive init refusals', async () => {
    const w = await flowWorkspace();
    for (const args of [
      ['--scope', 'focused'],
      ['--scope', 'partial'],
      ['--agent-count', 'x'],
      ['--agent-count', '0'],
      ['--scope', 'full', '--focus-path', 'src'],
      ['--scope', 'focused', '--focus-path', '../x'],
    ]) {
      await expectRefused(w, () => w.d(['init', ...args]), 'INVALID_INPUT');
      expect(w.exists('.claude'), args.join(' ')).toBe(false);
    }
    expect(w.events()).toHaveLength(0);
    deepDive(await w.d(['init', '--scope', 'focused', '--focus-path', 'src/auth']));
    expect(w.front(DD)).toMatchObject({ scope: 'focused', focus_path: 'src/auth' });
  });

  it('F45 — re-init and refresh', async () => {
    const w = await flowWorkspace();
    deepDive(await w.d(['init'], { at: '10:00' }));
    deepDive(await w.d(['compile', '--tech-stack', 'TypeScript'], { at: '10:05' }));
    const previous = w.read(DD);
    await expectRefused(w, () => w.d(['init']), 'DEEP_DIVE_EXISTS');
    const refreshed = deepDive(await w.d(['init', '--refresh'], { at: '2024-01-16T09:00:00.000Z' }));
    const backup = `${DD}.bak.20240116090000`;
    expect(w.read(backup)).toBe(previous);
    expect(refreshed.backup_path).toBe(backup);
    expect(w.front(DD)).toMatchObject({ phase: 'initializing', generated: '2024-01-16T09:00:00Z' });
  });

  it('F46 — compile phases', async () => {
    const w = await flowWorkspace();
    const none = await w.d(['compile', '--conventions', 'x']);
    expect(none.code).toBe(2);
    expect(errorEnvelopeOf(none)).toMatchObject({ code: 'NO_DEEP_DIVE', message: 'No deep dive initialized. Run baton deep-dive init first.' });
    expect(w.exists('.claude')).toBe(false);
    expect(w.events()).toHaveLength(0);
    deepDive(await w.d(['init']));
    deepDive(await w.d(['compile']));
    expect(w.front(DD)).toMatchObject({
      phase: 'compilation',
      phases: { parallel_exploration: { status: 'complete' }, synthesis: { status: 'complete' }, compilation: { status: 'in_progress' } },
    });
    deepDive(await w.d(['compile', '--mark-complete']));
    const complete = { parallel_exploration: { status: 'complete' }, synthesis: { status: 'complete' }, compilation: { status: 'complete' } };
    expect(w.front(DD)).toMatchObject({ phase: 'complete', phases: complete });
    // Monotone (Baton): a later compile never takes the phase back.
    deepDive(await w.d(['compile', '--agent-notes', 'x']));
    expect(w.front(DD)).toMatchObject({ phase: 'complete', phases: complete });
  });

  it('F47 — compile merges', async () => {
    const w = await flowWorkspace();
    deepDive(await w.d(['init']));
    deepDive(await w.d(['compile', '--conventions', 'Use kebab-case files', '--agents-spawned', '5', '--agents-completed', '5']));
    deepDive(await w.d(['compile', '--tech-stack', 'TypeScript']));
    const body = w.body(DD);
    expect(body).toContain('## Conventions\n\nUse kebab-case files\n');
    expect(body).toContain('- **Tech stack**: TypeScript\n');
    expect((w.front(DD)['phases'] as Record<string, unknown>)['parallel_exploration']).toEqual({ status: 'complete', agents_spawned: 5, agents_completed: 5 });
    deepDive(await w.d(['compile', '--conventions', '']));
    expect(w.body(DD)).toContain('## Conventions\n\n_No conventions documented yet_\n');
    expect(w.body(DD)).toContain('- **Tech stack**: TypeScript\n');
    await expectRefused(w, () => w.d(['compile', '--agents-completed', '6']), 'INVALID_INPUT');
  });

  it('F48 — deep dive feeds flows', async () => {
    const w = await flowWorkspace();
    deepDive(await w.d(['init'], { at: '10:00' }));
    deepDive(await w.d(['compile', '--mark-complete'], { at: '10:05' }));
    status(await w.f(['init', '--use-deep-dive', 'x'], { at: '10:30' }));
    expect(w.front(O)['deep_dive']).toEqual({ available: true, using: true, scope: 'full', generated: '2024-01-15T10:05:00Z' });
    expect(w.body(O)).toContain('- Deep-Dive Context: Using (scope: full, generated: 2024-01-15T10:05:00Z)\n');

    const partial = await flowWorkspace();
    deepDive(await partial.d(['init'], { at: '10:00' }));
    const s = status(await partial.f(['init', '--use-deep-dive', 'x'], { at: '10:30' }));
    expect(partial.front(O)['deep_dive']).toMatchObject({ available: false, using: false });
    expect(s.warnings).toEqual(['Deep-dive context requested but not available; continuing without it.']);
  });
});
