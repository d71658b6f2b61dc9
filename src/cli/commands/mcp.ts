import { CLIENT_TYPES } from '../../../events/coordination/vocabulary.js';
import { invalidInput } from '../../errors.js';
import { BatonMcp } from '../../mcp/server.js';
import { McpStdioTransport } from '../../mcp/stdio-transport.js';
import type { CommandContext } from '../context.js';

/**
 * `baton mcp`: serve Baton's tools over stdio until the client closes the pipe. stdout belongs to
 * the protocol; nothing else is printed there. Malformed input is answered on the protocol and the
 * server goes on (stdio-transport.ts); only stdin failing stops it, with exit 1 and one line on stderr.
 */
export async function mcp(ctx: CommandContext, options: { client?: string }, version: string): Promise<number> {
  const client = options.client ?? 'generic';
  if (!(CLIENT_TYPES as readonly string[]).includes(client)) throw invalidInput(`must be one of ${CLIENT_TYPES.join(', ')}, got "${client}"`, '--client');
  // Check the workspace and the session name now: a bad --dir fails at start-up, not on every call.
  const dir = await ctx.workspace();
  // A display name binds the session holding it now, not whichever holds the name later.
  await ctx.resolveSession();
  const baton = new BatonMcp({ dir, session: ctx.session, client, env: ctx.env, version });
  const transport = new McpStdioTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  await baton.server().connect(transport);
  await closed;
  if (transport.readFailure === undefined) return 0;
  process.stderr.write(`baton mcp: stopped, cannot read stdin: ${transport.readFailure.message.split('\n')[0]}\n`);
  return 1;
}
