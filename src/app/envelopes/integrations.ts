import { z } from 'zod';

/** The envelopes of `baton setup` (client integrations), validated before printing. */
export const ClientSetupEnvelope = z.strictObject({
  v: z.literal(1),
  type: z.literal('client_setup'),
  generated_at: z.iso.datetime(),
  client: z.string(),
  files: z.array(z.string()),
  changed: z.boolean(),
  /** The hook commands installed (Claude Code), one per event. */
  hooks: z.array(z.strictObject({ event: z.string(), command: z.string() })),
  /** The MCP client configuration written or printed (Claude Code's .mcp.json, Codex, Cursor). */
  mcp_config: z.record(z.string(), z.unknown()).optional(),
  /** Run in a linked git worktree (Claude Code): what the worktree got besides the main checkout. */
  worktree: z
    .strictObject({
      path: z.string(),
      /** Of the files setup manages, those git tracks in the main checkout. */
      committed_in_main: z.array(z.string()),
      /** Those git tracks in the worktree: checked out from git, not written. */
      checked_out: z.array(z.string()),
      /** Those setup keeps in the worktree itself. */
      written: z.array(z.string()),
      changed: z.boolean(),
    })
    .optional(),
  warnings: z.array(z.string()),
  /** What setup did besides the files (git now ignores .claude/settings.local.json). */
  notes: z.array(z.string()).optional(),
});
