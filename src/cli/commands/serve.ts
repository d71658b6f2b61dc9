import { spawn } from 'node:child_process';
import { invalidInput } from '../../errors.js';
import { loadAssets } from '../../serve/assets.js';
import { DashboardViews } from '../../serve/dashboard-views.js';
import { listen } from '../../serve/server.js';
import type { CommandContext } from '../context.js';
import { ServingEnvelope } from '../../app/envelopes/serve.js';
import { parseCount } from '../flags.js';
import { tasksReplayArgs } from '../tasks-replay-args.js';

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/**
 * `baton serve [--port N] [--host ADDR] [--open]`: serves the dashboard until interrupted. Binds to
 * 127.0.0.1 unless `--host` says otherwise, and then warns loudly on stderr.
 */
export async function serve(ctx: CommandContext, options: { port: string; host?: string; open?: boolean }): Promise<void> {
  const port = parseCount(options.port, '--port');
  if (port > 65535) throw invalidInput(`must be a port number (0–65535), got "${options.port}"`, '--port');
  const host = options.host ?? '127.0.0.1';
  if (options.host !== undefined && !/^[A-Za-z0-9.:%-]{1,253}$/.test(host)) throw invalidInput(`must be an address or host name, got "${host}"`, '--host');
  const exposed = !LOOPBACK.has(host);
  const assets = loadAssets();
  const store = await ctx.store();
  const fixed = ctx.env['BATON_NOW'];
  const clock = (): string => (fixed !== undefined && fixed !== '' ? ctx.now : new Date().toISOString());
  const views = new DashboardViews({ store, catalog: await ctx.catalog(), replayArgs: await tasksReplayArgs(ctx), clock });
  let failed: (error: unknown) => void = () => undefined;
  const stopped = new Promise<void>((_resolve, reject) => {
    failed = reject;
  });
  await views.start((error) => failed(error));
  const running = await listen({ views, store, assets, workspace: await ctx.workspace(), clock }, host, port);
  if (exposed) {
    ctx.output.warn(
      [
        '',
        '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!',
        `!!  EXPOSED: the dashboard listens on ${host}, not only on this machine.`,
        '!!  Anyone who can reach it and has the URL (its token) can read the whole log.',
        '!!  Plain HTTP: the token crosses the network in clear. Prefer an SSH tunnel.',
        '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!',
      ].join('\n'),
    );
  }
  ctx.output.emit(
    ServingEnvelope,
    {
      v: 1,
      type: 'serving',
      generated_at: clock(),
      url: running.url,
      host: running.host,
      port: running.port,
      exposed,
      store: store.kind,
      head_seq: views.headSeq(),
    },
    (s) => `Baton dashboard (read-only, ${s.head_seq} events, ${s.store} store): ${s.url}\nPress Ctrl+C to stop.`,
  );
  // Scrubbing is fast once the checkpoints are laid; the page is usable before that.
  void views.buildCheckpoints().catch((error: unknown) => failed(error));
  if (options.open) openBrowser(running.url);
  const stop = (): void => {
    void running
      .close()
      .then(() => views.close())
      .then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  await stopped;
}

/** The platform's opener, with an argument array (no shell); a missing opener is not an error. */
function openBrowser(url: string): void {
  const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  try {
    const child = spawn(opener, [url], { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // no opener: the URL is printed
  }
}
