import { join } from 'node:path';
import { readIfFile } from '../artifacts/atomic-write.js';
import { invalidInput } from '../errors.js';

/**
 * A client's JSON configuration file (relative to the workspace) as an object, with its bytes as
 * read; `{}` when there is none. Anything but a JSON object is exit 2 naming the file, nothing written.
 */
export function readJsonObjectFile(workspace: string, relative: string): { value: Record<string, unknown>; bytes: string | undefined } {
  const bytes = readIfFile(workspace, join(workspace, relative))?.toString('utf8');
  if (bytes === undefined) return { value: {}, bytes };
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes);
  } catch (error) {
    throw invalidInput(`is not valid JSON (${(error as Error).message}); nothing was written`, relative);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw invalidInput('must be a JSON object; nothing was written', relative);
  return { value: parsed as Record<string, unknown>, bytes };
}
