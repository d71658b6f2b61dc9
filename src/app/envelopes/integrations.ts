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
  /** The MCP client configuration written or printed (Codex, Cursor). */
  mcp_config: z.record(z.string(), z.unknown()).optional(),
  warnings: z.array(z.string()),
});
