import { closeSync, cpSync, mkdirSync, openSync, readFileSync, readdirSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { JsonlEventStore } from '../../src/store/jsonl/jsonl-store.js';
import { runCli, seeded } from './cli.js';
import { emptyResult, record, type CampaignResult } from './outcome.js';

/**
 * The byte-flip campaign: one byte anywhere in a log's lines (but its final newline, which makes a
 * torn tail, not a corruption) is changed in a copy of the log; `log verify` must exit 3 naming the
 * line, `log show` must exit 3, and `log append` must exit 3 LOG_CORRUPT and change nothing — the
 * append must never be acknowledged on a log a read refuses, however far before the tail the flip is.
 */
export async function byteFlipCampaign(options: { flips: number; seed: number; root: string; events?: number }): Promise<CampaignResult> {
  const started = Date.now();
  const result = emptyResult('byte flips');
  const random = seeded(options.seed);
  const base = join(options.root, 'flip-base');
  mkdirSync(base, { recursive: true });
  const store = new JsonlEventStore(base);
  const total = options.events ?? 1_500;
  for (let seq = 1; seq <= total; ) {
    const size = Math.min(total - seq + 1, random() < 0.5 ? 1 : 2 + Math.floor(random() * 8));
    await store.append(Array.from({ length: size }, (_, k) => ({ type: 'note.recorded', stream: `note/f${k % 4}`, data: { text: `flip target ${seq + k} ✓ ${'y'.repeat(Math.floor(random() * 120))}` } })));
    seq += size;
  }
  await store.close();
  const segment = join(base, '.baton', 'log', readdirSync(join(base, '.baton', 'log')).find((n) => n.endsWith('.jsonl'))!);
  const original = readFileSync(segment);
  for (let f = 0; f < options.flips; f++) {
    const copy = join(options.root, `flip-${f}`);
    cpSync(base, copy, { recursive: true });
    const copySegment = join(copy, '.baton', 'log', segment.split('/').at(-1)!);
    // A healthy append first, as an agent would: the writer records what it checked, and the flip
    // below comes after that record, in place (the case a tail-only catch-up acknowledged).
    const healthy = await runCli(['--json', '--dir', copy, 'log', 'append', '--type', 'note.recorded', '--stream', 'note/ops', '--data', '{"text":"before the flip"}']);
    if (healthy.code !== 0) record(result, healthy.code === 1 ? 'exit1' : 'otherFailures', `flip ${f}: the healthy append exited ${healthy.code}`);
    const position = Math.floor(random() * (original.length - 1));
    const fd = openSync(copySegment, 'r+');
    try {
      const byte = Buffer.alloc(1);
      readSync(fd, byte, 0, 1, position);
      writeSync(fd, Buffer.from([byte[0]! ^ (1 + Math.floor(random() * 255))]), 0, 1, position);
    } finally {
      closeSync(fd);
    }
    const bytes = readFileSync(copySegment);
    const lineSeq = original.subarray(0, position).toString('utf8').split('\n').length;
    const where = `flip ${f}: byte ${position} (line ${lineSeq}, seed ${options.seed})`;
    const verify = await runCli(['--json', '--dir', copy, 'log', 'verify']);
    const show = await runCli(['--json', '--dir', copy, 'log', 'show']);
    const append = await runCli(['--json', '--dir', copy, 'log', 'append', '--type', 'note.recorded', '--stream', 'note/ops', '--data', '{"text":"after a flip"}']);
    for (const [what, r] of [['verify', verify], ['show', show], ['append', append]] as const) {
      if (r.code === 1 || r.code === null) record(result, 'exit1', `${where}: log ${what} exited ${r.code ?? r.signal}: ${(r.stdout + r.stderr).slice(0, 200)}`);
      else if (r.code !== 3) record(result, 'otherFailures', `${where}: log ${what} exited ${r.code}, not 3`);
    }
    if (verify.code === 3) {
      const report = JSON.parse(verify.stdout.trim().split('\n')[0]!) as { first_bad: { seq: number } | null };
      if (report.first_bad === null || report.first_bad.seq > lineSeq) record(result, 'otherFailures', `${where}: verify named ${JSON.stringify(report.first_bad)}`);
    }
    if (!readFileSync(copySegment).equals(bytes)) record(result, 'otherFailures', `${where}: the refused append changed the log`);
    result.checked += 1;
    result.trials += 1;
  }
  result.seconds = (Date.now() - started) / 1000;
  return result;
}
