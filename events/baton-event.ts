import type { z } from 'zod';
import type { BuiltInDefinition } from './definitions.js';
import type { Rejection, StoredEvent } from './envelope.js';

/** Every built-in event type, as a literal union (`'wu.claimed' | 'signal.sent' | …`). */
export type EventType = BuiltInDefinition['type'];

/** Each built-in event type's data, as its schema's output. */
export type EventDataMap = { [D in BuiltInDefinition as D['type']]: z.output<D['schema']> };

type EnvelopeFields = Omit<StoredEvent, 'type' | 'data'>;

/** One event the catalog accepted: its data is its schema's output. */
export type EventOf<T extends EventType> = EnvelopeFields & { type: T; data: EventDataMap[T]; rejected?: undefined };

/** One accepted built-in event, discriminated by `type`. */
export type AcceptedEvent = { [T in EventType]: EventOf<T> }[EventType];

/**
 * An event the catalog refused (unknown type, or data failing its schema): it still reaches the
 * folds, with its data as stored, so they report it as an integrity finding instead of throwing.
 */
export type RejectedEvent = EnvelopeFields & { type: string; data: Record<string, unknown>; rejected: Rejection };

/**
 * What every fold receives: the log's events decoded once, at the store boundary, by the catalog
 * (`EventCatalog.toBatonEvent`). Check `rejected` first; after that `type` narrows `data`.
 */
export type BatonEvent = AcceptedEvent | RejectedEvent;
