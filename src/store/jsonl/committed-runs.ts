import { LogCorruptError } from '../../errors.js';
import { loadBlockHasher } from './block-hasher.js';
import type { CheckedPrefix } from './checked-prefix.js';
import { SealDigests } from './seal-digests.js';
import { readIsLong, scanRuns, type ScannedEvent, type Segment } from './segment-scan.js';
import { forgetVerifiedPrefix } from './verified-prefix.js';

/** What a read of committed runs needs of its store handle. */
export interface RunsReader {
  segments: readonly Segment[];
  cacheDir: string;
  checkedPrefix: CheckedPrefix;
  sealWorkerMinBytes: number;
  sealDigests: boolean;
}

/**
 * The committed events from `from` to `to` (inclusive), in runs (segment-scan.ts scanRuns). A long
 * read first loads the hasher of the seal-checked blocks' cache (block-hasher.ts), once per process.
 * The scan starts at `from` only when every line before it is known checked (checked-prefix.ts);
 * else where the checked lines end, and the events before `from` are checked and dropped here.
 */
export async function* committedRuns(reader: RunsReader, from: number, to: number | undefined, withLines = true): AsyncGenerator<ScannedEvent[]> {
  const { segments, checkedPrefix } = reader;
  const first = Math.max(1, from);
  const begin = checkedPrefix.startFor(segments, first);
  if (!begin) return;
  const start = begin.cursor;
  const last = to ?? Number.MAX_SAFE_INTEGER;
  const bounds = {
    sealWorkerMinBytes: reader.sealWorkerMinBytes,
    ...(to !== undefined ? { expectedEvents: Math.max(0, to - Math.min(first, start.seq) + 1) } : {}),
  };
  const long = readIsLong(segments, start, bounds);
  const hasher = long && reader.sealDigests ? await loadBlockHasher() : undefined;
  const scan = scanRuns(segments, start, {
    withLines,
    long,
    ...(hasher ? { sealDigests: SealDigests.load(reader.cacheDir, hasher) } : {}),
    ...bounds,
  });
  const next = (): ReturnType<typeof scan.next> => forgettingOnCorrupt(reader, () => scan.next());
  let checked: ScannedEvent | undefined;
  try {
    for (let step = next(); !step.done; step = next()) {
      const run = step.value;
      checked = run[run.length - 1];
      if (run[0]!.event.seq >= first && run[run.length - 1]!.event.seq <= last) {
        yield run;
        // Done at `to`: what follows (maybe a corrupt line) is never read.
        if (run[run.length - 1]!.event.seq === last) return;
        continue;
      }
      const inRange = run.filter((item) => item.event.seq >= first && item.event.seq <= last);
      if (inRange.length > 0) yield inRange;
      if (run[run.length - 1]!.event.seq >= last) return;
    }
  } finally {
    if (checked !== undefined) checkedPrefix.extendTo(begin, checked);
  }
}

/** A read that meets a corrupt line drops the verified-prefix record, so no writer trusts it. */
function forgettingOnCorrupt<T>(reader: RunsReader, next: () => T): T {
  try {
    return next();
  } catch (error) {
    if (error instanceof LogCorruptError) {
      forgetVerifiedPrefix(reader.cacheDir);
      reader.checkedPrefix.forget();
    }
    throw error;
  }
}
