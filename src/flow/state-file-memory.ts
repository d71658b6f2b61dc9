import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import { FileAccess, readIfFile, writeFileAtomic } from '../artifacts/atomic-write.js';
import type { AppContext } from '../app/context.js';

/**
 * The SHA-256 of the last rendering Baton wrote for each state file, kept under `.baton/cache/`
 * (safe to delete: without it every file that differs from the current rendering is read as an
 * outside edit, which is the safe side). It tells a stale Baton rendering (another process appended
 * since; just rewrite it) from an edit someone else made (read it: state-file-edits.ts).
 */
const MEMORY_FILE = 'state-file-renderings.json';
const Memory = z.record(z.string(), z.string());
type Memory = z.infer<typeof Memory>;

export function sha256(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

async function memoryPath(ctx: AppContext): Promise<string> {
  return join(await ctx.cacheDir(), MEMORY_FILE);
}

export async function readMemory(ctx: AppContext): Promise<Memory> {
  const workspace = await ctx.workspace();
  try {
    const bytes = readIfFile(workspace, await memoryPath(ctx));
    if (bytes === undefined) return {};
    const parsed = Memory.safeParse(JSON.parse(bytes.toString('utf8')));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

/** Remember what Baton rendered for `relPath` (called with the artifact lock held). */
export async function rememberRendering(ctx: AppContext, relPath: string, content: string): Promise<void> {
  const memory = await readMemory(ctx);
  const hash = sha256(content);
  if (memory[relPath] === hash) return;
  memory[relPath] = hash;
  writeFileAtomic(await ctx.workspace(), await memoryPath(ctx), JSON.stringify(memory), FileAccess.private);
}

/** Whether `bytes` differ from both Baton's current rendering and the last one it wrote. */
export async function editedOutside(ctx: AppContext, relPath: string, bytes: Buffer, rendering: string): Promise<boolean> {
  if (bytes.equals(Buffer.from(rendering, 'utf8'))) return false;
  const memory = await readMemory(ctx);
  return memory[relPath] !== sha256(bytes);
}
