import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { A2ASignalV1 } from '../../events/coordination/signal.js';
import { DELIVERY_STATES } from '../../events/coordination/identities.js';
import {
  ConvergenceEnvelope,
  HookDrainEnvelope,
  HooksInstalledEnvelope,
  InboxEnvelope as CliInboxEnvelope,
  OrchestrationSessionEnvelope,
  RosterEnvelope,
  SignalReceivedEnvelope,
  SignalSentEnvelope,
  WuPrepEnvelope,
} from '../../src/app/envelopes/coordination.js';
import type { NewEvent } from '../../events/envelope.js';
import type { BatonAppContext } from '../../src/app/app-context.js';
import { startSessionEnvelope, type StartSessionInput } from '../../src/app/commands/sessions.js';
import { sendSignalEnvelope, type SignalInput } from '../../src/app/commands/signals.js';
import { batonIn, jsonLines, type CliResult } from './cli.js';
import { inProcess } from './in-process.js';
import { makeTempDir, sharedSetup, storedEvents } from './workspace.js';
import { secondsAfter } from './scenario-clock.js';

/**
 * Coordination scenarios through the built binary: a fresh workspace with coordination.md §15's
 * conventions (pool Planck, Noether, Curie, Dirac; BATON_NOW = T0; --json), and small helpers to
 * start sessions, send signals and look at the log.
 */
export const T0 = '2026-04-17T10:00:00Z';
export const T0_ISO = '2026-04-17T10:00:00.000Z';

/** BATON_NOW for `offsetSeconds` after T0. */
export const at = secondsAfter(T0);

/** Any JSON value the binary printed. Tests read fields through a typed envelope (below), never through this. */
export const JsonValue = z.json();
export type JsonValue = z.infer<typeof JsonValue>;

/**
 * The envelopes coordination commands print, parsed strictly (every key known, every field typed),
 * so a test's field access is checked by the compiler and the output shape by the parse. They are
 * the CLI's own schemas, except the inbox, whose items are checked here as exactly the A2A.V1
 * contract plus the inbox's four keys (the CLI's schema leaves the contract part open).
 */
export const InboxItem = A2ASignalV1.safeExtend({
  seq: z.number().int().min(1),
  read: z.boolean(),
  delivery_state: z.enum(DELIVERY_STATES).nullable(),
  sender_display_name: z.string().nullable(),
});
export type InboxItem = z.infer<typeof InboxItem>;
export const InboxEnvelope = CliInboxEnvelope.extend({ signals: z.array(InboxItem) });
export type InboxEnvelope = z.infer<typeof InboxEnvelope>;
export {
  ConvergenceEnvelope,
  HookDrainEnvelope,
  HooksInstalledEnvelope,
  OrchestrationSessionEnvelope,
  RosterEnvelope,
  SignalReceivedEnvelope,
  SignalSentEnvelope,
  WuPrepEnvelope,
};
/** What `mem signal` prints. */
export type SignalSent = z.infer<typeof SignalSentEnvelope>;

export interface Run extends CliResult {
  /** The last JSON line of stdout (the envelope), or `{}` when there is none. */
  json: JsonValue;
  /** Every JSON line of stdout. */
  lines: JsonValue[];
}

/** The run's envelope (its last JSON line), parsed with `schema`; throws with the output when it does not match. */
export function envelope<S extends z.ZodType>(schema: S, run: Run): z.infer<S> {
  const parsed = schema.safeParse(run.json);
  if (!parsed.success) throw new Error(`unexpected envelope: ${parsed.error.message}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  return parsed.data;
}

/** Every JSON line of the run, each parsed with `schema`. */
export function envelopes<S extends z.ZodType>(schema: S, run: Run): z.infer<S>[] {
  return run.lines.map((line) => {
    const parsed = schema.safeParse(line);
    if (!parsed.success) throw new Error(`unexpected line: ${parsed.error.message}\nstdout: ${run.stdout}`);
    return parsed.data;
  });
}

export interface CallOptions {
  as?: string;
  now?: string;
  env?: Record<string, string | undefined>;
}

export class Workspace {
  readonly dir: string;

  constructor(config = 'display_name_pool: [Planck, Noether, Curie, Dirac]\n', dir: string = makeTempDir('baton-coord-')) {
    this.dir = dir;
    this.config = config;
  }

  private config: string;

  async init(): Promise<this> {
    const r = await this.run(['init']);
    if (r.code !== 0) throw new Error(`init failed: ${r.stdout}${r.stderr}`);
    this.writeConfig(this.config);
    return this;
  }

  writeConfig(text: string): void {
    writeFileSync(join(this.dir, '.baton', 'config.yaml'), text);
  }

  async run(args: readonly string[], options: CallOptions = {}): Promise<Run> {
    const env: Record<string, string | undefined> = { BATON_NOW: options.now ?? T0, ...options.env };
    const full = ['--json', ...(options.as !== undefined ? ['--session', options.as] : []), ...args];
    const result = await batonIn(this.dir, full, { env });
    let lines: JsonValue[] = [];
    try {
      lines = jsonLines(result.stdout).map((line) => JsonValue.parse(line));
    } catch {
      lines = [];
    }
    return { ...result, lines, json: lines.at(-1) ?? {} };
  }

  /** `run`, failing the test with the output when the exit code is not the expected one. */
  async ok(args: readonly string[], options: CallOptions = {}, expected = 0): Promise<Run> {
    const r = await this.run(args, options);
    if (r.code !== expected) throw new Error(`baton ${args.join(' ')} exited ${r.code}, expected ${expected}:\n${r.stdout}\n${r.stderr}`);
    return r;
  }

  /** `ok`, then the envelope parsed with `schema`. */
  async okAs<S extends z.ZodType>(schema: S, args: readonly string[], options: CallOptions = {}, expected = 0): Promise<z.infer<S>> {
    return envelope(schema, await this.ok(args, options, expected));
  }

  /** `session start`; returns the new session id. */
  async start(flags: readonly string[] = [], options: CallOptions = {}): Promise<string> {
    return (await this.okAs(OrchestrationSessionEnvelope, ['session', 'start', ...flags], options)).session.id;
  }

  /** Send and return the whole `signal_sent` envelope. */
  send(message: string, flags: readonly string[], options: CallOptions = {}): Promise<SignalSent> {
    return this.okAs(SignalSentEnvelope, ['mem', 'signal', message, ...flags], options);
  }

  /** Send and return the signal. */
  async signal(message: string, flags: readonly string[], options: CallOptions = {}): Promise<A2ASignalV1> {
    return (await this.send(message, flags, options)).signal;
  }

  /** `mem inbox ARGS…`, parsed. */
  inbox(args: readonly string[] = [], options: CallOptions = {}): Promise<InboxEnvelope> {
    return this.okAs(InboxEnvelope, ['mem', 'inbox', ...args], options);
  }

  events() {
    return storedEvents(this.dir);
  }

  head(): number {
    return this.events().length;
  }

  /**
   * `session start` run in this process through the application layer (test/helpers/in-process.ts),
   * the flags by their domain names: for sessions a scenario needs but does not test. Returns the id.
   */
  async setUpSession(input: StartSessionInput = {}, options: CallOptions = {}): Promise<string> {
    return (await this.inProcess(options, (app) => startSessionEnvelope(app, input))).session.id;
  }

  /** `mem signal MESSAGE` run in this process, the flags by their domain names: for signals a scenario needs but does not test. */
  async setUpSignal(message: string, input: Omit<SignalInput, 'message'> = {}, options: CallOptions = {}): Promise<A2ASignalV1> {
    return (await this.inProcess(options, (app) => sendSignalEnvelope(app, { message, ...input }))).envelope.signal;
  }

  /** `log append` of these events, one call each, run in this process (a setup step: the events are not what is tested). */
  async setUpEvents(events: readonly NewEvent[], options: CallOptions = {}): Promise<void> {
    await this.inProcess(options, async (app) => {
      const store = await app.store();
      for (const event of events) {
        await app.requireActingSession([event]);
        await store.append([event]);
      }
    });
  }

  private inProcess<T>(options: CallOptions, step: (app: BatonAppContext) => Promise<T>): Promise<T> {
    return inProcess(this.dir, { now: options.now ?? T0, session: options.as, env: options.env }, step);
  }

  /** An initiative INIT-1 with lane L1, and WUs (provisional event shapes until the WU issue lands), appended in this process. */
  async withWus(...wus: string[]): Promise<void> {
    await this.setUpEvents([
      { type: 'initiative.created', stream: 'initiative/INIT-1', data: { initiative: 'INIT-1', title: 'One', slug: null, lanes: ['L1'] } },
      ...wus.map((wu) => ({ type: 'wu.defined', stream: `wu/${wu}`, data: { wu_id: wu, initiative: 'INIT-1', lane: 'L1', title: wu } })),
    ]);
  }

  /** `wu` claimed by `session` (a worktree claim), appended in this process as the session. */
  async claim(wu: string, session: string): Promise<void> {
    await this.setUpEvents(
      [
        {
          type: 'wu.claimed',
          stream: `wu/${wu}`,
          data: { wu_id: wu, session_id: session, mode: 'worktree', worktree_path: null, branch: null, takeover_from: null },
        },
      ],
      { as: session },
    );
  }
}

export function sharedWorkspace<T extends object>(build: (ws: Workspace) => Promise<T>, config?: string): () => Promise<T & { ws: Workspace }> {
  const setup = sharedSetup('baton-coord-', async (dir) => build(await new Workspace(config, dir).init()));
  return async () => {
    const { dir, made } = await setup();
    return { ...made, ws: new Workspace(config, dir) };
  };
}

const initialised = new Map<string | undefined, () => Promise<{ ws: Workspace }>>();

/** A fresh workspace: `baton init` run, the config written (a copy of one built once per test file). */
export async function workspace(config?: string): Promise<Workspace> {
  let setup = initialised.get(config);
  if (setup === undefined) {
    setup = sharedWorkspace(async () => ({}), config);
    initialised.set(config, setup);
  }
  return (await setup()).ws;
}

/** A fresh workspace with one session s1 (Planck), started at T0. */
export const oneSession = sharedWorkspace(async (ws) => ({ s1: await ws.start() }));

/** A fresh workspace with two sessions, s1 (Planck) and s2 (Noether), started at T0 in that order. */
export const twoSessions = sharedWorkspace(async (ws) => {
  const s1 = await ws.start();
  return { s1, s2: await ws.start() };
});

/** A fresh workspace with three sessions, started s1, s2, then s0, as §15's scenarios start them. */
export const threeSessions = sharedWorkspace(async (ws) => {
  const s1 = await ws.start();
  const s2 = await ws.start();
  const s0 = await ws.start();
  return { s0, s1, s2 };
});
