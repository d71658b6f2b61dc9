import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CommandContext } from '../cli/context.js';
import { Output, OutputMode } from '../cli/output.js';
import type { TextSink } from '../cli/stdio.js';
import { MCP_TOOLS, type McpToolName } from './tools.js';

/**
 * `baton mcp`: a stdio MCP server bound to one session — `--session` / `BATON_SESSION`, or one it
 * starts on the first tool call and keeps. A tool call runs the CLI command's own function in this
 * process with a fresh clock, its output captured: the result is the envelope the CLI prints (an
 * error is the CLI's error envelope, with isError), never a second implementation.
 */
export interface McpOptions {
  /** The workspace (`--dir` / `BATON_DIR`), as the CLI resolves it. */
  dir: string | undefined;
  /** The bound session, if given; else started on the first call. */
  session: string | undefined;
  /** The client type recorded on a session the server starts. */
  client: string;
  env: NodeJS.ProcessEnv;
  version: string;
}

class Capture implements TextSink {
  text = '';
  write(text: string): boolean {
    this.text += text;
    return true;
  }
}

type Args = Record<string, unknown>;
const str = (args: Args, key: string): string | undefined => (typeof args[key] === 'string' ? (args[key] as string) : undefined);
/** Only the options given: the commands treat a missing option and an undefined one alike, not so every schema. */
const defined = <T extends Record<string, unknown>>(o: T): Partial<T> => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

/** Each tool as the CLI command it is: which module, which function, which arguments. */
const RUN: Record<McpToolName, (ctx: CommandContext, args: Args) => Promise<unknown>> = {
  status: async (ctx) => (await import('../cli/commands/status.js')).status(ctx),
  claim: async (ctx, a) => (await import('../cli/commands/wu-lifecycle.js')).wuLifecycle(ctx, 'claim', str(a, 'wu')!, defined({ mode: str(a, 'mode') })),
  checkpoint: async (ctx, a) =>
    (await import('../cli/commands/wu-lifecycle.js')).wuLifecycle(ctx, 'checkpoint', str(a, 'wu')!, defined({ note: str(a, 'note'), progress: str(a, 'progress'), nextSteps: str(a, 'next_steps') })),
  finish: async (ctx, a) => (await import('../cli/commands/wu-done.js')).wuDone(ctx, str(a, 'wu')!),
  task_transition: async (ctx, a) =>
    (await import('../cli/commands/task-transition.js')).taskTransition(ctx, str(a, 'task')!, str(a, 'state')!, defined({ reason: str(a, 'reason'), summary: str(a, 'summary') })),
  send_signal: async (ctx, a) =>
    (await import('../cli/commands/mem-signal.js')).memSignal(
      ctx,
      str(a, 'message')!,
      defined({ to: str(a, 'to'), intent: str(a, 'intent'), replyTo: str(a, 'reply_to'), wu: str(a, 'wu'), requiresAck: a['requires_ack'] === true ? true : undefined }),
    ),
  inbox: async (ctx, a) => (await import('../cli/commands/mem-inbox.js')).memInbox(ctx, defined({ all: a['all'] === true ? true : undefined, mark: a['mark'] === false ? false : undefined })),
  orchestrate_status: async (ctx, a) => (await import('../cli/commands/orchestrate.js')).orchestrateStatus(ctx, str(a, 'initiative')!, {}),
};

export class BatonMcp {
  private session: string | undefined;
  private starting: Promise<string> | undefined;

  constructor(private readonly options: McpOptions) {
    this.session = options.session;
  }

  /** Run one CLI command function as `session`, with its JSON output captured. */
  private async run(session: string | undefined, body: (ctx: CommandContext) => Promise<unknown>): Promise<{ ok: boolean; text: string }> {
    const out = new Capture();
    const err = new Capture();
    const output = new Output(OutputMode.json, out, err);
    // A fresh context per call: the clock is read once per command, as on the command line.
    let ctx: CommandContext | undefined;
    let ok = true;
    try {
      ctx = new CommandContext({ json: true, ...(this.options.dir !== undefined ? { dir: this.options.dir } : {}), ...(session !== undefined ? { session } : {}) }, this.options.env, output);
      await body(ctx);
    } catch (error) {
      ok = false;
      output.error(error, ctx?.now);
    } finally {
      await ctx?.close();
    }
    const lines = out.text.trim().split('\n').filter((l) => l !== '');
    return { ok, text: lines.at(-1) ?? '' };
  }

  /** The bound session: the given one, else one started now (once, however many calls race). */
  async boundSession(): Promise<string> {
    if (this.session !== undefined) return this.session;
    this.starting ??= (async () => {
      const started = await this.run(undefined, async (ctx) => (await import('../cli/commands/session-start.js')).sessionStart(ctx, { client: this.options.client }));
      if (!started.ok) {
        this.starting = undefined;
        throw new Error(started.text);
      }
      return (JSON.parse(started.text) as { session: { id: string } }).session.id;
    })();
    this.session = await this.starting;
    return this.session;
  }

  async call(name: McpToolName, args: Args): Promise<CallToolResult> {
    let session: string;
    try {
      session = await this.boundSession();
    } catch (error) {
      return { content: [{ type: 'text', text: (error as Error).message }], isError: true };
    }
    const result = await this.run(session, (ctx) => RUN[name](ctx, args));
    return { content: [{ type: 'text', text: result.text }], ...(result.ok ? {} : { isError: true }) };
  }

  server(): McpServer {
    const server = new McpServer({ name: 'baton', version: this.options.version });
    for (const name of Object.keys(MCP_TOOLS) as McpToolName[]) {
      const tool = MCP_TOOLS[name];
      server.registerTool(name, { description: tool.description, inputSchema: tool.input }, (args: Args) => this.call(name, args ?? {}));
    }
    return server;
  }
}
