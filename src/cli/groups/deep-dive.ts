import type { Command } from 'commander';
import { loadCommand } from '../command-modules.js';
import { runs } from '../run-command.js';

/** `baton deep-dive …`: the codebase context file flows can use. */
export function registerDeepDive(program: Command): void {
  const dd = program.command('deep-dive').description('deep-dive context: .claude/deep-dive.local.md');

  dd.command('init')
    .description('start a deep dive (refused when one exists, unless --refresh)')
    .option('--scope <scope>', 'full (default) or focused')
    .option('--focus-path <path>', 'with --scope focused: a relative path inside the workspace')
    .option('--agent-count <n>', 'how many exploring agents (default 5)')
    .option('--refresh', 'start over; the current file is backed up first')
    .addHelpText('after', '\nExamples:\n  baton deep-dive init\n  baton deep-dive init --scope focused --focus-path src/auth --refresh')
    .action(
      runs(async (ctx, options: { scope?: string; focusPath?: string; agentCount?: string; refresh?: boolean }) =>
        (await loadCommand('deep-dive')).deepDiveInit(ctx, options),
      ),
    );

  const compile = dd
    .command('compile')
    .description('merge sections into the deep dive (only the sections given change; "" resets one)')
    .option('--overview <text>', 'free text under Repository Overview')
    .option('--tech-stack <text>', 'the "Tech stack" bullet of Repository Overview (one line)')
    .option('--entry-points <text>', 'the "Entry points" bullet of Repository Overview (one line)')
    .option('--key-patterns <text>', 'the "Key patterns" bullet of Repository Overview (one line)')
    .option('--architecture <text>', 'the Architecture Map section')
    .option('--conventions <text>', 'the Conventions section')
    .option('--antipatterns <text>', 'the Anti-Patterns (DO NOT) section')
    .option('--quick-reference <text>', 'the Key Files Quick Reference section')
    .option('--agent-notes <text>', 'the Agent Notes section')
    .option('--agents-spawned <n>', 'exploring agents spawned so far')
    .option('--agents-completed <n>', 'exploring agents completed so far')
    .option('--mark-complete', 'the deep dive is complete (flows can use it)')
    .addHelpText(
      'after',
      '\nExamples:\n  baton deep-dive compile --tech-stack TypeScript --conventions "Use kebab-case files"\n  baton deep-dive compile --mark-complete',
    );
  compile.action(runs(async (ctx, options: Record<string, string | boolean | undefined>) => (await loadCommand('deep-dive')).deepDiveCompile(ctx, options)));
}
