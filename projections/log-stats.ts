import type { BatonEvent } from '../events/baton-event.js';
import { GENESIS_HASH, HASH_PATTERN } from '../events/patterns.js';
import type { Projection } from './projection.js';

/**
 * `log_stats`: how much the log holds — events, distinct streams, events per type, and the head.
 * The `segments` and `bytes` of `baton log stats` describe storage, not history, so the CLI adds
 * them from `store.storageInfo()`.
 */
export interface LogStatsState {
  events: number;
  head_seq: number;
  head_hash: string;
  /** Every stream seen, in first-seen order (its memory grows with the number of distinct streams). */
  streams: Set<string>;
  /** Events per type, in first-seen order. A Map, so no type name can collide with Object's keys. */
  by_type: Map<string, number>;
}

export interface LogStatsView {
  v: 1;
  type: 'log_stats';
  generated_at: string;
  head_seq: number;
  head_hash: string;
  events: number;
  streams: number;
  /** Sorted by type name. */
  by_type: Record<string, number>;
}

/**
 * The snapshot form. Streams and types stay in first-seen order: the fold appends to the end of
 * that order whether it started from scratch or from a snapshot, so the serialised state is the
 * same either way, without sorting up to a million stream names at every snapshot.
 */
export interface LogStatsJson {
  events: number;
  head_seq: number;
  head_hash: string;
  streams: string[];
  by_type: [string, number][];
}

export const logStatsProjection: Projection<LogStatsState, LogStatsView> = {
  name: 'log_stats',
  version: 1,

  init() {
    return { events: 0, head_seq: 0, head_hash: GENESIS_HASH, streams: new Set(), by_type: new Map() };
  },

  apply(state: LogStatsState, event: BatonEvent) {
    state.events += 1;
    state.head_seq = event.seq;
    state.head_hash = event.hash;
    state.streams.add(event.stream);
    state.by_type.set(event.type, (state.by_type.get(event.type) ?? 0) + 1);
    return state;
  },

  view(state: LogStatsState, now: string): LogStatsView {
    const types = [...state.by_type.keys()].sort();
    const byType: Record<string, number> = {};
    // defineProperty, not assignment: a type named like an Object key must stay plain data.
    for (const type of types) Object.defineProperty(byType, type, { value: state.by_type.get(type), enumerable: true, writable: true, configurable: true });
    return {
      v: 1,
      type: 'log_stats',
      generated_at: now,
      head_seq: state.head_seq,
      head_hash: state.head_hash,
      events: state.events,
      streams: state.streams.size,
      by_type: byType,
    };
  },

  serialize(state: LogStatsState): LogStatsJson {
    return {
      events: state.events,
      head_seq: state.head_seq,
      head_hash: state.head_hash,
      streams: [...state.streams],
      by_type: [...state.by_type],
    };
  },

  deserialize(json: unknown): LogStatsState {
    if (typeof json !== 'object' || json === null) throw new Error('log_stats state must be an object');
    const value = json as Partial<Record<keyof LogStatsJson, unknown>>;
    const { events, head_seq, head_hash, streams, by_type } = value;
    if (!isCount(events) || !isCount(head_seq)) throw new Error('events and head_seq must be non-negative integers');
    if (typeof head_hash !== 'string' || !HASH_PATTERN.test(head_hash)) throw new Error('head_hash must be a hash');
    if (!Array.isArray(streams) || !streams.every((s) => typeof s === 'string')) throw new Error('streams must be a list of names');
    if (!Array.isArray(by_type) || !by_type.every((e) => Array.isArray(e) && e.length === 2 && typeof e[0] === 'string' && isCount(e[1]))) {
      throw new Error('by_type must be a list of [type, count] pairs');
    }
    return {
      events,
      head_seq,
      head_hash,
      streams: new Set(streams as string[]),
      by_type: new Map(by_type as [string, number][]),
    };
  },
};

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
