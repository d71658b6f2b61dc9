import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AppendShape, type AppendInvocation, type Note } from './cli-append.js';
import { settle, startAppend } from './cli-appender.js';
import { seeded } from './cli.js';
import { AcknowledgedSeqs, checkLog, type Acknowledged } from './log-check.js';
import { count, emptyResult, record, type CampaignResult } from './outcome.js';

/**
 * The storm through the built CLI: `processes` agents append at once, each a sequence of `baton log
 * append` children, racing the same idempotency keys between processes. Every key is a fixed
 * content (one event, or a batch of 2–5) that at least two processes append, each in its own way
 * (a keyed single append, a line of a `--events` file, a keyed `--batch` acknowledged by `--each`
 * or by its summary), and some append again later.
 *
 * Each key must end up stored exactly once (one acknowledgement stored it, every other was answered
 * as deduplicated), every process acknowledged for a key must have been given the same seqs and
 * hashes, and the log holds exactly the keys' events, verifies and takes the next append.
 */
interface StormKey {
  key: string;
  notes: Note[];
}

/** One process's invocations, in order. */
function plan(mine: readonly StormKey[], random: () => number): AppendInvocation[] {
  // A few of its keys come back later, as a retry of an append whose answer was lost.
  const order: StormKey[] = [];
  const later: StormKey[] = [];
  for (const key of mine) {
    order.push(key, ...later.splice(0, random() < 0.3 ? 1 : 0));
    if (random() < 1 / 6) later.push(key);
  }
  order.push(...later);
  const invocations: AppendInvocation[] = [];
  for (let i = 0; i < order.length;) {
    const key = order[i]!;
    if (key.notes.length > 1) {
      invocations.push({ shape: AppendShape.batch, notes: key.notes, key: key.key, summary: random() < 0.3 });
      i += 1;
      continue;
    }
    if (random() < 0.5) {
      invocations.push({ shape: AppendShape.single, notes: key.notes, key: key.key });
      i += 1;
      continue;
    }
    // A file of the next few single-event keys, each line keyed.
    const lines: Note[] = [];
    while (i < order.length && order[i]!.notes.length === 1 && lines.length < 2 + Math.floor(random() * 4)) {
      lines.push({ ...order[i]!.notes[0]!, key: order[i]!.key });
      i += 1;
    }
    invocations.push({ shape: AppendShape.lines, notes: lines });
  }
  return invocations;
}

export async function cliStormCampaign(options: {
  processes: number;
  keys: number;
  seed: number;
  root: string;
  onProgress?: (done: number) => void;
}): Promise<CampaignResult> {
  const started = Date.now();
  const result = emptyResult(`storm: ${options.processes} CLI processes, raced keys`);
  const random = seeded(options.seed ^ 0x570);
  const workspace = join(options.root, 'cli-storm');
  mkdirSync(workspace, { recursive: true });
  const keys: StormKey[] = Array.from({ length: options.keys }, (_, k) => {
    const size = random() < 0.3 ? 2 + Math.floor(random() * 4) : 1;
    return {
      key: `storm-${k}`,
      notes: Array.from({ length: size }, (_, i) => ({
        stream: `note/storm-${k % 5}`,
        text: `storm key ${k} #${i} ${'z'.repeat(Math.floor(random() * 200))}`,
      })),
    };
  });
  // Who appends each key: every process with even odds, and never fewer than two.
  const takers = keys.map(() => {
    const chosen = new Set<number>();
    for (let p = 0; p < options.processes; p++) if (random() < 0.5) chosen.add(p);
    while (chosen.size < Math.min(2, options.processes)) chosen.add(Math.floor(random() * options.processes));
    return chosen;
  });
  const plans = Array.from({ length: options.processes }, (_, p) =>
    plan(
      keys.filter((_, k) => takers[k]!.has(p)),
      seeded(options.seed * 131 + p),
    ),
  );
  count(result, 'keys', keys.length);
  count(result, 'batch keys', keys.filter((k) => k.notes.length > 1).length);
  count(result, 'keys raced by 2+ processes', 0);
  count(result, 'deduplicated answers', 0);
  const byProcess: Acknowledged[][] = plans.map(() => []);
  let invocations = 0;
  await Promise.all(
    plans.map(async (invocationsOf, p) => {
      for (const invocation of invocationsOf) {
        const outcome = settle(invocation, await startAppend(workspace, invocation).done);
        invocations += 1;
        options.onProgress?.(invocations);
        if ('failure' in outcome)
          record(
            result,
            outcome.failure.kind,
            `storm process ${p}, ${invocation.shape} of ${invocation.key ?? invocation.notes.map((n) => n.key).join(' ')}: ${outcome.failure.message}`,
          );
        else byProcess[p]!.push(...outcome.acknowledged);
      }
    }),
  );

  const ledger = new AcknowledgedSeqs();
  const answers = new Map<string, { process: number; ack: Acknowledged }[]>();
  for (const [p, acks] of byProcess.entries()) {
    for (const ack of acks) {
      ledger.add(ack, result, `storm process ${p}`);
      const list = answers.get(ack.key!) ?? [];
      list.push({ process: p, ack });
      answers.set(ack.key!, list);
    }
  }
  for (const { key, notes } of keys) {
    const list = answers.get(key) ?? [];
    const stored = list.filter((a) => !a.ack.deduplicated);
    if (stored.length !== 1)
      record(
        result,
        'otherFailures',
        `key ${key}: ${stored.length} acknowledgements stored it (processes ${stored.map((a) => a.process).join(', ')}), not one`,
      );
    const first = list[0];
    for (const other of list.slice(1)) {
      if (!sameAnswer(first!.ack, other.ack))
        record(
          result,
          'otherFailures',
          `key ${key}: process ${first!.process} was given seqs ${first!.ack.seqs.join(',')}, process ${other.process} ${other.ack.seqs.join(',')} (or other hashes)`,
        );
    }
    if (first !== undefined && first.ack.seqs.length !== notes.length)
      record(result, 'otherFailures', `key ${key}: acknowledged ${first.ack.seqs.length} events for its ${notes.length}`);
    const processes = new Set(list.map((a) => a.process));
    if (processes.size >= 2) count(result, 'keys raced by 2+ processes');
    count(result, 'deduplicated answers', list.length - stored.length);
  }
  const acknowledged = byProcess.flat();
  const events = await checkLog(workspace, acknowledged, result, 'CLI storm');
  // Exactly the keys' events, each key's under its key, once.
  const wanted = keys.reduce((sum, k) => sum + k.notes.length, 0);
  if (events.length !== wanted) record(result, 'otherFailures', `CLI storm: ${events.length} events stored for ${wanted} in ${keys.length} keys`);
  const perKey = new Map<string, number>();
  for (const event of events) if (event.idempotency_key !== undefined) perKey.set(event.idempotency_key, (perKey.get(event.idempotency_key) ?? 0) + 1);
  for (const { key, notes } of keys) {
    if ((perKey.get(key) ?? 0) !== notes.length)
      record(result, 'otherFailures', `key ${key}: ${perKey.get(key) ?? 0} events stored under it for its ${notes.length}`);
  }
  result.trials = invocations;
  result.seconds = (Date.now() - started) / 1000;
  return result;
}

/** Two acknowledgements of one key agree: the same seqs, and the same hash wherever both name one. */
function sameAnswer(a: Acknowledged, b: Acknowledged): boolean {
  if (a.seqs.join(',') !== b.seqs.join(',')) return false;
  return a.hashes.every((hash, i) => hash === null || b.hashes[i] === null || b.hashes[i] === hash);
}
