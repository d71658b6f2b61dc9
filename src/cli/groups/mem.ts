import type { Command } from 'commander';
import { loadCommand } from '../command-modules.js';
import { runs } from '../run-command.js';

/** `baton mem …`: agent-to-agent coordination (coordination.md §4–§9). */
export function registerMem(program: Command): void {
  const mem = program.command('mem').description('agent-to-agent coordination: roster, signals, inbox, convergence, watch');

  mem
    .command('roster')
    .description('live sessions (plus abandoned ones with --include-stale)')
    .option('--include-stale', 'also list abandoned sessions (no heartbeat within the TTL)')
    .addHelpText('after', '\nExamples:\n  baton mem roster\n  baton mem roster --include-stale --json')
    .action(runs(async (ctx, options: { includeStale?: boolean }) => (await loadCommand('mem-roster')).memRoster(ctx, options)));

  mem
    .command('signal')
    .description('send an A2A.V1 signal: directed (--to) or broadcast, a root or a reply')
    .argument('<message>', 'the message (1–16,384 characters after trimming)')
    .option('--to <recipients>', 'comma-separated session ids, agent identities or live display names (none: a broadcast)')
    .option('--wu <WU>', 'the WU it is about (its initiative is filled in)')
    .option('--initiative <INIT>', 'the initiative it is about')
    .option('--lane <lane>', 'the lane it is about')
    .option('--role <role>', 'the role it is about')
    .option('--intent <intent>', 'INFO, PROPOSE, COUNTER, AGREE or REJECT (default INFO)')
    .option('--requires-ack', 'the recipients must answer with AGREE or REJECT')
    .option('--reply-to <signal>', 'the signal answered (joins its thread, answers its sender)')
    .option('--thread <thread>', 'the thread to post in')
    .option('--interrupt-class <class>', 'interrupt, priority or advisory (default: priority when directed, advisory for a broadcast)')
    .option('--idempotency-key <key>', 'a retry with the same key and content returns the first signal')
    .option('--workspace-id <id>', 'the tenant workspace (required in the hosted profile)')
    .addHelpText(
      'after',
      "\nExamples:\n  baton mem signal 'review please' --to Planck --wu WU-12\n  baton mem signal 'Approve boundary?' --to reviewer:docs:a --intent PROPOSE --requires-ack\n  baton mem signal 'ok' --reply-to sig-01hx… --intent AGREE\n  baton mem signal 'lane freeze until 15:00' --lane Core",
    )
    .action(
      runs(async (ctx, message: string, options: Record<string, string | boolean | undefined>) =>
        (await loadCommand('mem-signal')).memSignal(ctx, message, options),
      ),
    );

  mem
    .command('inbox')
    .description('signals for a reader (unread by default), marked delivered as they are listed')
    .option('--for <reader>', 'read for this session id, agent identity or display name')
    .option('--thread <thread>', 'only this thread')
    .option('--intent <intents>', 'only these intents (comma-separated)')
    .option('--wu <WU>', 'only signals about this WU')
    .option('--no-mark', 'do not record delivered receipts')
    .option('--all', 'also list signals already read')
    .addHelpText('after', '\nExamples:\n  baton mem inbox\n  baton mem inbox --for Planck --no-mark --all --json')
    .action(runs(async (ctx, options: Record<string, string | boolean | undefined>) => (await loadCommand('mem-inbox')).memInbox(ctx, options)));

  mem
    .command('converged')
    .description('whether a proposal thread converged (exit 0) or not (exit 6: open or rejected; its envelope is printed either way)')
    .requiredOption('--thread <thread>', 'the thread')
    .addHelpText('after', '\nExamples:\n  baton mem converged --thread thread-01hx…  && echo agreed')
    .action(runs(async (ctx, options: { thread: string }) => (await loadCommand('mem-converged')).memConverged(ctx, options.thread)));

  mem
    .command('watch')
    .description('deliver signals to a session as they arrive (for clients without hooks); --session names the session')
    .option('--once', 'deliver what is unread now and exit')
    .addHelpText(
      'after',
      '\nThe global --session names the session to deliver to: a session id, agent identity or display name.\n\nExamples:\n  baton mem watch --session Planck\n  baton mem watch --session "$BATON_SESSION" --once --json',
    )
    .action(runs(async (ctx, options: { once?: boolean }) => (await loadCommand('mem-watch')).memWatch(ctx, options)));
}
