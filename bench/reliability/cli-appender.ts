import { acknowledgedBy, appendArguments, AppendShape, type AppendInvocation, type Note } from './cli-append.js';
import { startCli, type CliRun, type RunningCli } from './cli.js';
import type { Acknowledged } from './log-check.js';
import type { Violation } from './outcome.js';

/**
 * An agent appending to a log through the built CLI, one `baton log append` child after another:
 * random shapes (a single event, a batch of 2–6 with `--each` or its summary, a file of 2–4 lines
 * each its own call), some keyed. Every event's text starts with its invocation's tag and a dot,
 * so the log tells whose an event is.
 */
export function drawAppend(random: () => number, tag: string): AppendInvocation {
  const note = (k: number, key?: string): Note => ({
    stream: `note/${tag}-${k % 3}`,
    text: `${tag}.${k} ${'x'.repeat(Math.floor(random() * 300))}`,
    ...(key !== undefined ? { key } : {}),
  });
  const keyed = random() < 0.35;
  const shape = random();
  if (shape < 0.4) return { shape: AppendShape.single, notes: [note(0)], ...(keyed ? { key: tag } : {}) };
  if (shape < 0.8) {
    const notes = Array.from({ length: 2 + Math.floor(random() * 5) }, (_, k) => note(k));
    return { shape: AppendShape.batch, notes, summary: random() < 0.3, ...(keyed ? { key: tag } : {}) };
  }
  return { shape: AppendShape.lines, notes: Array.from({ length: 2 + Math.floor(random() * 3) }, (_, k) => note(k, keyed ? `${tag}.${k}` : undefined)) };
}

/** Every append call of the invocation is keyed: a retry after a crash stores nothing twice. */
export function fullyKeyed(invocation: AppendInvocation): boolean {
  return invocation.shape === AppendShape.lines ? invocation.notes.every((n) => n.key !== undefined) : invocation.key !== undefined;
}

export function startAppend(workspace: string, invocation: AppendInvocation, timeoutMs = CHILD_TIMEOUT_MS): RunningCli {
  const { args, input } = appendArguments(invocation);
  return startCli(['--json', '--dir', workspace, ...args], { input, timeoutMs });
}

/** No append of these small logs takes this long, even on a loaded machine: past it, a hang. */
export const CHILD_TIMEOUT_MS = 60_000;

/** What went wrong with an append child nobody killed, or undefined when it exited 0. */
export function failureOf(run: CliRun): { kind: Violation; message: string } | undefined {
  if (run.code === 0) return undefined;
  const said = (run.stdout + run.stderr).slice(0, 300).replace(/\s+/g, ' ');
  if (run.timedOut) return { kind: 'hung', message: `killed after its time-out: ${said}` };
  if (run.code === 1 || run.code === null) return { kind: 'exit1', message: `exited ${run.code ?? run.signal}: ${said}` };
  return { kind: 'otherFailures', message: `exited ${run.code}: ${said}` };
}

/**
 * The acknowledgements of a child nobody killed, or its failure (an exit 0 whose output does not
 * read as the append's envelopes is one too).
 */
export function settle(invocation: AppendInvocation, run: CliRun): { acknowledged: Acknowledged[] } | { failure: { kind: Violation; message: string } } {
  const failure = failureOf(run);
  if (failure !== undefined) return { failure };
  try {
    return { acknowledged: acknowledgedBy(invocation, run) };
  } catch (error) {
    return { failure: { kind: 'otherFailures', message: `${(error as Error).message}: ${run.stdout.slice(0, 300)}` } };
  }
}

/** A bystander: appends through the CLI again and again until killed. */
export class CliAppendLoop {
  readonly acknowledged: Acknowledged[] = [];
  readonly failures: { kind: Violation; message: string }[] = [];
  private running: RunningCli | undefined;
  private stopping = false;
  private readonly finished: Promise<void>;

  constructor(
    private readonly workspace: string,
    private readonly tag: string,
    private readonly random: () => number,
  ) {
    this.finished = this.loop();
  }

  private async loop(): Promise<void> {
    for (let i = 1; !this.stopping; i++) {
      const invocation = drawAppend(this.random, `${this.tag}-i${i}`);
      this.running = startAppend(this.workspace, invocation);
      const run = await this.running.done;
      this.running = undefined;
      if (this.stopping && run.signal === 'SIGKILL' && !run.timedOut) return;
      const outcome = settle(invocation, run);
      if ('failure' in outcome) this.failures.push(outcome.failure);
      else this.acknowledged.push(...outcome.acknowledged);
    }
  }

  /** SIGKILL the append in flight, start no other, and wait until the loop has ended. */
  async kill(): Promise<void> {
    this.stopping = true;
    this.running?.kill();
    await this.finished;
  }
}
