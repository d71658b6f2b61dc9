import { spawnSync } from 'node:child_process';
import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { createCatalog } from '../events/index.js';
import type { CoordinationEnv } from '../src/coordination/env.js';
import { sendSignal } from '../src/coordination/send.js';
import { startSession } from '../src/coordination/sessions.js';
import { DEFAULT_COORDINATION_SETTINGS } from '../src/coordination/settings-values.js';
import { JsonlEventStore } from '../src/store/jsonl/jsonl-store.js';
import { envWithout, interleaveWithNode, nodeRatioRow } from './node-reference.js';
import { formatNumber, type BenchResult } from './report.js';
import { makeTempDir, median, noteText, PROJECT_ROOT, removeTempDir, withTempDir } from './support.js';

export const SHORT_COMMAND = {
  name: 'short-command',
  work: 'a short command: `baton --version`',
  maxRatio: 2,
};

export const BATON_BIN = join(PROJECT_ROOT, 'dist', 'bin', 'baton.js');

/** Wall time of one `node ARGS` run, in ms; throws when it fails. */
function timeNode(args: readonly string[], env: NodeJS.ProcessEnv): number {
  return runNode(args, env).ms;
}

function runNode(args: readonly string[], env: NodeJS.ProcessEnv): { ms: number; stdout: string } {
  const start = performance.now();
  const result = spawnSync(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env, cwd: PROJECT_ROOT, encoding: 'utf8' });
  const ms = performance.now() - start;
  if (result.status !== 0)
    throw new Error(`node ${args.join(' ')} exited with ${result.status}: ${String(result.stderr).trim() || String(result.stdout).trim()}`);
  return { ms, stdout: result.stdout };
}

/**
 * `node dist/bin/baton.js --version` against `node -e 0`, interleaved, `runs` of each after two
 * warm-up runs; medians compared. `baton log append` (a real durable append through the bundled
 * CLI, into a fresh workspace) is reported as information.
 */
export async function benchShortCommand(options: { runs: number }): Promise<BenchResult> {
  if (!existsSync(BATON_BIN)) throw new Error(`${BATON_BIN} is missing: build it with \`node scripts/bundle-cli.mjs\` (or npm run build)`);
  const env = envWithout();
  const { nodeMs, commandMs: versionMs } = interleaveWithNode(
    options.runs,
    () => timeNode(['-e', '0'], env),
    () => timeNode([BATON_BIN, '--version'], env),
  );

  const appendMs = await withTempDir('short-command', async (dir) => {
    timeNode([BATON_BIN, 'init', '--dir', dir, '--json'], env);
    const times: number[] = [];
    for (let i = 0; i < Math.max(5, Math.ceil(options.runs / 2)); i++) {
      const data = JSON.stringify({ text: noteText(`cli${i}`) });
      times.push(timeNode([BATON_BIN, 'log', 'append', '--dir', dir, '--json', '--type', 'note.recorded', '--stream', 'note/bench', '--data', data], env));
    }
    return times;
  });

  const append = median(appendMs);
  return nodeRatioRow(SHORT_COMMAND, { nodeMs, commandMs: versionMs, runs: 'runs of `node dist/bin/baton.js --version`' }, (node) => [
    `\`baton log append\` (init'd workspace, durable append): median ${formatNumber(append, 1)} ms over ${appendMs.length} runs = ${(append / node).toFixed(2)}× node -e 0 (no floor)`,
  ]);
}

export const SHORT_INBOX = {
  name: 'short-command-inbox',
  work: 'a short command: `baton mem inbox --no-mark` (4 sessions, 50 signals)',
  maxRatio: 2,
  sessions: 4,
  signals: 50,
};

/**
 * A small, realistic coordination history, written through the library as the CLI would: `baton
 * init`'s workspace, SHORT_INBOX.sessions sessions, SHORT_INBOX.signals signals between them (every
 * seventh a broadcast). Returns the session whose inbox is read.
 */
async function inboxWorkspace(dir: string, env: NodeJS.ProcessEnv): Promise<string> {
  timeNode([BATON_BIN, 'init', '--dir', dir, '--json'], env);
  const store = new JsonlEventStore(dir, { catalog: createCatalog(), actor: 'bench' });
  try {
    const base: CoordinationEnv = {
      store,
      catalog: createCatalog(),
      settings: DEFAULT_COORDINATION_SETTINGS,
      now: new Date().toISOString(),
      session: undefined,
      envIdentity: undefined,
    };
    const sessions: { id: string; name: string }[] = [];
    for (let i = 0; i < SHORT_INBOX.sessions; i++) {
      const started = await startSession({ ...base, now: new Date().toISOString() }, { agent_identity: `bench:agent:${i}`, role: 'implementer' });
      sessions.push({ id: started.session.session_id, name: started.session.display_name });
    }
    for (let i = 0; i < SHORT_INBOX.signals; i++) {
      const from = sessions[i % sessions.length]!;
      const to = sessions[(i + 1) % sessions.length]!;
      await sendSignal(
        { ...base, now: new Date().toISOString(), session: from.id },
        i % 7 === 0
          ? { message: `broadcast ${i}: lane freeze until the release is cut` }
          : { message: `message ${i}: please review the change in lane Core`, to: [to.name] },
      );
    }
    return sessions[1]!.id;
  } finally {
    await store.close();
  }
}

/**
 * `node dist/bin/baton.js mem inbox --no-mark` on a small workspace against `node -e 0`,
 * interleaved, `runs` of each after two warm-up runs; medians compared. `mem inbox` that marks
 * (the default: it appends the delivered receipts, one durable append) is reported as information,
 * each run on a fresh copy of the workspace so that it has receipts to record.
 */
export async function benchShortInbox(options: { runs: number }): Promise<BenchResult> {
  if (!existsSync(BATON_BIN)) throw new Error(`${BATON_BIN} is missing: build it with \`node scripts/bundle-cli.mjs\` (or npm run build)`);
  const env = envWithout();
  const template = makeTempDir('short-inbox');
  try {
    const reader = await inboxWorkspace(template, env);
    const peekArgs = [BATON_BIN, 'mem', 'inbox', '--no-mark', '--dir', template, '--json', '--session', reader];
    const peek = JSON.parse(runNode(peekArgs, env).stdout.trim().split('\n').at(-1)!) as { type: string; signals: unknown[] };
    if (peek.type !== 'inbox' || peek.signals.length === 0) throw new Error(`mem inbox printed no signals: ${JSON.stringify(peek).slice(0, 200)}`);
    const { nodeMs, commandMs: peekMs } = interleaveWithNode(
      options.runs,
      () => timeNode(['-e', '0'], env),
      () => timeNode(peekArgs, env),
    );

    const markMs: number[] = [];
    let marked = 0;
    for (let i = 0; i < Math.max(5, Math.ceil(options.runs / 2)); i++) {
      const copy = makeTempDir('short-inbox-mark');
      try {
        cpSync(template, copy, { recursive: true });
        const run = runNode([BATON_BIN, 'mem', 'inbox', '--dir', copy, '--json', '--session', reader], env);
        markMs.push(run.ms);
        marked = (JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { marked: number }).marked;
      } finally {
        removeTempDir(copy);
      }
    }

    const mark = median(markMs);
    return nodeRatioRow(
      SHORT_INBOX,
      { nodeMs, commandMs: peekMs, runs: `runs of \`node dist/bin/baton.js mem inbox --no-mark\` listing ${peek.signals.length} signals` },
      (node) => [
        `\`baton mem inbox\` (marks ${marked} delivered receipts: one durable append): median ${formatNumber(mark, 1)} ms over ${markMs.length} runs = ${(mark / node).toFixed(2)}× node -e 0 (no floor)`,
      ],
    );
  } finally {
    removeTempDir(template);
  }
}
