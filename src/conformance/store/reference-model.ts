import fc from 'fast-check';
import type { NewEvent, StoredEvent } from '../../../events/envelope.js';
import { GENESIS_HASH } from '../../../events/patterns.js';
import type { AppendOptions, ExpectedVersion } from '../../store/contract.js';
import { note } from './harness.js';

/** The reference model of the append property: what append should do, and random command sequences to compare it on. */

type Outcome = { kind: 'written'; seqs: number[] } | { kind: 'deduplicated'; events: StoredEvent[] } | { kind: 'CONFLICT' } | { kind: 'IDEMPOTENCY_CONFLICT' };

/** What append should do, computed from nothing but stream versions, keys and the head. */
export class ReferenceModel {
  readonly log: StoredEvent[] = [];
  private readonly versions = new Map<string, number>();
  private readonly keys = new Map<string, { digest: string; events: StoredEvent[] }>();

  get headSeq(): number {
    return this.log.length;
  }

  get headHash(): string {
    return this.log.at(-1)?.hash ?? GENESIS_HASH;
  }

  version(stream: string): number {
    return this.versions.get(stream) ?? 0;
  }

  static digest(events: readonly NewEvent[]): string {
    return JSON.stringify(events.map((e) => [e.type, e.stream, e.data['text']]));
  }

  predict(events: readonly NewEvent[], options: AppendOptions): Outcome {
    const key = options.idempotencyKey;
    if (key !== undefined) {
      const seen = this.keys.get(key);
      if (seen) return seen.digest === ReferenceModel.digest(events) ? { kind: 'deduplicated', events: seen.events } : { kind: 'IDEMPOTENCY_CONFLICT' };
    }
    const ev = options.expectedVersion;
    const expected: [string, ExpectedVersion][] =
      ev === undefined ? [] : typeof ev === 'object' ? Object.entries(ev) : [...new Set(events.map((e) => e.stream))].map((s) => [s, ev]);
    for (const [stream, want] of expected) {
      const actual = this.version(stream);
      const ok = want === 'no_stream' ? actual === 0 : want === 'stream_exists' ? actual > 0 : actual === want;
      if (!ok) return { kind: 'CONFLICT' };
    }
    return { kind: 'written', seqs: events.map((_, i) => this.headSeq + i + 1) };
  }

  commit(stored: readonly StoredEvent[], events: readonly NewEvent[], key: string | undefined): void {
    for (const e of stored) {
      this.log.push(e);
      this.versions.set(e.stream, this.version(e.stream) + 1);
    }
    if (key !== undefined) this.keys.set(key, { digest: ReferenceModel.digest(events), events: [...stored] });
  }
}

export const MODEL_STREAMS = ['note/a', 'note/b', 'note/c'] as const;
const MODEL_KEYS = ['k1', 'k2', 'k3'] as const;

/** An expected version chosen either outright or relative to the model's current version. */
type VersionChoice = { fixed: ExpectedVersion } | { relative: -1 | 0 | 1 };

interface AppendCommand {
  kind: 'append';
  /** Which of two handles on the same log sends it. */
  via: 0 | 1;
  events: { stream: string; text: string }[];
  expected: undefined | { single: VersionChoice } | { perStream: VersionChoice[] };
  key: string | undefined;
}
interface ReplayCommand {
  kind: 'replay';
  via: 0 | 1;
  pick: number;
}
export type ModelCommand = AppendCommand | ReplayCommand;

const versionChoiceArb: fc.Arbitrary<VersionChoice> = fc.oneof(
  fc.record({ fixed: fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constantFrom<ExpectedVersion>('no_stream', 'stream_exists')) }),
  fc.record({ relative: fc.constantFrom<-1 | 0 | 1>(-1, 0, 0, 1) }),
);

const viaArb = fc.constantFrom<0 | 1>(0, 1);

const appendCommandArb: fc.Arbitrary<AppendCommand> = fc.record({
  kind: fc.constant('append' as const),
  via: viaArb,
  events: fc.array(fc.record({ stream: fc.constantFrom(...MODEL_STREAMS), text: fc.constantFrom('x', 'y') }), { minLength: 1, maxLength: 3 }),
  expected: fc.oneof(
    fc.constant(undefined),
    fc.record({ single: versionChoiceArb }),
    fc.record({ perStream: fc.array(versionChoiceArb, { minLength: 3, maxLength: 3 }) }),
  ),
  key: fc.option(fc.constantFrom(...MODEL_KEYS), { nil: undefined }),
});

export const modelCommandArb: fc.Arbitrary<ModelCommand> = fc.oneof(
  { arbitrary: appendCommandArb, weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('replay' as const), via: viaArb, pick: fc.nat() }), weight: 1 },
);

function resolveVersion(choice: VersionChoice, current: number): ExpectedVersion {
  return 'fixed' in choice ? choice.fixed : Math.max(0, current + choice.relative);
}

export function resolveCommand(command: AppendCommand, model: ReferenceModel): { events: NewEvent[]; options: AppendOptions } {
  const events = command.events.map((e) => note(e.stream, e.text));
  const options: AppendOptions = {};
  if (command.key !== undefined) options.idempotencyKey = command.key;
  const expected = command.expected;
  if (expected && 'single' in expected) {
    options.expectedVersion = resolveVersion(expected.single, model.version(command.events[0]!.stream));
  } else if (expected) {
    const streams = [...new Set(command.events.map((e) => e.stream))];
    options.expectedVersion = Object.fromEntries(streams.map((s, i) => [s, resolveVersion(expected.perStream[i]!, model.version(s))]));
  }
  return { events, options };
}
