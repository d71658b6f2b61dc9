import type { LogFixture } from './log-fixture.js';
import type { ChildResult } from './read-child.js';
import { fastest } from './rounds.js';
import { lastJsonLine, runChild } from './support.js';

type ReadChildMode = 'replay' | 'replay-limit' | 'verify' | 'verify-limit';

/** One fresh `read-child` process in `mode` over the fixture; it must account for every event. */
async function readChild(mode: ReadChildMode, fixture: LogFixture, verb: string): Promise<ChildResult> {
  const result = lastJsonLine<ChildResult>(await runChild('read-child', [mode, fixture.dir]));
  if (result.events !== fixture.events) throw new Error(`${mode} ${verb} ${result.events} events, the log holds ${fixture.events}`);
  return result;
}

export interface AlternatedReadRuns {
  batonRuns: ChildResult[];
  limitRuns: ChildResult[];
  /** The fastest run of each. */
  baton: ChildResult;
  limit: ChildResult;
}

/**
 * The read rows' measuring scheme: the machine's limit and Baton alternate `repeats` times, each
 * run a fresh child process that does nothing else (so its peak RSS is its own), and the fastest
 * of each is the figure. `verb` words the error when a child miscounts ("saw", "checked").
 */
export async function alternateReadChildren(
  modes: { baton: ReadChildMode; limit: ReadChildMode; verb: string },
  fixture: LogFixture,
  repeats: number,
): Promise<AlternatedReadRuns> {
  const batonRuns: ChildResult[] = [];
  const limitRuns: ChildResult[] = [];
  for (let i = 0; i < repeats; i++) {
    limitRuns.push(await readChild(modes.limit, fixture, modes.verb));
    batonRuns.push(await readChild(modes.baton, fixture, modes.verb));
  }
  return { batonRuns, limitRuns, baton: fastest(batonRuns), limit: fastest(limitRuns) };
}
