import type { Command } from 'commander';
import type { LifecycleOptions } from '../commands/wu-lifecycle.js';
import { loadCommand } from '../command-modules.js';
import { runCommand, runs } from '../run-command.js';

/** `baton wu …`: work units (work-units.md §3–§4, §12–§14). */
export function registerWu(program: Command): void {
  const wu = program.command('wu').description('work units: define, import, claim, checkpoint, return, block, release, finish, prep, explain');
  registerWuCreate(wu);
  registerWuImport(wu);
  registerWuLifecycle(wu);
  registerWuDone(wu);
  registerWuPrep(wu);
  registerWuReads(wu);
}

function registerWuCreate(wu: Command): void {
  wu.command('create')
    .description('define a work unit, or update the fields given (an upsert: only changed fields are recorded)')
    .argument('<WU>', 'the WU id, e.g. WU-12')
    .option('--initiative <INIT>', 'the initiative (id or slug; must exist)')
    .option('--lane <lane>', "the lane (one of the initiative's lanes when it lists any)")
    .option('--title <text>', 'the title (default: the WU id)')
    .option('--description <text>', 'what to do')
    .option('--acceptance <text>', 'an acceptance criterion (repeatable)', collect, undefined)
    .option('--type <type>', 'feature|bug|documentation|process|tooling|chore|refactor')
    .option('--priority <P>', 'P0|P1|P2|P3')
    .option('--deps <WU,WU>', 'the WUs it depends on (comma-separated)')
    .option('--code-paths <g1,g2>', 'workspace-relative paths or globs it may change (comma-separated)')
    .addHelpText(
      'after',
      "\nExamples:\n  baton wu create WU-1 --initiative INIT-1 --lane L1 --title 'Add X' --acceptance 'X works' --code-paths 'src/x/**'\n  baton wu create WU-2 --initiative INIT-1 --lane L2 --deps WU-1",
    )
    .action(async (id: string, o: Record<string, string | string[] | undefined>, command: Command) => {
      await runCommand(command, async (ctx) =>
        (await loadCommand('wu-create')).wuCreate(ctx, id, {
          ...(o['initiative'] !== undefined ? { initiative: o['initiative'] as string } : {}),
          ...(o['lane'] !== undefined ? { lane: o['lane'] as string } : {}),
          ...(o['title'] !== undefined ? { title: o['title'] as string } : {}),
          ...(o['description'] !== undefined ? { description: o['description'] as string } : {}),
          ...(o['acceptance'] !== undefined ? { acceptance: o['acceptance'] as string[] } : {}),
          ...(o['type'] !== undefined ? { type: o['type'] as string } : {}),
          ...(o['priority'] !== undefined ? { priority: o['priority'] as string } : {}),
          ...(o['deps'] !== undefined ? { deps: o['deps'] as string } : {}),
          ...(o['codePaths'] !== undefined ? { codePaths: o['codePaths'] as string } : {}),
        }),
      );
    });
}

function registerWuImport(wu: Command): void {
  wu.command('import')
    .description('import LumenFlow WU YAML files (all-or-nothing; a re-import records only what changed)')
    .argument('<paths...>', 'files, or folders whose *.yaml / *.yml files are read (not recursive)')
    .addHelpText('after', '\nExamples:\n  baton wu import docs/04-operations/tasks/wu\n  baton wu import WU-12.yaml WU-13.yaml')
    .action(runs(async (ctx, paths: string[]) => (await loadCommand('wu-import')).wuImport(ctx, paths)));
}

/** The lifecycle moves of a claimed (or claimable) WU: one command each, one implementation. */
function registerWuLifecycle(wu: Command): void {
  lifecycle(wu, 'claim', 'claim a WU for the acting session or agent identity: a lease its holder keeps alive', (c) =>
    c
      .option('--mode <mode>', 'worktree|worktree-pr|branch-only|branch-pr (default: config orchestration.default_claim_mode)')
      .option('--worktree <path>', 'the worktree path (worktree modes; default worktrees/<lane slug>-<wu slug>)')
      .option('--branch <branch>', 'the branch (default lane/<lane slug>/<wu slug>)')
      .option('--takeover', 'take over a holder whose lease lapsed (needs --reason; recorded)')
      .option('--force', 'claim despite unfinished dependencies or a lane at its WIP limit (needs --reason; recorded)')
      .option('--reason <text>', 'why, for --takeover or --force')
      .option('--paths <glob...>', "reserve these workspace-relative paths or globs too (besides the WU's code_paths), for as long as the claim is live")
      .addHelpText(
        'after',
        '\nExamples:\n  baton wu claim WU-12 --session "$BATON_SESSION"\n  baton wu claim WU-12 --mode branch-pr --branch feat/wu-12\n  baton wu claim WU-12 --paths \'docs/api/**\' README.md\n  baton wu claim WU-12 --takeover --reason "its worker went silent"',
      ),
  );
  lifecycle(wu, 'checkpoint', 'record progress on a claimed WU', (c) =>
    c
      .option('--note <text>', 'what changed (required)')
      .option('--progress <text>', 'how far along, e.g. 60%')
      .option('--next-steps <text>', 'what comes next')
      .addHelpText('after', "\nExamples:\n  baton wu checkpoint WU-12 --note 'parser done' --progress 60% --next-steps 'wire the CLI'"),
  );
  lifecycle(wu, 'return', 'hand a claimed WU back (the worker is finished with it)', (c) =>
    c.option('--note <text>', 'a summary').addHelpText('after', "\nExamples:\n  baton wu return WU-12 --note 'all criteria met'"),
  );
  lifecycle(wu, 'block', 'block a ready or in-progress WU', (c) =>
    c.option('--reason <text>', 'why (required)').addHelpText('after', "\nExamples:\n  baton wu block WU-12 --reason 'waiting on API'"),
  );
  lifecycle(wu, 'unblock', 'return a blocked WU to its state before the block', (c) => c.addHelpText('after', '\nExamples:\n  baton wu unblock WU-12'));
  lifecycle(wu, 'release', 'release a claim or an unpicked handoff: the WU is ready again', (c) =>
    c
      .option('--reason <text>', 'why (required when you are not the claimant)')
      .addHelpText('after', "\nExamples:\n  baton wu release WU-12 --reason 'worker crashed'"),
  );
}

function registerWuDone(wu: Command): void {
  wu.command('done')
    .description('finish a claimed WU: record wu.stamped and write .baton/stamps/<WU>.done (idempotent)')
    .argument('<WU>', 'the WU id')
    .addHelpText('after', '\nExamples:\n  baton wu done WU-12')
    .action(runs(async (ctx, id: string) => (await loadCommand('wu-done')).wuDone(ctx, id)));
}

function registerWuPrep(wu: Command): void {
  wu.command('prep')
    .description('check a WU is ready to finish: claimed, no unread directed signals, no contamination, prep commands pass')
    .argument('<WU>', 'the WU id, e.g. WU-12')
    .option('--allow-unread-signals', 'waive unread directed signals (needs --reason; recorded as wu.prep_overridden)')
    .option('--reason <text>', 'why the signals may stay unread (1–500 characters)')
    .addHelpText('after', "\nExamples:\n  baton wu prep WU-12\n  baton wu prep WU-12 --allow-unread-signals --reason 'handled in paired review'")
    .action(
      runs(async (ctx, wuId: string, options: { allowUnreadSignals?: boolean; reason?: string }) => (await loadCommand('wu-prep')).wuPrep(ctx, wuId, options)),
    );
}

/** The read commands: list, show, explain. */
function registerWuReads(wu: Command): void {
  wu.command('list')
    .description('list work units in a table, with their orchestration state (the log as recorded; no probe runs)')
    .option('--initiative <INIT>', 'only the members of this initiative (id or slug)')
    .option('--state <state>', 'only WUs in this orchestration state (planned, eligible or its LumenFlow name ready, claimed, active, …, done)')
    .option('--lane <lane>', 'only WUs in this lane')
    .addHelpText('after', "\nExamples:\n  baton wu list --initiative INIT-1\n  baton wu list --state active --lane 'Framework: Core' --human")
    .action(runs(async (ctx, options: { initiative?: string; state?: string; lane?: string }) => (await loadCommand('listing')).wuList(ctx, options)));

  wu.command('show')
    .description('one work unit: its definition, orchestration state, claim, last checkpoint and stamp')
    .argument('<WU>', 'the WU id')
    .addHelpText('after', '\nExamples:\n  baton wu show WU-12\n  baton wu show WU-12 --json | jq .orchestration_state')
    .action(runs(async (ctx, id: string) => (await loadCommand('listing')).wuShow(ctx, id)));

  wu.command('explain')
    .description('why a WU is in its orchestration state: the decision-table rule, each predicate and its events')
    .argument('<WU>', 'the WU id')
    .addHelpText('after', '\nExamples:\n  baton wu explain WU-12\n  baton wu explain WU-12 --json | jq .predicates')
    .action(runs(async (ctx, id: string) => (await loadCommand('wu-explain')).wuExplain(ctx, id)));
}

function lifecycle(
  wu: Command,
  action: 'claim' | 'checkpoint' | 'return' | 'block' | 'unblock' | 'release',
  description: string,
  configure: (c: Command) => Command,
): void {
  configure(wu.command(action).description(description).argument('<WU>', 'the WU id')).action(
    runs(async (ctx, id: string, options: LifecycleOptions) => (await loadCommand('wu-lifecycle')).wuLifecycle(ctx, action, id, options)),
  );
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
