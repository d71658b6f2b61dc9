import { describe, expect, it } from 'vitest';
import { createCatalog } from '../../events/index.js';
import type { Decision } from '../../deciders/decision.js';
import { Refusal } from '../../deciders/refusal.js';
import type { SessionClock } from '../../projections/coordination/liveness.js';
import { BatonError } from '../../src/errors.js';
import { handleCommand } from '../../src/store/handle-command.js';
import { MemoryEventStore } from '../../src/store/memory-store.js';

/** The command handler's identity check: a decision recorded as a session needs that session able to act. */
const NOW = '2026-06-01T10:00:00.000Z';
const S = 'session_aaaaaaaaaaaaaaaaaaaaaaaa';
const catalog = createCatalog();
const note: Decision<null> = { events: [{ type: 'note.recorded', stream: 'note/n', data: { text: 'hi' } }], expected: {}, outcome: null };

function io(clock: SessionClock | undefined, name?: string) {
  const store = new MemoryEventStore({ catalog, now: () => NOW });
  return {
    store,
    io: { store, catalog, actor: S, now: NOW, read: async () => clock, acting: { session: S, clock: (c: SessionClock | undefined) => c, name } },
  };
}

async function refused(run: Promise<unknown>): Promise<BatonError> {
  const error: unknown = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof BatonError)) throw new Error(`expected a BatonError, got ${String(error)}`);
  return error;
}

describe('handleCommand: the acting session', () => {
  it('an unknown session is UNKNOWN_SESSION worded with the surface name for it, nothing appended', async () => {
    const { store, io: commandIo } = io(undefined, 'BATON_SESSION');
    const error = await refused(handleCommand(commandIo, () => note));
    expect([error.code, error.message]).toEqual([
      'UNKNOWN_SESSION',
      `BATON_SESSION: ${S} names no live session (no session has that id or live display name); start one with \`baton session start\`. Nothing was appended`,
    ]);
    expect((await store.head()).seq).toBe(0);
  });

  it('an ended session is refused; an idle one past its TTL still acts', async () => {
    const endedIo = io({ last_heartbeat_at: NOW, ttl_seconds: 60, ended: 'failed' }).io;
    expect((await refused(handleCommand(endedIo, () => note))).message).toContain('(it ended (failed))');
    const stale = io({ last_heartbeat_at: '2026-06-01T08:00:00.000Z', ttl_seconds: 60, ended: false });
    expect((await handleCommand(stale.io, () => note)).appended).toHaveLength(1);
  });

  it("the decider's own refusal comes first, and a decision with nothing to append checks nothing", async () => {
    const { io: commandIo } = io(undefined);
    const own = await refused(
      handleCommand(commandIo, () => {
        throw new Refusal('SESSION_ENDED', 'its own words');
      }),
    );
    expect(own.code).toBe('SESSION_ENDED');
    expect((await handleCommand(commandIo, () => null)).appended).toEqual([]);
  });

  it('facts recorded by another actor are not checked', async () => {
    const { io: commandIo } = io(undefined);
    expect((await handleCommand({ ...commandIo, actor: 'system' }, () => note)).appended).toHaveLength(1);
  });
});
