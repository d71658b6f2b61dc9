import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startAppender } from './library-appender.js';
import { AcknowledgedSeqs, checkLog, parseReports, type Acknowledged } from './log-check.js';
import { count, emptyResult, record, type CampaignResult } from './outcome.js';

/**
 * The library storm: `processes` appenders driving the JSONL store in-process at once, each
 * `appends` single appends with its own idempotency keys, a third of them retried: every key is
 * stored once, every retry answers the first seqs, seq 1…N has no gap, and every acknowledged event
 * is there. The storm through the CLI, racing keys between processes, is cli-storm.ts.
 */
export async function libraryStormCampaign(options: { processes: number; appends: number; root: string }): Promise<CampaignResult> {
  const started = Date.now();
  const result = emptyResult(`storm: ${options.processes} library appenders`);
  const workspace = join(options.root, 'storm');
  mkdirSync(workspace, { recursive: true });
  const children = Array.from({ length: options.processes }, (_, p) => startAppender(workspace, `p${p}`, 'storm', options.appends));
  const outcomes = await Promise.all(children.map((c) => c.done));
  const acknowledged: Acknowledged[] = [];
  const ledger = new AcknowledgedSeqs();
  for (const [p, outcome] of outcomes.entries()) {
    if (outcome.code !== 0)
      record(
        result,
        outcome.code === 1 ? 'exit1' : 'otherFailures',
        `storm process ${p} exited ${outcome.code ?? outcome.signal}: ${outcome.stderr.slice(0, 300)}`,
      );
    const reports = parseReports(outcome.stdout + '\n');
    for (const ack of reports) ledger.add(ack, result, 'library storm');
    acknowledged.push(...reports);
  }
  const byKey = new Map<string, string>();
  for (const ack of acknowledged) {
    if (ack.key === null || ack.key === undefined) continue;
    const seen = byKey.get(ack.key);
    const answer = JSON.stringify([ack.seqs, ack.hashes]);
    if (seen !== undefined && seen !== answer) record(result, 'otherFailures', `key ${ack.key}: a retry answered ${answer}, the first append ${seen}`);
    else if (seen !== undefined) count(result, 'retries answered the first seqs');
    byKey.set(ack.key, answer);
  }
  const stored = (await checkLog(workspace, acknowledged, result, 'library storm')).length;
  if (stored !== options.processes * options.appends)
    record(result, 'otherFailures', `library storm: ${stored} events stored for ${options.processes * options.appends} keys`);
  count(result, 'keys', byKey.size);
  result.trials = options.processes * options.appends;
  result.seconds = (Date.now() - started) / 1000;
  return result;
}
