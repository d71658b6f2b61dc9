import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { InvocationCheck } from './fuzz-invocation.js';
import type { Place } from './fuzz-traps.js';

/**
 * Device files given where a command reads a file: endless (`/dev/zero`, `/dev/urandom`) or
 * failing on write but endless on read (`/dev/full`). Each must be refused (exit 2 or 5) at once,
 * never read until memory runs out, never exit 1, never hang, and change nothing.
 */
export const DEVICES = ['/dev/zero', '/dev/full', '/dev/urandom'] as const;

export const DEVICE_READERS: readonly { label: string; args: (device: string) => string[]; emptyWorkspace: boolean }[] = [
  { label: 'log append --events', args: (device) => ['log', 'append', '--events', device], emptyWorkspace: false },
  // A store that already holds events refuses an import before it reads the file: into an empty one.
  { label: 'log import', args: (device) => ['log', 'import', device], emptyWorkspace: true },
  { label: 'wu import', args: (device) => ['wu', 'import', device], emptyWorkspace: false },
];

/** Every pairing of a device and a reader, in turn. */
export const DEVICE_DRAWS = DEVICE_READERS.flatMap((reader) => DEVICES.map((device) => ({ reader, device })));

/** A refusal takes well under a second; one that reads on is stopped here, not when memory runs out. */
export const DEVICE_TIMEOUT_MS = 15_000;

export function deviceDraw(
  draw: (typeof DEVICE_DRAWS)[number],
  random: () => number,
  place: Place,
  index: number,
): { args: string[]; check: Omit<InvocationCheck, 'timeoutMs' | 'rerunOnTimeout'> } {
  const mode = random() < 0.5 ? '--json' : '--human';
  // The fuzz workspace may hold a link the link campaign planted (`.baton/cache` → elsewhere): that
  // workspace is refused (3, SYMLINK_REFUSED) before the device is read, which is as right as 2 or 5.
  if (!draw.reader.emptyWorkspace) return { args: [mode, '--dir', place.ws, ...draw.reader.args(draw.device)], check: { exits: [2, 3, 5], named: [] } };
  const empty = join(place.home, `import-${index}`);
  mkdirSync(empty, { recursive: true });
  return { args: [mode, '--dir', empty, ...draw.reader.args(draw.device)], check: { exits: [2, 5], named: [], workspace: empty } };
}
