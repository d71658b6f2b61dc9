import { sha256Hex } from '../hash.js';

/**
 * A line's seal: every stored line ends with `,"hash":"<64 hex>"}`, the SHA-256 of the line's bytes
 * without that suffix (with `}` in place of the comma). Checking it needs no re-serialisation, so
 * every read checks it and an edited line is refused wherever it is read, not only
 * by `verify`. What this cannot see — a line rewritten with a recomputed hash in a non-canonical
 * form, or a rewritten chain — is `verify`'s job (canonical form, schemas, the whole chain).
 *
 * The line is `bytes[start, end)`, without its newline.
 */
export const SEAL_SUFFIX_LENGTH = 75; // ,"hash":"<64 hex>"}

export const SealProblem = {
  NOT_CANONICAL: 'line does not end with its hash (not in canonical form)',
  TAMPERED: 'hash does not match the event content (tampered)',
} as const;
export type SealProblem = (typeof SealProblem)[keyof typeof SealProblem];

const HASH_KEY = Buffer.from(',"hash":"', 'latin1');

/**
 * The suffix's shape, compared byte by byte in place (no string is built; a native compare or a
 * decoded slice cost more than the loop for these few bytes): `,"hash":"`, 64 characters, `"}`.
 * `hash` is the hash the parsed line holds, when the caller has parsed it (then the 64 bytes must
 * be exactly its characters); without it, the 64 bytes are taken as they are.
 */
export function sealShapeHolds(bytes: Buffer, start: number, end: number, hash?: string): boolean {
  const comma = end - SEAL_SUFFIX_LENGTH;
  if (comma <= start) return false;
  for (let i = 0; i < HASH_KEY.length; i++) if (bytes[comma + i] !== HASH_KEY[i]) return false;
  if (bytes[end - 2] !== 0x22 || bytes[end - 1] !== 0x7d) return false;
  if (hash === undefined) return true;
  const digits = end - 66;
  for (let i = 0; i < 64; i++) if (bytes[digits + i] !== hash.charCodeAt(i)) return false;
  return true;
}

/**
 * The line's seal problem, or undefined when it holds. The comma before `"hash"` is overwritten
 * with `}` for the hash and put back, so no copy of the line is made (the buffer must be the
 * caller's to patch for that instant).
 */
export function sealProblem(bytes: Buffer, start: number, end: number, hash?: string): SealProblem | undefined {
  if (!sealShapeHolds(bytes, start, end, hash)) return SealProblem.NOT_CANONICAL;
  const comma = end - SEAL_SUFFIX_LENGTH;
  bytes[comma] = 0x7d;
  let actual: string;
  try {
    actual = sha256Hex(bytes.subarray(start, comma + 1));
  } finally {
    bytes[comma] = 0x2c;
  }
  return actual === (hash ?? bytes.toString('latin1', end - 66, end - 2)) ? undefined : SealProblem.TAMPERED;
}
