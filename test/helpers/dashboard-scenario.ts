import { workUnitsDemo } from '../../src/demo/work-units.js';
import { batonIn, jsonLines } from './cli.js';
import { demoRunnerIn } from './demo.js';

/**
 * A workspace for the dashboard's browser tests: the demo's initiative (INIT-7, driven to the end
 * through the CLI), then a second one (INIT-9) left mid-flight — WUs handed off, claimed, active,
 * returned, waiting on dependencies — with three sessions, a signal and a phase-gate flow, all
 * through the built CLI.
 */
export const at = (minute: number): string => `2026-11-20T09:${String(minute).padStart(2, '0')}:00Z`;

export interface Scenario {
  dir: string;
  sessions: { core: string; ui: string; docs: string };
  /** The server's clock: just after the last step. */
  now: string;
}

export async function buildDashboardScenario(dir: string): Promise<Scenario> {
  const step = async (args: string[], minute: number): Promise<string> => {
    const r = await batonIn(dir, ['--json', ...args], { env: { BATON_NOW: at(minute) } });
    if (r.code !== 0) throw new Error(`baton ${args.join(' ')} failed (${r.code}): ${r.stdout}${r.stderr}`);
    return r.stdout;
  };
  await batonIn(dir, ['init']);
  await workUnitsDemo(demoRunnerIn(dir), () => undefined, dir);
  await step(['initiative', 'create', 'INIT-9', '--title', 'Search revamp', '--lanes', 'Core,UI,Docs'], 0);
  await step(['wu', 'create', 'WU-11', '--initiative', 'INIT-9', '--lane', 'Core', '--title', 'Index schema', '--code-paths', 'src/search/index/**'], 0);
  await step(['wu', 'create', 'WU-12', '--initiative', 'INIT-9', '--lane', 'UI', '--title', 'Search box', '--code-paths', 'src/ui/search/**'], 0);
  await step(['wu', 'create', 'WU-13', '--initiative', 'INIT-9', '--lane', 'Docs', '--title', 'Search guide', '--code-paths', 'docs/search/**'], 0);
  await step(
    ['wu', 'create', 'WU-14', '--initiative', 'INIT-9', '--lane', 'Core', '--title', 'Ranking', '--deps', 'WU-11', '--code-paths', 'src/search/rank/**'],
    1,
  );
  await step(['wu', 'create', 'WU-15', '--initiative', 'INIT-9', '--lane', 'UI', '--title', 'Results page', '--deps', 'WU-12,WU-14'], 1);
  await step(['wu', 'create', 'WU-16', '--initiative', 'INIT-9', '--lane', 'Docs', '--title', 'Ranking notes', '--deps', 'WU-14'], 1);
  await step(['orchestrate', 'run', 'INIT-9', '--client', 'codex'], 2);
  const start = async (identity: string, client: string, minute: number): Promise<string> =>
    (jsonLines(await step(['session', 'start', '--agent-identity', identity, '--client', client], minute))[0] as { session: { id: string } }).session.id;
  const core = await start('codex:search-core', 'codex', 3);
  const ui = await start('claude:search-ui', 'claude-code', 3);
  const docs = await start('gemini:search-docs', 'gemini', 3);
  await step(['--session', core, 'wu', 'claim', 'WU-11'], 4);
  await step(['--session', core, 'wu', 'checkpoint', 'WU-11', '--note', 'schema drafted', '--progress', '60%'], 10);
  await step(['--session', ui, 'wu', 'claim', 'WU-12'], 5);
  await step(['--session', ui, 'wu', 'return', 'WU-12', '--note', 'box and keyboard shortcuts done'], 14);
  await step(['flow', 'init', 'Add', 'search', 'ranking'], 6);
  await step(['flow', 'update', '--phase', 'planning', '--gate-result', 'passed', '--agent', 'Riko', '--message', 'Found the index code'], 7);
  await step(
    [
      '--session',
      core,
      'mem',
      'signal',
      'Index schema: one document per page, or per section?',
      '--to',
      'claude:search-ui',
      '--intent',
      'PROPOSE',
      '--requires-ack',
    ],
    15,
  );
  return { dir, sessions: { core, ui, docs }, now: at(20) };
}
