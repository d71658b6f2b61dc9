import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { BatonAppContext } from '../app/app-context.js';
import { readInboxEnvelope } from '../app/commands/inbox.js';
import { readInitiativeStatus } from '../app/commands/initiative-status.js';
import { startSessionEnvelope } from '../app/commands/sessions.js';
import { sendSignalEnvelope } from '../app/commands/signals.js';
import { readStatus } from '../app/commands/status.js';
import { transitionTask } from '../app/commands/tasks.js';
import { checkpointWorkUnit, claimWorkUnit, finishWorkUnit } from '../app/commands/work-units.js';
import type { AppContext } from '../app/context.js';
import { errorEnvelope } from '../app/error-envelope.js';
import { MCP_TOOLS, type McpToolName } from './tools.js';

/**
 * `baton mcp`: a stdio MCP server bound to one session — `--session` / `BATON_SESSION`, or one it
 * starts on the first tool call and keeps. A tool call runs the application's command function
 * (src/app/commands/, the one the CLI's command calls too) with a fresh context: the result is its
 * envelope as JSON; an error is the error envelope the CLI prints (src/app/error-envelope.ts), with
 * isError, naming the tool's argument at fault. Nothing is printed, so nothing is captured.
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

type Args = Record<string, unknown>;
const str = (args: Args, key: string): string | undefined => (typeof args[key] === 'string' ? (args[key] as string) : undefined);
const flag = (args: Args, key: string): true | undefined => (args[key] === true ? true : undefined);

/** Each tool as the application command it is, its arguments (named as the domain names them) as the command's input. */
const RUN: Record<McpToolName, (app: AppContext, args: Args) => Promise<unknown>> = {
  status: (app) => readStatus(app),
  claim: (app, a) => claimWorkUnit(app, { wu: str(a, 'wu')!, mode: str(a, 'mode') }),
  checkpoint: (app, a) => checkpointWorkUnit(app, { wu: str(a, 'wu')!, note: str(a, 'note'), progress: str(a, 'progress'), next_steps: str(a, 'next_steps') }),
  finish: (app, a) => finishWorkUnit(app, { wu: str(a, 'wu')! }),
  task_transition: (app, a) => transitionTask(app, { task: str(a, 'task')!, state: str(a, 'state')!, reason: str(a, 'reason'), summary: str(a, 'summary') }),
  send_signal: async (app, a) =>
    (
      await sendSignalEnvelope(app, {
        message: str(a, 'message')!,
        to: str(a, 'to')?.split(','),
        intent: str(a, 'intent'),
        reply_to: str(a, 'reply_to'),
        wu: str(a, 'wu'),
        requires_ack: flag(a, 'requires_ack'),
      })
    ).envelope,
  inbox: (app, a) => readInboxEnvelope(app, { all: a['all'] === true, mark: a['mark'] !== false }),
  orchestrate_status: (app, a) => readInitiativeStatus(app, { initiative: str(a, 'initiative')! }),
};

/**
 * An input named in an error: the tools' arguments carry the domain's own names (`reply_to`,
 * `next_steps`), so the field is the argument; an input of the server itself keeps its flag (`--dir`).
 */
const argumentName = (field: string): string => field;

export class BatonMcp {
  private session: string | undefined;
  private starting: Promise<string> | undefined;

  constructor(private readonly options: McpOptions) {
    this.session = options.session;
  }

  /** Run one application command as `session`: its envelope, or the error envelope. */
  private async run(session: string | undefined, body: (app: AppContext) => Promise<unknown>): Promise<{ ok: boolean; text: string }> {
    // A fresh context per call: the clock is read once per command, as on the command line.
    let app: BatonAppContext | undefined;
    try {
      app = new BatonAppContext({
        dir: this.options.dir,
        session,
        env: this.options.env,
        // Warnings ride in the envelopes that carry them; a tool result has no side channel for the rest.
        output: { mode: 'json', warn: () => undefined },
        names: { dir: '--dir', session: '--session' },
      });
      return { ok: true, text: JSON.stringify(await body(app)) };
    } catch (error) {
      return { ok: false, text: JSON.stringify(errorEnvelope(error, app?.now, argumentName, this.options.env)) };
    } finally {
      await app?.close();
    }
  }

  /** The bound session: the given one, else one started now (once, however many calls race). */
  async boundSession(): Promise<string> {
    if (this.session !== undefined) return this.session;
    this.starting ??= (async () => {
      const started = await this.run(undefined, (app) => startSessionEnvelope(app, { client: this.options.client }));
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
    const result = await this.run(session, (app) => RUN[name](app, args));
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
