import type { Command } from 'commander';
import { CLIENT_TYPES } from '../../../events/coordination/vocabulary.js';
import { errorEnvelope } from '../../app/error-envelope.js';
import { invalidInput } from '../../errors.js';
import { BatonMcp, type McpOptions } from '../../mcp/server.js';
import { McpStdioTransport } from '../../mcp/stdio-transport.js';
import { CommandContext, type GlobalFlags } from '../context.js';

/**
 * `baton mcp`: serve Baton's tools over stdio until the client closes the pipe. stdout belongs to
 * the protocol; nothing else is printed there. Malformed input is answered on the protocol and the
 * server goes on (stdio-transport.ts); only stdin failing stops it, with exit 1 and one line on stderr.
 * When the client disconnects (stdin closed, or SIGTERM), the session the server started ends.
 *
 * A configuration refused at start-up (an empty BATON_SESSION, a bad --dir, --client or session
 * name) does not stop the server, whose client would only see the connection close: it serves, says
 * so in one stderr line, answers every tool call with that error envelope, and exits 2 when closed.
 */
export async function mcp(command: Command, options: { client?: string }, version: string): Promise<void> {
  const serving = await configure(command.optsWithGlobals<GlobalFlags>(), options);
  if (serving.refused !== undefined) {
    const message = (JSON.parse(serving.refused) as { message: string }).message.split('\n')[0];
    process.stderr.write(`baton mcp: ${message}; every tool call answers this error until it is fixed\n`);
  }
  const transport = new McpStdioTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  // A host stopping the server (SIGTERM, as the MCP SDK's client does after closing stdin) is a disconnect too.
  const terminate = (): void => void transport.close();
  process.once('SIGTERM', terminate);
  const baton = new BatonMcp({ ...serving, version });
  await baton.server().connect(transport);
  await closed;
  process.off('SIGTERM', terminate);
  await endStartedSession(baton);
  if (transport.readFailure !== undefined) {
    process.stderr.write(`baton mcp: stopped, cannot read stdin: ${transport.readFailure.message.split('\n')[0]}\n`);
    process.exitCode = 1;
    return;
  }
  process.exitCode = serving.refused === undefined ? 0 : 2;
}

/**
 * The client disconnected: the session the server started ends (src/mcp/server.ts), so its claims
 * are free at once rather than when its lease lapses. A failure to end it is one stderr line.
 */
async function endStartedSession(baton: BatonMcp): Promise<void> {
  const ended = await baton.endStartedSession();
  if (ended === null || ended.ok) return;
  const message = (JSON.parse(ended.text) as { message?: string }).message ?? ended.text;
  process.stderr.write(`baton mcp: could not end its session: ${message.split('\n')[0]}\n`);
}

/** The server's workspace, session and client, checked now; or the error envelope that refuses them. */
async function configure(flags: GlobalFlags, options: { client?: string }): Promise<Omit<McpOptions, 'version'>> {
  const client = options.client ?? 'generic';
  let ctx: CommandContext | undefined;
  try {
    ctx = new CommandContext(flags);
    if (!(CLIENT_TYPES as readonly string[]).includes(client)) throw invalidInput(`must be one of ${CLIENT_TYPES.join(', ')}, got "${client}"`, '--client');
    // Check the workspace and the session name now: a bad --dir is found at start-up, not on every call.
    const dir = await ctx.workspace();
    // A display name binds the session holding it now, not whichever holds the name later.
    await ctx.resolveSession();
    return { dir, session: ctx.session, client, env: ctx.env };
  } catch (error) {
    // The inputs are the server's own (--dir, --client, BATON_SESSION), already named as such.
    const refused = JSON.stringify(errorEnvelope(error, ctx?.now, (field) => field, process.env));
    return { dir: flags.dir, session: undefined, client, env: process.env, refused };
  } finally {
    await ctx?.close();
  }
}
