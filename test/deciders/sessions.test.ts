import { describe, expect, it } from 'vitest';
import {
  chooseDisplayName,
  decideHeartbeat,
  decideSessionEnd,
  decideSessionStart,
  type SessionCommandState,
  type StartSession,
} from '../../deciders/sessions.js';
import { coordinationStateProjection } from '../../projections/coordination/roster.js';
import { effectiveStatus } from '../../projections/coordination/sessions.js';
import { given, specify, T0, versionOf, type Fact } from './given.js';

/** The session rules (coordination.md §2, §3), decided without a store or the binary. */
const A = 'session_aaaaaaaaaaaaaaaaaaaaaaaa';
const B = 'session_bbbbbbbbbbbbbbbbbbbbbbbb';
const started = (id: string, name: string): Fact => ({
  type: 'session.started',
  stream: `session/${id}`,
  data: { session_id: id, display_name: name, ttl_seconds: 3600 },
});
const ended = (id: string, status: string): Fact => ({ type: 'session.ended', stream: `session/${id}`, data: { session_id: id, status } });
const wuDefined: Fact = { type: 'wu.defined', stream: 'wu/WU-1', data: { wu_id: 'WU-1', title: 'One', lane: 'Core API', dependencies: [], code_paths: [] } };
const pool = ['Planck', 'Noether'];

const start = specify({ decide: decideSessionStart, state: (facts) => given(coordinationStateProjection, facts) });
const onSession =
  (id: string) =>
  (facts: readonly Fact[]): SessionCommandState => ({ coordination: given(coordinationStateProjection, facts), version: versionOf(facts, `session/${id}`) });
const heartbeat = specify({ decide: decideHeartbeat, state: onSession(A) });
const end = specify({ decide: decideSessionEnd, state: onSession(A) });
const startOf = (over: Partial<StartSession> = {}): StartSession => ({ sessionId: B, displayNamePool: pool, ttlSeconds: 14_400, ...over });

describe('session start', () => {
  it('reserves the first free name of the pool, on a new stream', () => {
    const decision = start
      .given([started(A, 'Planck')])
      .when(startOf())
      .then([{ type: 'session.started', stream: `session/${B}`, data: { session_id: B, display_name: 'Noether', ttl_seconds: 14_400 } }]);
    expect(decision.expected).toEqual({ [`session/${B}`]: 'no_stream' });
  });

  it('a name an ended session held is free again; a full pool goes on with -2', () => {
    const state = given(coordinationStateProjection, [started(A, 'Planck'), ended(A, 'succeeded')]);
    expect(chooseDisplayName(state, pool)).toBe('Planck');
    const full = given(coordinationStateProjection, [started(A, 'Planck'), started(B, 'Noether')]);
    expect(chooseDisplayName(full, pool)).toBe('Planck-2');
  });

  it('a known WU lends its lane; an unknown one is UNKNOWN_ID naming the wu input', () => {
    start
      .given([wuDefined])
      .when(startOf({ wuId: 'WU-1' }))
      .then([
        {
          type: 'session.started',
          stream: `session/${B}`,
          data: { session_id: B, display_name: 'Planck', wu_id: 'WU-1', lane: 'Core API', ttl_seconds: 14_400 },
        },
      ]);
    start
      .given([])
      .when(startOf({ wuId: 'WU-9' }))
      .thenRefuses('UNKNOWN_ID', 'wu: WU WU-9 not found');
  });
});

describe('session heartbeat and end', () => {
  it('a heartbeat of a live session, at the stream version read, by the session itself', () => {
    const decision = heartbeat
      .given([started(A, 'Planck')])
      .when({ sessionId: A })
      .then([{ type: 'session.heartbeat', stream: `session/${A}`, data: { session_id: A }, actor: A }]);
    expect(decision.expected).toEqual({ [`session/${A}`]: 1 });
  });

  it('an unknown session is UNKNOWN_ID; an ended one cannot heartbeat (SESSION_ENDED)', () => {
    heartbeat.given([]).when({ sessionId: A }).thenRefuses('UNKNOWN_ID', `Session ${A} not found`);
    heartbeat
      .given([started(A, 'Planck'), ended(A, 'failed')])
      .when({ sessionId: A })
      .thenRefuses('SESSION_ENDED', `Session ${A} already ended (failed); it cannot heartbeat`);
  });

  it('ends once; the same status again appends nothing; another status is SESSION_ENDED', () => {
    end
      .given([started(A, 'Planck')])
      .when({ sessionId: A, status: 'succeeded' })
      .then([{ type: 'session.ended', stream: `session/${A}`, data: { session_id: A, status: 'succeeded' } }]);
    end
      .given([started(A, 'Planck'), ended(A, 'succeeded')])
      .when({ sessionId: A, status: 'succeeded' })
      .thenNothing();
    end
      .given([started(A, 'Planck'), ended(A, 'succeeded')])
      .when({ sessionId: A, status: 'cancelled' })
      .thenRefuses('SESSION_ENDED', `Session ${A} already ended (succeeded); it cannot end again as cancelled`);
  });
});

describe('an abandoned session (idle past its TTL; never stored, read from the clock)', () => {
  // Started at T0 with a one-hour TTL: two hours later it reads as abandoned.
  const later = new Date(Date.parse(T0) + 2 * 3600_000).toISOString();
  const abandoned = [{ ...started(A, 'Planck'), at: T0 }];

  it('is abandoned by the clock alone, and a heartbeat revives it: the decider appends it as for a live session', () => {
    expect(effectiveStatus(given(coordinationStateProjection, abandoned).sessions.get(A)!, later)).toBe('abandoned');
    const decision = heartbeat
      .given(abandoned)
      .when({ sessionId: A })
      .then([{ type: 'session.heartbeat', stream: `session/${A}`, data: { session_id: A }, actor: A }]);
    const after = given(coordinationStateProjection, [...abandoned, { ...decision.events[0]!, at: later }]);
    expect(effectiveStatus(after.sessions.get(A)!, later)).toBe('active');
  });

  it('may be ended by anyone, which frees its display name; ending it again is nothing, another status SESSION_ENDED', () => {
    const decision = end
      .given(abandoned)
      .when({ sessionId: A, status: 'cancelled' })
      .then([{ type: 'session.ended', stream: `session/${A}`, data: { session_id: A, status: 'cancelled' } }]);
    const after = given(coordinationStateProjection, [...abandoned, { ...decision.events[0]!, at: later, actor: B }]);
    expect(effectiveStatus(after.sessions.get(A)!, later)).toBe('cancelled');
    expect(chooseDisplayName(after, pool)).toBe('Planck');
    end
      .given([...abandoned, ended(A, 'cancelled')])
      .when({ sessionId: A, status: 'cancelled' })
      .thenNothing();
    heartbeat
      .given([...abandoned, ended(A, 'cancelled')])
      .when({ sessionId: A })
      .thenRefuses('SESSION_ENDED');
  });
});
