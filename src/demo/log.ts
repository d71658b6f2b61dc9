import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { workspaceLayout } from '../store/jsonl/layout.js';
import type { BatonRun } from './coordination.js';

/**
 * The log part of the demo: four agents append at once from four processes, a retried append with
 * the same idempotency key writes nothing, bad input is refused naming the field, the log verifies
 * and summarises itself, a flipped byte in a copy is caught, and the stats are replayed as of an
 * earlier position. `baton` runs the built binary (arguments after `--dir`) in `dir`; `inCopy` runs
 * it in the tampered copy, `copy` (an empty folder); `show` prints a step, `heading` a part of it.
 */
type Result = Awaited<ReturnType<BatonRun>>;

export interface LogDemoIo {
  baton: BatonRun;
  inCopy: BatonRun;
  dir: string;
  copy: string;
  show: (command: string, result: Result) => void;
  heading: (title: string) => void;
}

const AGENTS = ['claude-code', 'codex', 'gemini', 'cursor'];
const PER_AGENT = 10;

/** Four agents append at once, each from its own process: every append lands, in one chain. */
async function concurrentAppends({ baton, show, heading }: LogDemoIo): Promise<number> {
  heading('Four agents append at once, each from its own process');
  const started = Date.now();
  await Promise.all(
    AGENTS.map(async (agent) => {
      for (let i = 1; i <= PER_AGENT; i++) {
        const args = ['log', 'append', '--type', 'note.recorded', '--stream', `note/${agent}`, '--data', JSON.stringify({ text: `${agent}: step ${i} done` })];
        const result = await baton(args, { BATON_AGENT_IDENTITY: agent });
        if (result.code !== 0) throw new Error(`append by ${agent} failed: ${result.stdout}${result.stderr}`);
      }
    }),
  );
  const ms = Date.now() - started;
  process.stdout.write(`${AGENTS.length} processes × ${PER_AGENT} appends through the CLI in ${ms} ms\n`);
  show('--human log tail -n 3', await baton(['--human', 'log', 'tail', '-n', '3']));
  return ms;
}

/** Idempotent retries, refused input, and the log verifying and summarising itself. */
async function logBasics({ baton, show, heading }: LogDemoIo): Promise<string> {
  heading('A retried append with the same idempotency key writes nothing');
  const data = '{"text":"release 1.4 approved"}';
  const args = ['--human', 'log', 'append', '--type', 'note.recorded', '--stream', 'note/ops', '--data', data, '--idempotency-key', 'approve-1.4'];
  const shown = args.map((a) => (a === data ? `'${a}'` : a)).join(' ');
  show(shown, await baton(args));
  show(shown, await baton(args));

  heading('Bad input is refused, naming the field; nothing is written');
  show(
    `--human log append --type note.recorded --stream note/ops --data '{"text":""}'`,
    await baton(['--human', 'log', 'append', '--type', 'note.recorded', '--stream', 'note/ops', '--data', '{"text":""}']),
  );

  heading('The log verifies and summarises itself');
  const verify = await baton(['--human', 'log', 'verify']);
  show('--human log verify', verify);
  show('--human log stats', await baton(['--human', 'log', 'stats']));
  return verify.stdout.split('\n')[0]!;
}

/** Tampering is caught: one byte flipped in a copy of the workspace. Returns what verify said first. */
async function tamperedCopy({ dir, copy, inCopy, show, heading }: LogDemoIo): Promise<string> {
  heading('Tampering is caught: one byte flipped in a copy of the workspace');
  cpSync(workspaceLayout(dir).root, workspaceLayout(copy).root, { recursive: true });
  const logDir = workspaceLayout(copy).log;
  const segment = join(logDir, readdirSync(logDir).sort()[0]!);
  const bytes = readFileSync(segment);
  const target = bytes.indexOf('step 7 done');
  if (target < 0) throw new Error('demo: the line to tamper with was not found');
  bytes[target + 5] = '8'.charCodeAt(0);
  writeFileSync(segment, bytes);
  const verify = await inCopy(['--human', 'log', 'verify']);
  show('--human log verify   # in the tampered copy', verify);
  return verify.stdout.split('\n')[0]!;
}

/** The log part; its one line for the closing summary. */
export async function logDemo(io: LogDemoIo): Promise<string> {
  const ms = await concurrentAppends(io);
  const verified = /(\d+) events/.exec(await logBasics(io))?.[1] ?? '?';
  const caught = await tamperedCopy(io);
  io.heading('Time travel: the stats as of seq 10');
  io.show('--human replay --view log_stats --to 10', await io.baton(['--human', 'replay', '--view', 'log_stats', '--to', '10']));
  const seq = /at seq (\d+)/.exec(caught)?.[1];
  return (
    `${AGENTS.length * PER_AGENT} appends from ${AGENTS.length} processes in ${ms} ms; a retry wrote nothing; ${verified} events verified; ` +
    (seq !== undefined ? `a flipped byte caught at seq ${seq}` : `the flipped byte: ${caught}`)
  );
}
