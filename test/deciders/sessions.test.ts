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
import { given, specify, versionOf, type Fact } from './given.js';

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
  it('a heartbeat of a live session, at the stream version read', () => {
    const decision = heartbeat
      .given([started(A, 'Planck')])
      .when({ sessionId: A })
      .then([{ type: 'session.heartbeat', stream: `session/${A}`, data: { session_id: A } }]);
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
