import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { childCommand, PROJECT_ROOT } from '../support.js';
import { seeded } from './cli.js';
import { checkLog, parseReports, type Acknowledged } from './log-check.js';
import { emptyResult, record, type CampaignResult } from './outcome.js';

/**
 * The crash campaign: in each trial an appender (single events and batches of 2–6, some keyed) is
 * killed with SIGKILL at a random moment after its first acknowledged append, while 0–2 bystanders
 * append to the same log and are killed a moment later. Every append any of them reported done must
 * survive, no batch may be partly visible, the log must verify and take the next append. Logs grow
 * over several trials (rolling segments when small ones are drawn), then a fresh one starts.
 */
interface Child {
  done: Promise<{ stdout: string; stderr: string; signal: NodeJS.Signals | null; code: number | null }>;
  firstReport: Promise<void>;
  kill: () => void;
}

export function startAppender(workspace: string, tag: string, mode: 'loop' | 'storm', size: number): Child {
  const { args } = childCommand('reliability/append-child');
  const child = spawn(process.execPath, [...args, workspace, tag, mode, String(size)], { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let reported: () => void = () => undefined;
  const firstReport = new Promise<void>((resolve) => (reported = resolve));
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    stdout += chunk;
    if (stdout.includes('\n')) reported();
  });
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  const done = new Promise<{ stdout: string; stderr: string; signal: NodeJS.Signals | null; code: number | null }>((resolve) => {
    child.on('close', (code, signal) => {
      reported();
      resolve({ stdout, stderr, signal, code });
    });
  });
  return { done, firstReport, kill: () => child.kill('SIGKILL') };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function crashCampaign(options: { trials: number; seed: number; root: string; trialsPerLog?: number; onProgress?: (done: number) => void }): Promise<CampaignResult> {
  const started = Date.now();
  const result = emptyResult('crash (SIGKILL)');
  const random = seeded(options.seed);
  const perLog = options.trialsPerLog ?? 10;
  let workspace = '';
  let acknowledged: Acknowledged[] = [];
  for (let t = 0; t < options.trials; t++) {
    if (t % perLog === 0) {
      workspace = join(options.root, `log-${t / perLog}`);
      mkdirSync(workspace, { recursive: true });
      acknowledged = [];
    }
    const segmentBytes = random() < 0.5 ? 16 * 1024 : 64 * 1024 * 1024;
    const main = startAppender(workspace, `t${t}`, 'loop', segmentBytes);
    const bystanders = Array.from({ length: Math.floor(random() * 3) }, (_, b) => startAppender(workspace, `t${t}b${b}`, 'loop', segmentBytes));
    const guard = setTimeout(() => [main, ...bystanders].forEach((c) => c.kill()), 30_000);
    await main.firstReport;
    await sleep(random() * 40);
    main.kill();
    await sleep(random() * 15);
    for (const b of bystanders) b.kill();
    const outcomes = await Promise.all([main, ...bystanders].map((c) => c.done));
    clearTimeout(guard);
    for (const outcome of outcomes) {
      if (outcome.signal !== 'SIGKILL') record(result, 'otherFailures', `trial ${t}: an appender ended by itself (code ${outcome.code}): ${outcome.stderr.slice(0, 300)}`);
      acknowledged.push(...parseReports(outcome.stdout));
    }
    await checkLog(workspace, acknowledged, result, `trial ${t} (seed ${options.seed})`);
    result.trials += 1;
    options.onProgress?.(result.trials);
  }
  result.seconds = (Date.now() - started) / 1000;
  return result;
}

/**
 * The storm: `processes` appenders at once, each `appends` single appends with an idempotency key,
 * a third of them retried: every key is stored once, every retry answers the first seqs, seq 1…N
 * has no gap, and every acknowledged event is there.
 */
export async function stormCampaign(options: { processes: number; appends: number; root: string }): Promise<CampaignResult> {
  const started = Date.now();
  const result = emptyResult(`storm (${options.processes} processes)`);
  const workspace = join(options.root, 'storm');
  mkdirSync(workspace, { recursive: true });
  const children = Array.from({ length: options.processes }, (_, p) => startAppender(workspace, `p${p}`, 'storm', options.appends));
  const outcomes = await Promise.all(children.map((c) => c.done));
  const acknowledged: Acknowledged[] = [];
  for (const [p, outcome] of outcomes.entries()) {
    if (outcome.code !== 0) record(result, outcome.code === 1 ? 'exit1' : 'otherFailures', `storm process ${p} exited ${outcome.code ?? outcome.signal}: ${outcome.stderr.slice(0, 300)}`);
    acknowledged.push(...parseReports(outcome.stdout + '\n'));
  }
  const byKey = new Map<string, string>();
  for (const ack of acknowledged as (Acknowledged & { key: string | null })[]) {
    if (ack.key === null) continue;
    const seen = byKey.get(ack.key);
    const answer = JSON.stringify([ack.seqs, ack.hashes]);
    if (seen !== undefined && seen !== answer) record(result, 'otherFailures', `key ${ack.key}: a retry answered ${answer}, the first append ${seen}`);
    byKey.set(ack.key, answer);
  }
  const count = await checkLog(workspace, acknowledged, result, 'storm');
  if (count !== options.processes * options.appends) record(result, 'otherFailures', `storm: ${count} events stored for ${options.processes * options.appends} keys`);
  result.trials = options.processes * options.appends;
  result.seconds = (Date.now() - started) / 1000;
  return result;
}
