import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { StoredEvent } from '../../events/envelope.js';
import { AppendShape, type AppendInvocation } from './cli-append.js';
import { CliAppendLoop, drawAppend, fullyKeyed, settle, startAppend } from './cli-appender.js';
import { seeded, type CliRun } from './cli.js';
import { startAppender, type LibraryAppender } from './library-appender.js';
import { AcknowledgedSeqs, checkLog, parseReports, type Acknowledged } from './log-check.js';
import { count, emptyResult, record, type CampaignResult } from './outcome.js';

/**
 * The crash campaign through the built CLI: in each trial an agent's `baton log append` child (a
 * single event, a batch, or a file of calls; some keyed) is killed with SIGKILL while 0–2
 * bystanders append to the same log — other CLI children, or a library appender, whose small
 * segments roll the log the CLI then reads across — and are killed a moment later.
 *
 * A CLI child spends most of its life starting up: the kill is timed against a warm-up append the
 * same trial just made (a random share of its duration), so it lands in the append itself often.
 * When the child beat the kill, another is started and killed sooner, until one is killed.
 *
 * What the children acknowledged (printed their envelope and exited 0) must survive with its hash,
 * a seq acknowledged once is never acknowledged or stored with another hash, no batch is partly
 * visible, the log verifies and takes the next append. A keyed victim is retried, as an agent would
 * retry after a crash: its events are then stored exactly once. Logs grow over several trials.
 */
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * At most this many victims a trial: one that finished before its kill is followed by one killed
 * sooner, and the last is killed the moment it starts.
 */
const VICTIM_ATTEMPTS = 5;

/** What the row counts, in the order it prints them. */
const COVERED = [
  'CLI appenders killed',
  'killed after the write landed',
  'killed after printing, before exit 0',
  'keyed victims retried',
  'CLI appends acknowledged',
  'CLI bystanders',
  'library bystanders',
] as const;

type Bystander = { kind: 'cli'; loop: CliAppendLoop } | { kind: 'library'; child: LibraryAppender };

export async function cliCrashCampaign(options: {
  trials: number;
  seed: number;
  root: string;
  trialsPerLog?: number;
  parallel?: number;
  onProgress?: (done: number) => void;
}): Promise<CampaignResult> {
  const started = Date.now();
  const result = emptyResult('crash: CLI appenders (SIGKILL)');
  for (const label of COVERED) count(result, label, 0);
  const perLog = options.trialsPerLog ?? 10;
  const parallel = Math.max(1, options.parallel ?? 1);
  const runLane = async (lane: number): Promise<void> => {
    const random = seeded((options.seed ^ 0x3c1) + lane);
    let workspace = '';
    let acknowledged: Acknowledged[] = [];
    let ledger = new AcknowledgedSeqs();
    for (let t = lane, n = 0; t < options.trials; t += parallel, n++) {
      if (n % perLog === 0) {
        workspace = join(options.root, `log-${lane}-${n / perLog}`);
        mkdirSync(workspace, { recursive: true });
        acknowledged = [];
        ledger = new AcknowledgedSeqs();
      }
      const where = `CLI trial ${t} (seed ${options.seed})`;
      const take = (acks: readonly Acknowledged[]): void => {
        for (const ack of acks) ledger.add(ack, result, where);
        acknowledged.push(...acks);
        count(result, 'CLI appends acknowledged', acks.length);
      };
      const finished = (invocation: AppendInvocation, run: CliRun, who: string): Acknowledged[] => {
        const outcome = settle(invocation, run);
        if ('failure' in outcome) {
          record(result, outcome.failure.kind, `${where}: ${who} ${outcome.failure.message}`);
          return [];
        }
        take(outcome.acknowledged);
        return outcome.acknowledged;
      };

      const bystanders: Bystander[] = Array.from({ length: Math.floor(random() * 3) }, (_, b) =>
        random() < 0.25
          ? { kind: 'library', child: startAppender(workspace, `t${t}b${b}`, 'loop', random() < 0.5 ? 16 * 1024 : 64 * 1024 * 1024) }
          : { kind: 'cli', loop: new CliAppendLoop(workspace, `t${t}b${b}`, seeded(options.seed * 7919 + t * 3 + b)) },
      );

      // The warm-up: an append run to completion, timing this machine's CLI append right now.
      const warmUp = drawAppend(random, `t${t}-w`);
      const warmStarted = Date.now();
      finished(warmUp, await startAppend(workspace, warmUp).done, 'the warm-up append');
      const warmMs = Math.max(50, Date.now() - warmStarted);

      let victim: { invocation: AppendInvocation; run: CliRun; tag: string } | undefined;
      for (let attempt = 0; attempt < VICTIM_ATTEMPTS && victim === undefined; attempt++) {
        const tag = `t${t}-v${attempt}`;
        const invocation = drawAppend(random, tag);
        const running = startAppend(workspace, invocation);
        const last = attempt === VICTIM_ATTEMPTS - 1;
        await sleep(last ? 0 : warmMs * (0.6 + random() * 0.5) * 0.75 ** attempt);
        running.kill();
        const run = await running.done;
        if (run.signal === 'SIGKILL' && !run.timedOut) victim = { invocation, run, tag };
        else finished(invocation, run, `victim ${tag}`);
      }
      if (victim === undefined) record(result, 'otherFailures', `${where}: no victim was killed in ${VICTIM_ATTEMPTS} attempts`);
      await sleep(random() * 15);
      await Promise.all(
        bystanders.map(async (b): Promise<void> => {
          if (b.kind === 'cli') {
            await b.loop.kill();
            for (const failure of b.loop.failures) record(result, failure.kind, `${where}: a CLI bystander ${failure.message}`);
            take(b.loop.acknowledged);
            count(result, 'CLI bystanders');
            return;
          }
          b.child.kill();
          const outcome = await b.child.done;
          if (outcome.signal !== 'SIGKILL')
            record(result, 'otherFailures', `${where}: a library bystander ended by itself (code ${outcome.code}): ${outcome.stderr.slice(0, 300)}`);
          const reports = parseReports(outcome.stdout);
          for (const ack of reports) ledger.add(ack, result, where);
          acknowledged.push(...reports);
          count(result, 'library bystanders');
        }),
      );

      // A keyed victim is retried, as an agent retries after a crash.
      const retry =
        victim !== undefined && fullyKeyed(victim.invocation)
          ? finished(victim.invocation, await startAppend(workspace, victim.invocation).done, `the retry of ${victim.tag}`)
          : undefined;

      const events = await checkLog(workspace, acknowledged, result, where);
      if (victim !== undefined) judgeVictim(victim, retry, events, result, where);
      result.trials += 1;
      options.onProgress?.(result.trials);
    }
  };
  // Lanes run side by side, each on logs of its own: lane l runs trials l, l + parallel, …
  await Promise.all(Array.from({ length: parallel }, (_, lane) => runLane(lane)));
  result.seconds = (Date.now() - started) / 1000;
  return result;
}

/**
 * Where the kill landed, from the victim's own events in the log (a retried victim's: from whether
 * the retry was answered by what the victim had stored); a retried victim's events are there
 * exactly once.
 */
function judgeVictim(
  victim: { invocation: AppendInvocation; run: CliRun; tag: string },
  retry: readonly Acknowledged[] | undefined,
  events: readonly StoredEvent[],
  result: CampaignResult,
  where: string,
): void {
  count(result, 'CLI appenders killed');
  if (victim.run.stdout.trim() !== '') count(result, 'killed after printing, before exit 0');
  const prefix = `${victim.tag}.`;
  const stored = events.filter((e) => typeof e.data['text'] === 'string' && e.data['text'].startsWith(prefix)).length;
  const wanted = victim.invocation.notes.length;
  if (retry !== undefined ? retry.some((ack) => ack.deduplicated) : stored > 0) count(result, 'killed after the write landed');
  if (retry !== undefined) {
    count(result, 'keyed victims retried');
    if (stored !== wanted)
      record(
        result,
        'otherFailures',
        `${where}: the keyed ${victim.invocation.shape} ${victim.tag}, killed and retried, has ${stored} events stored, not ${wanted}`,
      );
  } else if (stored !== 0 && stored !== wanted && victim.invocation.shape !== AppendShape.lines) {
    record(result, 'partialBatches', `${where}: ${stored} of the ${wanted} events of the killed ${victim.invocation.shape} ${victim.tag} are stored`);
  }
}
