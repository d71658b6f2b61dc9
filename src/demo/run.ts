import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { workspaceLayout } from '../store/jsonl/layout.js';
import { coordinationDemo } from './coordination.js';
import { workUnitsDemo } from './work-units.js';
import { flowDemo } from './flow.js';
import { tasksDemo } from './tasks.js';

/**
 * The README's first command: a demo workspace in a temporary folder, driven through the built
 * `baton` binary exactly as agents and wrappers drive it: the log, two agents negotiating, a team
 * flow, an initiative in waves, and last the tasks of an orchestrator that crashes mid-work — the
 * demo ends with `baton status` telling a returning agent exactly what to do next.
 */
const run = promisify(execFile);
const BIN = fileURLToPath(new URL('../../bin/baton.js', import.meta.url));

interface Result {
  stdout: string;
  stderr: string;
  code: number;
}

async function baton(dir: string, args: string[], env: Record<string, string> = {}): Promise<Result> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, '--dir', dir, ...args], { env: { ...process.env, ...env } });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; code?: number };
    return { stdout: e.stdout ?? '', stderr: e.stderr ?? '', code: e.code ?? 1 };
  }
}

function step(title: string): void {
  process.stdout.write(`\n\x1b[1m== ${title}\x1b[0m\n`);
}

function show(command: string, result: Result): void {
  process.stdout.write(`$ baton ${command}\n${result.stdout}${result.stderr}`);
  if (result.code !== 0) process.stdout.write(`(exit ${result.code})\n`);
}

/** Four agents append at once, each from its own process. */
async function concurrentAppends(dir: string): Promise<void> {
  step('Four agents append at once, each from its own process');
  const agents = ['claude-code', 'codex', 'gemini', 'cursor'];
  const perAgent = 10;
  const started = Date.now();
  await Promise.all(
    agents.map(async (agent) => {
      for (let i = 1; i <= perAgent; i++) {
        const result = await baton(
          dir,
          ['log', 'append', '--type', 'note.recorded', '--stream', `note/${agent}`, '--data', JSON.stringify({ text: `${agent}: step ${i} done` })],
          {
            BATON_AGENT_IDENTITY: agent,
          },
        );
        if (result.code !== 0) throw new Error(`append by ${agent} failed: ${result.stdout}${result.stderr}`);
      }
    }),
  );
  process.stdout.write(`${agents.length} processes × ${perAgent} appends through the CLI in ${Date.now() - started} ms\n`);
  show('log tail -n 3', await baton(dir, ['log', 'tail', '-n', '3']));
}

/** Idempotent retries, refused input, and the log verifying and summarising itself. */
async function logBasics(dir: string): Promise<void> {
  step('A retried append with the same idempotency key writes nothing');
  const args = [
    'log',
    'append',
    '--type',
    'note.recorded',
    '--stream',
    'note/ops',
    '--data',
    '{"text":"release 1.4 approved"}',
    '--idempotency-key',
    'approve-1.4',
    '--human',
  ];
  show(args.join(' '), await baton(dir, args));
  show(args.join(' '), await baton(dir, args));

  step('Bad input is refused, naming the field; nothing is written');
  show(
    `log append --type note.recorded --stream note/ops --data '{"text":""}' --human`,
    await baton(dir, ['log', 'append', '--type', 'note.recorded', '--stream', 'note/ops', '--data', '{"text":""}', '--human']),
  );

  step('The log verifies and summarises itself');
  show('log verify --human', await baton(dir, ['log', 'verify', '--human']));
  show('log stats --human', await baton(dir, ['log', 'stats', '--human']));
}

/** Tampering is caught: one byte flipped in a copy of the workspace. */
async function tamperedCopy(dir: string): Promise<void> {
  step('Tampering is caught: one byte flipped in a copy of the workspace');
  const copy = mkdtempSync(join(tmpdir(), 'baton-demo-tampered-'));
  cpSync(workspaceLayout(dir).root, workspaceLayout(copy).root, { recursive: true });
  const logDir = workspaceLayout(copy).log;
  const segment = join(logDir, readdirSync(logDir).sort()[0]!);
  const bytes = readFileSync(segment);
  const target = bytes.indexOf('step 7 done');
  if (target < 0) throw new Error('demo: the line to tamper with was not found');
  bytes[target + 5] = '8'.charCodeAt(0);
  writeFileSync(segment, bytes);
  show('log verify --human   (tampered copy)', await baton(copy, ['log', 'verify', '--human']));
}

/** Time travel, then the coordination, flow, work-unit and tasks stories. */
async function stories(dir: string): Promise<void> {
  step('Time travel: the stats as of seq 10');
  show('replay --view log_stats --to 10 --human', await baton(dir, ['replay', '--view', 'log_stats', '--to', '10', '--human']));
  step('Two agents negotiate a proposal to convergence (A2A.V1 signals, receipts, convergence)');
  await coordinationDemo((a, env) => baton(dir, a, env), show);

  step('A team flow: a failed verification, a second iteration, completion (Agent Flow phase gates)');
  await flowDemo((a, env) => baton(dir, a, env), show, dir);

  step('An initiative in waves: launch, claims, checkpoints, a stall, a contamination, finish (work units)');
  await workUnitsDemo((a, env) => baton(dir, a, env), show, dir);

  // Last: the demo ends with `baton status` telling a returning agent what to do next.
  step('Tasks and subagents: an orchestrator crashes mid-work; a returning agent asks `baton status` what to do next');
  const minute = Math.floor(Date.now() / 60_000) * 60_000;
  await tasksDemo((a, env) => baton(dir, a, env), show, {
    start: new Date(minute).toISOString(),
    narrate: (text) => process.stdout.write(`# ${text}\n`),
  });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'baton-demo-'));
  step(`A fresh workspace in ${dir} (it stays there: try node ${BIN} --dir ${dir} log tail)`);
  show('init --human', await baton(dir, ['init', '--human']));

  await concurrentAppends(dir);
  await logBasics(dir);
  await tamperedCopy(dir);
  await stories(dir);
}

main().catch((error: unknown) => {
  process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
