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
import { batonIn, jsonLines, type CliResult } from './cli.js';
import { makeTempDir, storedEvents } from './workspace.js';
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

  constructor(config = 'display_name_pool: [Planck, Noether, Curie, Dirac]\n') {
    this.dir = makeTempDir('baton-coord-');
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

  /** An initiative INIT-1 with lane L1, and WUs (provisional event shapes until the WU issue lands). */
  async withWus(...wus: string[]): Promise<void> {
    await this.ok([
      'log',
      'append',
      '--type',
      'initiative.created',
      '--stream',
      'initiative/INIT-1',
      '--data',
      JSON.stringify({ initiative: 'INIT-1', title: 'One', slug: null, lanes: ['L1'] }),
    ]);
    for (const wu of wus) {
      await this.ok([
        'log',
        'append',
        '--type',
        'wu.defined',
        '--stream',
        `wu/${wu}`,
        '--data',
        JSON.stringify({ wu_id: wu, initiative: 'INIT-1', lane: 'L1', title: wu }),
      ]);
    }
  }

  async claim(wu: string, session: string): Promise<void> {
    await this.ok(
      [
        'log',
        'append',
        '--type',
        'wu.claimed',
        '--stream',
        `wu/${wu}`,
        '--data',
        JSON.stringify({ wu_id: wu, session_id: session, mode: 'worktree', worktree_path: null, branch: null, takeover_from: null }),
      ],
      { as: session },
    );
  }
}

export async function workspace(config?: string): Promise<Workspace> {
  return new Workspace(config).init();
}

/** A fresh workspace with three sessions, started s1, s2, then s0, as §15's scenarios start them. */
export async function threeSessions(): Promise<{ ws: Workspace; s0: string; s1: string; s2: string }> {
  const ws = await workspace();
  const s1 = await ws.start();
  const s2 = await ws.start();
  const s0 = await ws.start();
  return { ws, s0, s1, s2 };
}
