import type { Command } from 'commander';
import { loadCommand } from '../command-modules.js';
import { runs } from '../run-command.js';

/** `baton serve`: the read-only live dashboard with a time-travel scrubber. */
export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('a read-only live web dashboard over the views, with a time-travel scrubber (127.0.0.1 and an access token by default)')
    .option('--port <n>', 'the port to listen on (0: any free port)', '4477')
    .option('--host <address>', 'the address to bind (default 127.0.0.1); anything but loopback exposes the dashboard to the network')
    .option('--open', 'open the dashboard in the default browser')
    .addHelpText(
      'after',
      '\nExamples:\n  baton serve\n  baton serve --port 0 --open\n  baton serve --host 0.0.0.0 --port 8080    # exposed: anyone with the URL and token can read the log',
    )
    .action(runs(async (ctx, options: { port: string; host?: string; open?: boolean }) => (await loadCommand('serve')).serve(ctx, options)));
}
