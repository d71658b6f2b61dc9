import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { batonIn, jsonLines, type CliResult } from './cli.js';
import { makeTempDir, storedEvents } from './workspace.js';

/**
 * Coordination scenarios through the built binary: a fresh workspace with coordination.md §15's
 * conventions (pool Planck, Noether, Curie, Dirac; BATON_NOW = T0; --json), and small helpers to
 * start sessions, send signals and look at the log.
 */
export const T0 = '2026-04-17T10:00:00Z';
export const T0_ISO = '2026-04-17T10:00:00.000Z';

export function at(offsetSeconds: number): string {
  return new Date(Date.parse(T0) + offsetSeconds * 1000).toISOString();
}

/**
 * JSON printed by the binary. Test-only and deliberately loose (the one `any` in the project): every
 * field a test reads is then checked by its assertions, and the binary validated the envelope.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export interface Run extends CliResult {
  /** The last JSON line of stdout (the envelope), or undefined. */
  json: Json;
  lines: Json[];
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
    let lines: Json[] = [];
    try {
      lines = jsonLines(result.stdout) as Json[];
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

  async start(flags: readonly string[] = [], options: CallOptions = {}): Promise<string> {
    const r = await this.ok(['session', 'start', ...flags], options);
    return r.json['session']['id'] as string;
  }

  /** Send and return the signal. */
  async signal(message: string, flags: readonly string[], options: CallOptions = {}): Promise<Json> {
    const r = await this.ok(['mem', 'signal', message, ...flags], options);
    return r.json['signal'] as Json;
  }

  events() {
    return storedEvents(this.dir);
  }

  head(): number {
    return this.events().length;
  }

  /** An initiative INIT-1 with lane L1, and WUs (provisional event shapes until the WU issue lands). */
  async withWus(...wus: string[]): Promise<void> {
    await this.ok(['log', 'append', '--type', 'initiative.created', '--stream', 'initiative/INIT-1', '--data', JSON.stringify({ initiative: 'INIT-1', title: 'One', slug: null, lanes: ['L1'] })]);
    for (const wu of wus) {
      await this.ok(['log', 'append', '--type', 'wu.defined', '--stream', `wu/${wu}`, '--data', JSON.stringify({ wu_id: wu, initiative: 'INIT-1', lane: 'L1', title: wu })]);
    }
  }

  async claim(wu: string, session: string): Promise<void> {
    await this.ok(['log', 'append', '--type', 'wu.claimed', '--stream', `wu/${wu}`, '--data', JSON.stringify({ wu_id: wu, session_id: session, mode: 'worktree', worktree_path: null, branch: null, takeover_from: null })], { as: session });
  }
}

export async function workspace(config?: string): Promise<Workspace> {
  return new Workspace(config).init();
}
