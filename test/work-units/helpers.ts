import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { BatonAppContext } from '../../src/app/app-context.js';
import { startSessionEnvelope } from '../../src/app/commands/sessions.js';
import { claimWorkUnit, type ClaimInput } from '../../src/app/commands/work-units.js';
import { batonIn, jsonLines, type CliResult } from '../helpers/cli.js';
import { inProcess } from '../helpers/in-process.js';
import { makeTempDir, sharedSetup, storedEvents } from '../helpers/workspace.js';
import { InitiativeLaunchEnvelope, InitiativePlanEnvelope, InitiativeStatusEnvelope, WuExplanationEnvelope } from '../../src/app/envelopes/work-units.js';
import { secondsAfter } from '../helpers/scenario-clock.js';

/**
 * Work-unit scenarios through the built binary, with work-units.md §17's conventions: a fresh
 * non-git workspace, `initiative create INIT-1 --title One --lanes L1,…,L6`, `--json`, BATON_NOW=T0.
 */
export const T0 = '2026-04-17T10:00:00Z';
export const T0_ISO = '2026-04-17T10:00:00.000Z';

/** BATON_NOW for `offsetSeconds` after T0. */
export const at = secondsAfter(T0);
export const HOUR = 3600;

const ErrorEnvelope = z.looseObject({
  v: z.literal(1),
  type: z.literal('error'),
  code: z.string(),
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
});
export type StatusEnvelope = z.infer<typeof InitiativeStatusEnvelope>;

export interface Run extends CliResult {
  lines: unknown[];
  last: unknown;
}

export interface CallOptions {
  now?: string;
  session?: string;
  env?: Record<string, string | undefined>;
  input?: string;
}

/**
 * A claim needs a holder (a session or an agent identity): a scenario that names no session acts
 * as one agent identity throughout, so its claims, checkpoints and finishes are one holder's. A
 * test about identities passes its own `BATON_AGENT_IDENTITY` (or `undefined`) in `env`.
 */
export const SCENARIO_IDENTITY = { BATON_AGENT_IDENTITY: 'agent:scenario' };

/** The scenario's identity for a command that names no session; sessions are started without it (each its own agent). */
function scenarioIdentity(options: CallOptions, startsSession: boolean): Record<string, string> {
  return options.session === undefined && !startsSession ? SCENARIO_IDENTITY : {};
}

export class WuWorkspace {
  readonly dir: string;

  private constructor(dir: string = makeTempDir('baton-wu-')) {
    this.dir = dir;
  }

  /**
   * `create(options)`, then what `build` sets up through the binary, built once per test file and
   * copied for each call (sharedSetup): for the setup many tests start from, when it is not what they test.
   */
  static shared<T extends object>(
    build: (ws: WuWorkspace) => Promise<T>,
    options: { config?: string; initiative?: boolean } = {},
  ): () => Promise<T & { ws: WuWorkspace }> {
    const setup = sharedSetup('baton-wu-', async (dir) => build(await WuWorkspace.setUp(new WuWorkspace(dir), options)));
    return async () => {
      const { dir, made } = await setup();
      return { ...made, ws: new WuWorkspace(dir) };
    };
  }

  /**
   * A workspace with INIT-1 (lanes L1…L6); pass `initiative: false` for a bare one. `baton init` is
   * skipped (the first append creates `.baton/`; init is idempotent and no scenario depends on it),
   * which saves a process per test.
   */
  static create(options: { config?: string; initiative?: boolean } = {}): Promise<WuWorkspace> {
    return WuWorkspace.setUp(new WuWorkspace(), options);
  }

  private static async setUp(ws: WuWorkspace, options: { config?: string; initiative?: boolean }): Promise<WuWorkspace> {
    if (options.config !== undefined) {
      mkdirSync(join(ws.dir, '.baton'), { recursive: true, mode: 0o700 });
      ws.writeConfig(options.config);
    }
    if (options.initiative !== false) await ws.ok(['initiative', 'create', 'INIT-1', '--title', 'One', '--lanes', 'L1,L2,L3,L4,L5,L6']);
    return ws;
  }

  writeConfig(text: string): void {
    writeFileSync(join(this.dir, '.baton', 'config.yaml'), text);
  }

  async run(args: readonly string[], options: CallOptions = {}): Promise<Run> {
    const env = { BATON_NOW: options.now ?? T0, ...scenarioIdentity(options, args[0] === 'session'), ...options.env };
    const full = ['--json', ...(options.session !== undefined ? ['--session', options.session] : []), ...args];
    const result = await batonIn(this.dir, full, { env, ...(options.input !== undefined ? { input: options.input } : {}) });
    let lines: unknown[] = [];
    try {
      lines = jsonLines(result.stdout);
    } catch {
      lines = [];
    }
    return { ...result, lines, last: lines.at(-1) };
  }

  async ok(args: readonly string[], options: CallOptions = {}): Promise<Run> {
    const r = await this.run(args, options);
    if (r.code !== 0) throw new Error(`baton ${args.join(' ')} exited ${r.code}:\n${r.stdout}\n${r.stderr}`);
    return r;
  }

  /** Run expecting a failure with this exit code; returns the error envelope. */
  async fail(args: readonly string[], exit: number, options: CallOptions = {}): Promise<z.infer<typeof ErrorEnvelope>> {
    const r = await this.run(args, options);
    if (r.code !== exit) throw new Error(`baton ${args.join(' ')} exited ${r.code}, expected ${exit}:\n${r.stdout}\n${r.stderr}`);
    return ErrorEnvelope.parse(r.last);
  }

  /** `wu create WU-n --initiative INIT-1 --lane L --title Tn [extra…]`. */
  wu(n: number, lane: string, extra: readonly string[] = [], options: CallOptions = {}): Promise<Run> {
    return this.ok(['wu', 'create', `WU-${n}`, '--initiative', 'INIT-1', '--lane', lane, '--title', `T${n}`, ...extra], options);
  }

  /** Define WU-from…WU-to (lane L1) in one batch append, for tests that need many WUs. */
  defineMany(from: number, to: number, lane = 'L1'): Promise<Run> {
    const lines: string[] = [];
    for (let n = from; n <= to; n++) {
      lines.push(JSON.stringify({ type: 'wu.defined', stream: `wu/WU-${n}`, data: { wu_id: `WU-${n}`, initiative: 'INIT-1', lane, title: `T${n}` } }));
    }
    return this.ok(['log', 'append', '--events', '-', '--batch'], { input: `${lines.join('\n')}\n` });
  }

  /**
   * `log append --type T --stream S --data D`, run in this process through the application layer
   * (test/helpers/in-process.ts): what a scenario injects (observations, …) is its setup, not what it tests.
   */
  async inject(type: string, stream: string, data: Record<string, unknown>, options: CallOptions = {}): Promise<void> {
    await this.inProcess(options, async (app) => {
      const event = { type, stream, data };
      await app.requireActingSession([event]);
      await (await app.store()).append([event]);
    });
  }

  /** `session start`, run in this process: for a session a scenario needs but does not test. */
  async setUpSession(options: CallOptions = {}): Promise<string> {
    return (await this.inProcess(options, (app) => startSessionEnvelope(app, {}), { startsSession: true })).session.id;
  }

  /** `wu claim WU [--mode M]`, run in this process: for a claim a scenario needs but does not test. */
  async setUpClaim(wu: string, input: Omit<ClaimInput, 'wu'> = {}, options: CallOptions = {}): Promise<void> {
    await this.inProcess(options, (app) => claimWorkUnit(app, { wu, ...input }));
  }

  private inProcess<T>(options: CallOptions, step: (app: BatonAppContext) => Promise<T>, what = { startsSession: false }): Promise<T> {
    const env = { ...scenarioIdentity(options, what.startsSession), ...options.env };
    return inProcess(this.dir, { now: options.now ?? T0, session: options.session, env }, step);
  }

  async status(options: CallOptions & { args?: readonly string[] } = {}): Promise<StatusEnvelope> {
    return InitiativeStatusEnvelope.parse((await this.ok(['orchestrate', 'status', 'INIT-1', ...(options.args ?? [])], options)).last);
  }

  async plan(args: readonly string[] = [], options: CallOptions = {}): Promise<z.infer<typeof InitiativePlanEnvelope>> {
    return InitiativePlanEnvelope.parse((await this.ok(['orchestrate', 'plan', 'INIT-1', ...args], options)).last);
  }

  async launch(args: readonly string[] = [], options: CallOptions = {}): Promise<z.infer<typeof InitiativeLaunchEnvelope>> {
    return InitiativeLaunchEnvelope.parse((await this.ok(['orchestrate', 'run', 'INIT-1', ...args], options)).last);
  }

  async explain(wu: string, options: CallOptions = {}): Promise<z.infer<typeof WuExplanationEnvelope>> {
    return WuExplanationEnvelope.parse((await this.ok(['wu', 'explain', wu], options)).last);
  }

  async startSession(options: CallOptions = {}): Promise<string> {
    const r = await this.ok(['session', 'start'], options);
    return z.looseObject({ session: z.looseObject({ id: z.string() }) }).parse(r.last).session.id;
  }

  events() {
    return storedEvents(this.dir);
  }

  headSeq(): number {
    return this.events().at(-1)?.seq ?? 0;
  }
}

/** A status row by WU id (throws when missing). */
export function row(status: StatusEnvelope, wu: string): StatusEnvelope['wus'][number] {
  const r = status.wus.find((w) => w.wu_id === wu);
  if (r === undefined) throw new Error(`no row for ${wu}: ${JSON.stringify(status.wus.map((w) => w.wu_id))}`);
  return r;
}

export function stateOf(status: StatusEnvelope, wu: string): string {
  return row(status, wu).orchestration_state;
}

export function actionFor(status: StatusEnvelope, wu: string): StatusEnvelope['next_safe_actions'][number] | undefined {
  return status.next_safe_actions.find((a) => a.wu_id === wu || (a.wu_ids ?? []).includes(wu));
}
