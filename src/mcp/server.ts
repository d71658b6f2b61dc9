import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { EndStatus } from '../../events/coordination/vocabulary.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { BatonAppContext } from '../app/app-context.js';
import { auditWorkspace } from '../app/commands/audit.js';
import { readRoster } from '../app/commands/coordination-views.js';
import { checkPaths } from '../app/commands/guard.js';
import { readInboxEnvelope } from '../app/commands/inbox.js';
import { readInitiativeStatus } from '../app/commands/initiative-status.js';
import { listWorkUnits } from '../app/commands/listing.js';
import { endSessionEnvelope, startSessionEnvelope } from '../app/commands/sessions.js';
import { sendSignalEnvelope } from '../app/commands/signals.js';
import { readStatus } from '../app/commands/status.js';
import { createTaskEnvelope, transitionTask } from '../app/commands/tasks.js';
import { checkpointWorkUnit, claimWorkUnit, finishWorkUnit, releaseWorkUnit, returnWorkUnit } from '../app/commands/work-units.js';
import type { AppContext } from '../app/context.js';
import { errorEnvelope } from '../app/error-envelope.js';
import { MCP_INSTRUCTIONS, MCP_TOOLS, type McpToolName } from './tools.js';

/**
 * `baton mcp`: a stdio MCP server bound to one session — `--session` / `BATON_SESSION`, or one it
 * starts on the first tool call and keeps until its client disconnects (`endStartedSession`). A tool call runs the application's command function
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
  /**
   * The server's own configuration was refused at start-up (an empty or malformed BATON_SESSION, a
   * bad --dir or --client): the error envelope every tool call answers with, so the client sees
   * why instead of a closed connection.
   */
  refused?: string | undefined;
}

type Args = Record<string, unknown>;
const str = (args: Args, key: string): string | undefined => (typeof args[key] === 'string' ? (args[key] as string) : undefined);
const flag = (args: Args, key: string): true | undefined => (args[key] === true ? true : undefined);
const strings = (args: Args, key: string): string[] | undefined => (Array.isArray(args[key]) ? (args[key] as string[]) : undefined);

/** Each tool as the application command it is, its arguments (named as the domain names them) as the command's input. */
const RUN: Record<McpToolName, (app: AppContext, args: Args) => Promise<unknown>> = {
  status: (app) => readStatus(app),
  wu_list: (app, a) => listWorkUnits(app, { state: str(a, 'state'), initiative: str(a, 'initiative') }),
  roster: (app) => readRoster(app, {}),
  claim: (app, a) =>
    claimWorkUnit(app, {
      wu: str(a, 'wu')!,
      mode: str(a, 'mode'),
      takeover: flag(a, 'takeover'),
      force: flag(a, 'force'),
      reason: str(a, 'reason'),
      paths: strings(a, 'paths'),
    }),
  checkpoint: (app, a) => checkpointWorkUnit(app, { wu: str(a, 'wu')!, note: str(a, 'note'), progress: str(a, 'progress'), next_steps: str(a, 'next_steps') }),
  finish: (app, a) => finishWorkUnit(app, { wu: str(a, 'wu')! }),
  return: (app, a) => returnWorkUnit(app, { wu: str(a, 'wu')!, note: str(a, 'note') }),
  release: (app, a) => releaseWorkUnit(app, { wu: str(a, 'wu')!, reason: str(a, 'reason') }),
  task_create: (app, a) => createTaskEnvelope(app, { label: str(a, 'label'), state: str(a, 'state'), parent: str(a, 'parent') }),
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
  check_paths: (app, a) => checkPaths(app, { paths: strings(a, 'paths') ?? [] }),
  audit: (app, a) => auditWorkspace(app, { fail_on: str(a, 'fail_on') }),
};

/**
 * An input named in an error: the tools' arguments carry the domain's own names (`reply_to`,
 * `next_steps`), so the field is the argument; an input of the server itself keeps its flag (`--dir`).
 */
const argumentName = (field: string): string => field;

export class BatonMcp {
  private session: string | undefined;
  private starting: Promise<string> | undefined;
  private ending: Promise<{ ok: boolean; text: string } | null> | undefined;

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

  /**
   * The client went away (stdin closed, SIGTERM): the session this server started ends as
   * `succeeded` (a clean disconnect), so it holds no claims past the server. A session it was given
   * (`--session`, BATON_SESSION) is its caller's to end. Once, however often it is asked; never
   * throws: null when there was nothing to end, else the end's envelope or error envelope.
   */
  endStartedSession(): Promise<{ ok: boolean; text: string } | null> {
    this.ending ??= (async () => {
      if (this.options.session !== undefined || this.starting === undefined) return null;
      const session = await this.starting.catch(() => undefined);
      if (session === undefined) return null;
      return this.run(session, async (app) => (await endSessionEnvelope(app, { session_id: session, status: EndStatus.succeeded })).envelope);
    })();
    return this.ending;
  }

  async call(name: McpToolName, args: Args): Promise<CallToolResult> {
    if (this.options.refused !== undefined) return { content: [{ type: 'text', text: this.options.refused }], isError: true };
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
    const server = new McpServer({ name: 'baton', version: this.options.version }, { instructions: MCP_INSTRUCTIONS });
    for (const name of Object.keys(MCP_TOOLS) as McpToolName[]) {
      const tool = MCP_TOOLS[name];
      server.registerTool(name, { description: tool.description, inputSchema: tool.input }, (args: Args) => this.call(name, args ?? {}));
    }
    return server;
  }
}
