import { afterAll, expect, it } from 'vitest';
import { errorEnvelopeOf } from '../helpers/cli.js';
import { flowWorkspace, status } from '../helpers/flow-cli.js';
import { removeTempDirs } from '../helpers/workspace.js';

afterAll(removeTempDirs);

/**
 * I5 across processes (phase-gates.md §4, §9): two `flow init` started at the same moment in one
 * workspace both see no active flow; exactly one may start a flow, the other is refused with
 * FLOW_ACTIVE (after re-reading) or CONFLICT. Several workspaces race at once so the two inits
 * really overlap.
 */
const ROUNDS = 4;

it('two concurrent flow inits: exactly one wins', async () => {
  const rounds = await Promise.all(
    Array.from({ length: ROUNDS }, async (_, i) => {
      const w = await flowWorkspace();
      const results = await Promise.all([w.f(['init', `first ${i}`]), w.f(['init', '--force-sequential', `second ${i}`])]);
      return { w, results };
    }),
  );
  for (const { w, results } of rounds) {
    const codes = results.map((r) => r.code).sort();
    expect(codes[0], results.map((r) => r.stdout + r.stderr).join('\n')).toBe(0);
    expect([2, 4]).toContain(codes[1]);
    const loser = results.find((r) => r.code !== 0)!;
    const winner = results.find((r) => r.code === 0)!;
    expect(errorEnvelopeOf(loser).code).toBe(loser.code === 2 ? 'FLOW_ACTIVE' : 'CONFLICT');
    expect(w.events().filter((e) => e.type === 'flow.started')).toHaveLength(1);
    // The log and `flow status` agree on the winner.
    expect(status(await w.f(['status'])).flow?.flow_id).toBe(status(winner).flow?.flow_id);
  }
  // The registry is Baton's own record: nobody can append to it by hand and unblock a second init.
  const { w } = rounds[0]!;
  const forged = await w.run([
    'log',
    'append',
    '--type',
    'flow_registry.registered',
    '--stream',
    'flow-registry/workspace',
    '--data',
    '{"flow_id":"flow_forged","variant":"team"}',
  ]);
  expect(forged.code).toBe(2);
  expect(errorEnvelopeOf(forged).code).toBe('INVALID_INPUT');
});
