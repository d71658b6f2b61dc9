import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { seeded } from './cli.js';
import { startAppender } from './library-appender.js';
import { AcknowledgedSeqs, checkLog, parseReports, type Acknowledged } from './log-check.js';
import { count, emptyResult, record, type CampaignResult } from './outcome.js';

/**
 * The library crash campaign: in each trial an appender driving the JSONL store in-process (single
 * events and batches of 2–6, some keyed) is killed with SIGKILL at a random moment after its first
 * acknowledged append, while 0–2 bystanders append to the same log and are killed a moment later.
 * Every append any of them reported done must survive with its hash, no batch may be partly
 * visible, the log must verify and take the next append. Logs grow over several trials (rolling
 * segments when small ones are drawn), then a fresh one starts. The CLI's own crash campaign is
 * cli-crash.ts; this one reaches moments a CLI child, most of whose life is starting up, rarely is
 * killed in.
 */
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function libraryCrashCampaign(options: {
  trials: number;
  seed: number;
  root: string;
  trialsPerLog?: number;
  onProgress?: (done: number) => void;
}): Promise<CampaignResult> {
  const started = Date.now();
  const result = emptyResult('crash: library appenders (SIGKILL)');
  const random = seeded(options.seed);
  const perLog = options.trialsPerLog ?? 10;
  let workspace = '';
  let acknowledged: Acknowledged[] = [];
  let ledger = new AcknowledgedSeqs();
  for (let t = 0; t < options.trials; t++) {
    if (t % perLog === 0) {
      workspace = join(options.root, `log-${t / perLog}`);
      mkdirSync(workspace, { recursive: true });
      acknowledged = [];
      ledger = new AcknowledgedSeqs();
    }
    const where = `trial ${t} (seed ${options.seed})`;
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
      if (outcome.signal !== 'SIGKILL')
        record(result, 'otherFailures', `${where}: an appender ended by itself (code ${outcome.code}): ${outcome.stderr.slice(0, 300)}`);
      const reports = parseReports(outcome.stdout);
      for (const ack of reports) ledger.add(ack, result, where);
      acknowledged.push(...reports);
      count(result, 'library appenders killed');
      count(result, 'appends acknowledged', reports.length);
    }
    await checkLog(workspace, acknowledged, result, where);
    result.trials += 1;
    options.onProgress?.(result.trials);
  }
  result.seconds = (Date.now() - started) / 1000;
  return result;
}
