import { afterAll, describe, expect, it } from 'vitest';
import { StoredEventSchema } from '../events/envelope.js';
import { AppendedEnvelope, LogVerificationEnvelope } from '../src/app/envelopes/foundation.js';
import { batonIn, errorEnvelopeOf, jsonLines, type CliResult } from './helpers/cli.js';
import { makeTempDir, removeTempDirs, storedLines } from './helpers/workspace.js';

/**
 * Many `baton` processes appending to one workspace at once: the cross-process lock must hand out
 * seq 1…N with no gap, no repeat and no lost append, and expected versions must be decided against
 * what the other processes committed.
 */
afterAll(() => removeTempDirs());

async function initWorkspace(): Promise<string> {
  const workspace = makeTempDir('baton-concurrent-');
  const init = await batonIn(workspace, ['init']);
  expect(init.code).toBe(0);
  return workspace;
}

interface Appended {
  seq: number;
  id: string;
  hash: string;
  text: string;
}

/** `log show` of the whole log, checked: seq 1…n contiguous, and `log verify` ok. */
async function showAndVerify(workspace: string, n: number): Promise<Map<number, { id: string; hash: string; text: string }>> {
  const show = await batonIn(workspace, ['log', 'show']);
  expect(show.code).toBe(0);
  const events = jsonLines(show.stdout).map((value) => StoredEventSchema.parse(value));
  expect(events.map((e) => e.seq)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
  // What log show printed is exactly the segment content.
  expect(show.stdout).toBe(
    storedLines(workspace)
      .map((line) => `${line}\n`)
      .join(''),
  );
  const verify = await batonIn(workspace, ['log', 'verify']);
  expect(verify.code).toBe(0);
  expect(LogVerificationEnvelope.parse(jsonLines(verify.stdout)[0])).toMatchObject({ ok: true, head_seq: n, checked: n, first_bad: null });
  return new Map(events.map((e) => [e.seq, { id: e.id, hash: e.hash, text: String(e.data['text']) }]));
}

/** Every append a process was told about is in the log once, with the seq, id and hash it was given. */
function expectEachOnce(log: Map<number, { id: string; hash: string; text: string }>, reported: Appended[]): void {
  const bySeq = new Map<number, Appended>();
  for (const r of reported) {
    expect(bySeq.has(r.seq), `seq ${r.seq} handed out twice`).toBe(false);
    bySeq.set(r.seq, r);
    expect(log.get(r.seq)).toEqual({ id: r.id, hash: r.hash, text: r.text });
  }
  const texts = [...log.values()].map((e) => e.text);
  expect(new Set(texts).size).toBe(texts.length);
  expect(bySeq.size).toBe(log.size);
}

describe('concurrent appends from separate processes', () => {
  it('8 processes appending 500 events each through `log append --events -` (one append call per line) get seq 1…4000, none lost or repeated', async () => {
    const workspace = await initWorkspace();
    const processes = 8;
    const perProcess = 500;
    const inputs = Array.from(
      { length: processes },
      (_, p) =>
        Array.from({ length: perProcess }, (_, j) => JSON.stringify({ type: 'note.recorded', stream: `note/p${p}`, data: { text: `p${p}-${j}` } })).join('\n') +
        '\n',
    );
    const results = await Promise.all(
      inputs.map((input) =>
        batonIn(workspace, ['log', 'append', '--events', '-', '--each'], { input, env: { BATON_LOCK_TIMEOUT_MS: '50000' }, timeoutMs: 110_000 }),
      ),
    );
    const reported: Appended[] = [];
    results.forEach((result: CliResult, p) => {
      expect(result.code, result.stdout.slice(-500) + result.stderr).toBe(0);
      const envelopes = jsonLines(result.stdout).map((value) => AppendedEnvelope.parse(value));
      // One envelope per line, in the order of the lines, each with one event.
      expect(envelopes).toHaveLength(perProcess);
      let last = 0;
      envelopes.forEach((envelope, j) => {
        expect(envelope.deduplicated).toBe(false);
        expect(envelope.events).toHaveLength(1);
        const event = envelope.events[0]!;
        expect(event.seq).toBeGreaterThan(last);
        last = event.seq;
        reported.push({ seq: event.seq, id: event.id, hash: event.hash, text: `p${p}-${j}` });
      });
    });
    const log = await showAndVerify(workspace, processes * perProcess);
    expectEachOnce(log, reported);
    // The processes really interleaved: no single process got one contiguous block of seqs.
    const interleaved = results.some((result) => {
      const seqs = jsonLines(result.stdout).map((value) => AppendedEnvelope.parse(value).events[0]!.seq);
      return seqs.at(-1)! - seqs[0]! + 1 > seqs.length;
    });
    expect(interleaved).toBe(true);
  }, 120_000);

  it('8 concurrent loops of 15 separate `baton log append` invocations each get seq 1…120, none lost or repeated', async () => {
    const workspace = await initWorkspace();
    const loops = 8;
    const perLoop = 15;
    const reported: Appended[] = [];
    await Promise.all(
      Array.from({ length: loops }, async (_, l) => {
        for (let i = 0; i < perLoop; i++) {
          const text = `loop${l}-${i}`;
          const result = await batonIn(
            workspace,
            ['log', 'append', '--type', 'note.recorded', '--stream', `note/loop${l}`, '--data', JSON.stringify({ text })],
            {
              env: { BATON_LOCK_TIMEOUT_MS: '50000' },
            },
          );
          expect(result.code, result.stdout + result.stderr).toBe(0);
          const event = AppendedEnvelope.parse(jsonLines(result.stdout)[0]).events[0]!;
          reported.push({ seq: event.seq, id: event.id, hash: event.hash, text });
        }
      }),
    );
    const log = await showAndVerify(workspace, loops * perLoop);
    expectEachOnce(log, reported);
  }, 120_000);

  it('concurrent appends with the same --expected-version on one stream: exactly one per round succeeds, the others exit 4 CONFLICT', async () => {
    const workspace = await initWorkspace();
    const racers = 6;
    const race = (expected: string, round: number): Promise<CliResult[]> =>
      Promise.all(
        Array.from({ length: racers }, (_, r) =>
          batonIn(
            workspace,
            [
              'log',
              'append',
              '--type',
              'note.recorded',
              '--stream',
              'note/race',
              '--data',
              JSON.stringify({ text: `round ${round} racer ${r}` }),
              '--expected-version',
              expected,
            ],
            {
              env: { BATON_LOCK_TIMEOUT_MS: '50000' },
            },
          ),
        ),
      );
    const rounds: [string, number][] = [
      ['no_stream', 1],
      ['1', 2],
      ['2', 3],
    ];
    const winners: string[] = [];
    for (const [expected, round] of rounds) {
      const results = await race(expected, round);
      const ok = results.filter((r) => r.code === 0);
      const conflicts = results.filter((r) => r.code === 4);
      expect(ok, `round ${round}`).toHaveLength(1);
      expect(conflicts, `round ${round}`).toHaveLength(racers - 1);
      for (const conflict of conflicts) {
        const error = errorEnvelopeOf(conflict);
        expect(error.code).toBe('CONFLICT');
        // A version conflict, not a lock timeout (which is CONFLICT too): it names the stream and versions.
        expect(error.message).toMatch(/^stream note\/race is at version \d+, expected /);
      }
      const won = AppendedEnvelope.parse(jsonLines(ok[0]!.stdout)[0]);
      expect(won.events[0]!.seq).toBe(round);
      winners.push(won.events[0]!.hash);
    }
    // stream_exists does not exclude anyone: every racer succeeds.
    const open = await race('stream_exists', 4);
    expect(open.map((r) => r.code)).toEqual(Array<number>(racers).fill(0));
    const log = await showAndVerify(workspace, rounds.length + racers);
    expect([1, 2, 3].map((seq) => log.get(seq)!.hash)).toEqual(winners);
  }, 120_000);
});
