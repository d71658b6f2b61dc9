import type { Command } from 'commander';
import { loadCommand } from '../command-modules.js';
import { runs } from '../run-command.js';

/** `baton audit`: where the record and the repository disagree; `audit why WU`: the causal chain behind a WU. */
export function registerAudit(program: Command): void {
  const audit = program
    .command('audit')
    .description('check the log against git, the files it projects and the live sessions (exit 3 when a finding reaches --fail-on)')
    .option('--at <position>', 'audit the log as of a seq or an ISO time (the repository as it is now)')
    .option('--fix', 'append the corrective events the findings name (lapses, releases, observations), then audit again')
    .option('--fail-on <severity>', 'warn or error: the least severity that makes the exit code 3', 'error')
    .addHelpText(
      'after',
      `
Each finding has a stable code, a severity (error, warn, info), the WU, session, flow, signal or
log position it is about, the evidence on both sides (events with their seq, commits, branches and
worktrees, files with their SHA-256) and the command that resolves it. Windows and the integration
branch are set under audit: in .baton/config.yaml (docs/cli.md).

Examples:
  baton audit --human
  baton audit --fail-on warn --json | jq '.findings[] | {code, subject, resolve}'
  baton audit --at 1200
  baton audit --fix
  baton audit why WU-7`,
    )
    .action(runs(async (ctx, options: { at?: string; fix?: boolean; failOn?: string }) => (await loadCommand('audit')).audit(ctx, options)));
  audit
    .command('why')
    .description("the causal chain behind a WU's state: claims, sessions, lapses, signals, checkpoints, takeovers, the stamp")
    .argument('<WU>', 'the work unit, e.g. WU-7')
    .addHelpText('after', '\nExamples:\n  baton audit why WU-7 --human\n  baton audit why WU-7 --json | jq -r ".chain[] | [.seq, .type] | @tsv"')
    .action(runs(async (ctx, wu: string) => (await loadCommand('audit')).auditWhy(ctx, wu)));
}
