import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCatalog } from '../../events/index.js';
import { compileDeepDive, initDeepDive } from '../../src/app/commands/deep-dive.js';
import { adoptFlow, initFlow, mergeFlow, updateFlow } from '../../src/app/commands/flows.js';
import type { AppContext } from '../../src/app/context.js';
import { errorEnvelope } from '../../src/app/error-envelope.js';
import { flagFor } from '../../src/cli/output.js';
import { MemoryEventStore } from '../../src/store/memory-store.js';
import { CountingStore } from '../helpers/counting-store.js';
import { makeTempDir, removeTempDirs } from '../helpers/workspace.js';

afterAll(removeTempDirs);

/**
 * The flow and deep-dive commands as the application runs them for every surface (no CLI): a
 * refusal names the input by the flow's own field (`iteration`, `task_complexity`, `focus_path`),
 * which the CLI alone turns into its flag; and a command reads the log once to decide, the acting
 * session's liveness facts included.
 */
const NOW = '2026-06-01T10:00:00.000Z';
const catalog = createCatalog();
const A = 'session_aaaaaaaaaaaaaaaaaaaaaaaa';
const B = 'session_bbbbbbbbbbbbbbbbbbbbbbbb';
const started = (id: string, name: string) => ({
  type: 'session.started',
  stream: `session/${id}`,
  data: { session_id: id, display_name: name, ttl_seconds: 3600 },
});

async function world(session: string | undefined): Promise<{ app: AppContext; store: CountingStore }> {
  const memory = new MemoryEventStore({ catalog, now: () => NOW });
  await memory.append([started(A, 'Planck'), started(B, 'Noether')]);
  await memory.append([{ type: 'session.ended', stream: `session/${B}`, data: { session_id: B, status: 'succeeded' } }]);
  const store = new CountingStore(memory);
  const workspace = makeTempDir('baton-flow-app-');
  const app: AppContext = {
    now: NOW,
    actor: session ?? 'system',
    session,
    env: {},
    output: { mode: 'json', warn: () => undefined },
    resolveSession: async () => undefined,
    sessionIdFor: async (token) => token,
    sessionSource: () => 'session',
    workspace: async () => workspace,
    cacheDir: async () => join(workspace, 'cache'),
    catalog: async () => catalog,
    store: async () => store,
    useCompiledValidation: () => undefined,
  };
  return { app, store };
}

/** The refusal's code, its words with the domain names (MCP's way), and with the CLI's flags. */
async function refusal(run: Promise<unknown>): Promise<{ code: string; field: unknown; domain: string; cli: string }> {
  try {
    await run;
  } catch (error) {
    const domain = errorEnvelope(error, NOW, (field) => field);
    const cli = errorEnvelope(error, NOW, flagFor);
    return { code: domain.code, field: domain.details?.['field'], domain: domain.message, cli: cli.message };
  }
  throw new Error('the command was not refused');
}

describe('a flow refusal names the domain field; the CLI alone names the flag', () => {
  it('flow update: a bad value, a bad combination, a set field, a phase the flow lacks', async () => {
    const { app } = await world(undefined);
    expect(await refusal(updateFlow(app, { iteration: 'x' }))).toEqual({
      code: 'INVALID_INPUT',
      field: 'iteration',
      domain: 'iteration must be a positive integer',
      cli: '--iteration must be a positive integer',
    });
    expect(await refusal(updateFlow(app, { complete: true, abort: 'stop', teammate: 'review' }))).toMatchObject({
      field: 'complete',
      domain: 'Conflicting flags: complete cannot be combined with teammate, abort',
      cli: 'Conflicting flags: --complete cannot be combined with --teammate, --abort',
    });
    // A message alone is logged (Agent Flow's message-only update); an agent alone says nothing.
    expect(await refusal(updateFlow(app, { agent: 'Loid' }))).toMatchObject({
      field: 'agent',
      domain: 'Conflicting flags: agent needs message, gate_result, phase, complete, abort or fallback_sequential',
      cli: 'Conflicting flags: --agent needs --message, --gate-result, --phase, --complete, --abort or --fallback-sequential',
    });
    const complexity = await refusal(updateFlow(app, { task_complexity: 'huge' }));
    expect(complexity.field).toBe('task_complexity');
    expect(complexity.domain).toMatch(/^Invalid task_complexity value: 'huge'\. Allowed: /);

    await initFlow(app, { task: 'Ship it' });
    expect(await refusal(updateFlow(app, { phase: 'bogus' }))).toEqual({
      code: 'INVALID_INPUT',
      field: 'phase',
      domain: "Invalid phase value: 'bogus'. Allowed: exploration, planning, implementation, review, verification, complete.",
      cli: "Invalid --phase value: 'bogus'. Allowed: exploration, planning, implementation, review, verification, complete.",
    });
  });

  it('flow init, adopt and merge; deep-dive init and compile', async () => {
    const { app } = await world(undefined);
    expect(await refusal(initFlow(app, { task: 'x', max_iterations: 0 }))).toMatchObject({
      field: 'max_iterations',
      domain: 'max_iterations must be a positive integer',
      cli: '--max-iterations must be a positive integer',
    });
    expect(await refusal(adoptFlow(app, { file: 'notes.md' }))).toMatchObject({
      field: 'file',
      domain: "file must be .claude/orchestration.local.md or .claude/team-orchestration.local.md (got 'notes.md')",
    });
    expect(await refusal(mergeFlow(app, { parallel_group: 'other' }))).toMatchObject({ field: 'parallel_group' });
    expect(await refusal(initDeepDive(app, { scope: 'focused' }))).toMatchObject({
      field: 'scope',
      domain: 'scope focused requires focus_path',
      cli: '--scope focused requires --focus-path',
    });
    expect(await refusal(initDeepDive(app, { focus_path: 'src' }))).toMatchObject({ cli: '--focus-path is only for --scope focused' });
    expect(await refusal(compileDeepDive(app, { agents_spawned: -1 }))).toMatchObject({
      field: 'agents_spawned',
      domain: 'agents_spawned must be an integer ≥ 0',
    });
  });
});

describe('a flow command reads the log once to decide', () => {
  it('acting as a session: the flows and its liveness in one pass; a no-op reads nothing more', async () => {
    const { app, store } = await world(A);
    await initFlow(app, { task: 'Ship it' });
    store.reads = 0;
    const same = await updateFlow(app, { iteration: '1' });
    expect(same.flow?.iteration).toBe(1);
    expect(store.reads).toBe(1);

    store.reads = 0;
    const recorded = await updateFlow(app, { gate_result: 'passed', agent: 'Riko' });
    expect(recorded.flow?.gates.exploration?.status).toBe('passed');
    // One pass to decide, one to render the state file from the head under the artifact lock.
    expect(store.reads).toBe(2);
  });

  it('an ended or unknown acting session is refused UNKNOWN_SESSION, nothing appended', async () => {
    for (const session of [B, 'session_cccccccccccccccccccccccc']) {
      const { app, store } = await world(session);
      const head = (await store.head()).seq;
      expect((await refusal(initFlow(app, { task: 'Ship it' }))).code).toBe('UNKNOWN_SESSION');
      expect((await store.head()).seq).toBe(head);
    }
  });
});
