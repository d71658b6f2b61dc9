import type { Command } from 'commander';
import { runCommand } from '../run-command.js';

/**
 * `baton wu …`. For now only `wu prep` with its first gate, the unread-directed-signal gate
 * (coordination.md §10); the work-unit issue adds the other commands and prep's later checks.
 */
export function registerWu(program: Command): void {
  const wu = program.command('wu').description('work units');

  wu.command('prep')
    .description('check a WU is ready to hand over: no unread directed signals about it (more checks come with the work-unit issue)')
    .argument('<WU>', 'the WU id, e.g. WU-12')
    .option('--allow-unread-signals', 'waive unread directed signals (needs --reason; recorded as wu.prep_overridden)')
    .option('--reason <text>', 'why the signals may stay unread (1–500 characters)')
    .addHelpText('after', "\nExamples:\n  baton wu prep WU-12\n  baton wu prep WU-12 --allow-unread-signals --reason 'handled in paired review'")
    .action(async (wuId: string, options: { allowUnreadSignals?: boolean; reason?: string }, command: Command) => {
      await runCommand(command, async (ctx) => (await import('../commands/wu-prep.js')).wuPrep(ctx, wuId, options));
    });
}
