import { isAscii } from 'node:buffer';

/**
 * The text of a stored line, decoded from the read buffer. Baton's lines are almost always pure
 * ASCII (canonical JSON escapes nothing above it, but agents' text may hold any character), and
 * for ASCII bytes Latin-1 decoding gives the same string as UTF-8 without validating sequences:
 * a reader asks once per block whether it is all ASCII (`isAsciiBlock`, a vectorised scan) and
 * then decodes each line the cheaper way. `latin1Slice` and `utf8Slice` are the natives behind
 * `Buffer#toString`, called directly (taken once from the prototype, which measured faster than
 * a method call on each buffer): `toString` looks the encoding up and checks its bounds on every
 * call, which a replay makes once per event.
 */
type Slice = (this: Buffer, start: number, end: number) => string;
const natives = Buffer.prototype as unknown as { latin1Slice: Slice; utf8Slice: Slice };
const latin1Slice = natives.latin1Slice;
const utf8Slice = natives.utf8Slice;

/** Whether every byte of `bytes` is ASCII, so that `lineText(…, true)` may decode it. */
export function isAsciiBlock(bytes: Buffer): boolean {
  return isAscii(bytes);
}

/** `bytes[start, end)` as text; `ascii` only when isAsciiBlock said so for bytes holding them. */
export function lineText(bytes: Buffer, start: number, end: number, ascii: boolean): string {
  return ascii ? latin1Slice.call(bytes, start, end) : utf8Slice.call(bytes, start, end);
}
