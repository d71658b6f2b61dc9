import { afterEach, describe, expect, it } from 'vitest';
import type { BatonEvent } from '../../events/baton-event.js';
import { decoded } from '../helpers/decoded.js';
import { deserializeState, foldEvents, serializeState } from '../../projections/projection.js';
import { workUnitsStateProjection } from '../../projections/work-units/index.js';

/**
 * The work-unit fold keys records by free strings (actors, worktree paths, branch names). Keys
 * that name inherited properties (`__proto__`, `constructor`, `toString`) must be plain entries:
 * never a path to Object.prototype or a built-in, which the fold would otherwise write into.
 */
const POLLUTION = 'last_heartbeat_at';

afterEach(() => {
  // Undo any pollution, so one failing assertion does not leak into other tests.
  for (const target of [Object.prototype, Object, Object.prototype.toString] as object[]) delete (target as Record<string, unknown>)[POLLUTION];
});

let seq = 0;
function event(type: string, stream: string, data: Record<string, unknown>, actor = 'system'): BatonEvent {
  seq += 1;
  return decoded({
    v: 1,
    seq,
    id: `E${seq}`,
    type,
    stream,
    at: `2026-04-17T12:00:${String(seq).padStart(2, '0')}.000Z`,
    actor,
    data,
    prev: '0'.repeat(64),
    hash: String(seq).padStart(64, '0'),
  });
}

describe('keys that name inherited properties', () => {
  it('an actor named __proto__, constructor or toString bumps no session and writes into no built-in', () => {
    const events = [
      event('session.started', 'session/session_a', { session_id: 'session_a', display_name: 'A', ttl_seconds: 3600 }),
      ...['__proto__', 'constructor', 'toString'].map((actor) => event('note.recorded', 'note/x', { text: 'x' }, actor)),
      event('note.recorded', 'note/x', { text: 'alive' }, 'session_a'),
    ];
    const state = foldEvents(workUnitsStateProjection, events);
    expect(Object.hasOwn(Object.prototype, POLLUTION)).toBe(false);
    expect(Object.hasOwn(Object, POLLUTION)).toBe(false);
    expect(Object.hasOwn(Object.prototype.toString, POLLUTION)).toBe(false);
    expect(Object.keys(state.sessions)).toEqual(['session_a']);
    expect(state.sessions['session_a']!.last_heartbeat_at).toBe(events.at(-1)!.at);
  });

  it('a worktree path and a branch named __proto__ are entries of their own, kept through a snapshot', () => {
    const events = [
      event('wu.defined', 'wu/WU-1', { wu_id: 'WU-1', initiative: 'INIT-1', lane: 'L', title: 'one', dependencies: [] }),
      event('observation.worktree', 'wu/WU-1', { wu_id: 'WU-1', path: '__proto__', present: true, branch: null }),
      event('observation.branch', 'wu/WU-1', { wu_id: 'WU-1', branch: '__proto__', present: true }),
    ];
    const wu = foldEvents(workUnitsStateProjection, events).wus['WU-1']!;
    expect(Object.getPrototypeOf(wu.worktrees)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(wu.branches)).toBe(Object.prototype);
    expect(Object.hasOwn(wu.worktrees, '__proto__')).toBe(true);
    expect(Object.hasOwn(wu.branches, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(wu.worktrees, '__proto__')!.value).toMatchObject({ seq: events[1]!.seq, present: true });
    // Through the snapshot's stored form and back (the fold's serialize/deserialize, snapshot-codec.ts).
    const stored = JSON.parse(JSON.stringify(serializeState(workUnitsStateProjection, foldEvents(workUnitsStateProjection, events)))) as unknown;
    const snapshot = deserializeState(workUnitsStateProjection, stored);
    expect(Object.getPrototypeOf(snapshot.wus['WU-1']!.worktrees)).toBe(Object.prototype);
    expect(Object.hasOwn(snapshot.wus['WU-1']!.worktrees, '__proto__')).toBe(true);
    expect(Object.hasOwn(snapshot.wus['WU-1']!.branches, '__proto__')).toBe(true);
  });
});
