/**
 * One decider shape for every domain, after Emmett's `decide(command, state) → events` beside
 * `evolve`: a pure function reads the folded state and the command, and answers the events to
 * append with the stream versions it decided on, or null when there is nothing to append (an
 * idempotent repeat). It refuses by throwing a `Refusal` (deciders/refusal.ts). The one command
 * handler (`src/store/handle-command.ts`) reads, decides, appends with those expected versions
 * and, on a version conflict, reads and decides again.
 */

/** Which version a stream must have for the append to go through (the store's contract). */
export type ExpectedVersion = number | 'no_stream' | 'stream_exists';

/** An event as a decider proposes it: the handler adds the time, and the command's actor unless the decider names one. */
export interface ProposedEvent {
  type: string;
  stream: string;
  data: Record<string, unknown>;
  /** Who the fact is by, when the rule says so (a heartbeat is its own session's, whoever relays it). */
  actor?: string;
}

export interface Decision<R = undefined> {
  events: ProposedEvent[];
  /** The version of every stream the decision read, as the state showed it. */
  expected: Readonly<Record<string, ExpectedVersion>>;
  /** A repeat of the same request with this key is answered with the first append. */
  idempotencyKey?: string | undefined;
  /** What the command reports besides the appended events (e.g. the claim it made). */
  outcome: R;
}

/** A decider: the domain's rules, pure. */
export type Decider<C, S, R = undefined> = (command: C, state: S) => Decision<R> | null;
