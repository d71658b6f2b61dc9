import type { Command } from 'commander';
import type { LogAppendFlags } from '../commands/log-append.js';
import { loadCommand } from '../command-modules.js';
import { runs } from '../run-command.js';

/** `baton log …`: the event log itself. */
export function registerLog(program: Command): void {
  const log = program.command('log').description('append to, read, verify, export and import the event log');
  registerLogAppend(log);
  registerLogShow(log);
  registerLogTail(log);
  registerLogVerify(log);
  registerLogAnchor(log);
  registerLogRepair(log);
  registerLogStats(log);
  registerLogExport(log);
  registerLogImport(log);
}

function registerLogAppend(log: Command): void {
  log
    .command('append')
    .description("append one event (validated against its type's schema)")
    .option('--type <type>', 'event type, e.g. note.recorded (required unless --events)')
    .option('--stream <stream>', 'stream, e.g. note/ops (required unless --events)')
    .option('--data <json>', 'the event payload as a JSON object (required unless --events)')
    .option('--expected-version <version>', 'a number, no_stream or stream_exists; a mismatch is CONFLICT (exit 4)')
    .option('--idempotency-key <key>', 'a retry with the same key and content writes nothing and returns the first events')
    .option(
      '--events <file>',
      'append each JSON line of FILE (- = stdin) {type, stream, data, expected_version?, idempotency_key?} as its own call; all lines are validated first',
    )
    .option('--batch', 'with --events: append all lines as one atomic batch (one write, one fsync)')
    .option(
      '--each',
      'with --events: an appended envelope per call (human: a line per event) instead of one append_summary (count, first and last seq, head hash)',
    )
    .addHelpText(
      'after',
      `\nExamples:\n  baton log append --type note.recorded --stream note/ops --data '{"text":"deploy paused"}'\n  baton log append --type note.recorded --stream note/ops --data '{"text":"first"}' --expected-version no_stream --idempotency-key op-1\n  printf '%s\\n' '{"type":"note.recorded","stream":"note/a","data":{"text":"one"}}' | baton log append --events -`,
    )
    .action(runs(async (ctx, options: LogAppendFlags) => (await loadCommand('log-append')).logAppend(ctx, options)));
}

function registerLogShow(log: Command): void {
  log
    .command('show')
    .description('print stored events byte for byte, one per line (bounds inclusive)')
    .option('--from <seq>', 'first seq')
    .option('--to <seq>', 'last seq')
    .option('--type <type>', 'only this event type (repeatable)', collect, [])
    .option('--stream <stream>', 'only this stream (repeatable)', collect, [])
    .addHelpText('after', '\nExamples:\n  baton log show --from 10 --to 20\n  baton log show --stream note/ops | jq .data')
    .action(
      runs(async (ctx, options: { from?: string; to?: string; type: string[]; stream: string[] }) => (await loadCommand('log-show')).logShow(ctx, options)),
    );
}

function registerLogTail(log: Command): void {
  log
    .command('tail')
    .description('print the last events; -f keeps printing new ones as any process appends them')
    .option('-n, --lines <n>', 'how many', '10')
    .option('-f, --follow', 'keep following the log until interrupted')
    .addHelpText('after', '\nExamples:\n  baton log tail -n 5\n  baton log tail -f | jq -c "{seq, type}"')
    .action(runs(async (ctx, options: { lines: string; follow?: boolean }) => (await loadCommand('log-tail')).logTail(ctx, options)));
}

function registerLogVerify(log: Command): void {
  log
    .command('verify')
    .description(
      'walk the whole log: contiguous seq, schema-valid lines, unbroken hash chain; and the heads anchored in refs/baton/anchors (exit 3 when not ok)',
    )
    .addHelpText(
      'after',
      `
In a git repository, every anchor of this workspace on refs/baton/anchors (baton log anchor) is
checked too: the event at the anchored seq must still have the anchored hash, and the log must
reach the highest anchored seq; a signed anchor's signature must not be bad (git verify-commit).
Only the events at anchored seqs are read for it.

Examples:
  baton log verify
  baton log verify --json | jq .first_bad
  baton log verify --json | jq '.anchors.checked[] | select(.status != "ok")'`,
    )
    .action(runs(async (ctx) => (await loadCommand('log-verify')).logVerify(ctx)));
}

function registerLogAnchor(log: Command): void {
  log
    .command('anchor')
    .description("record the log's head (seq, hash, time) outside the log: a commit on the git repository's refs/baton/anchors")
    .option('--sign', "sign the anchor commit with git's own signing (gpg.format, user.signingkey: e.g. an SSH key)")
    .addHelpText(
      'after',
      `
Whoever rewrites the log (recomputing every hash) or cuts its tail must then also rewrite this
ref, in every clone it was pushed to, and forge any signatures: baton log verify checks the log
against every anchor. Anchoring a head already anchored writes nothing. --quiet prints nothing on
success (the post-commit hook of baton setup git-hooks --anchor). Outside a git repository: exit 5.
Anchors travel with git push <remote> refs/baton/anchors (and git fetch <remote> refs/baton/anchors:refs/baton/anchors).

Examples:
  baton log anchor
  baton log anchor --sign
  git push origin refs/baton/anchors`,
    )
    .action(runs(async (ctx, options: { sign?: boolean }) => (await loadCommand('log-anchor')).logAnchor(ctx, options)));
}

function registerLogRepair(log: Command): void {
  log
    .command('repair')
    .description("settle the bytes after the last complete event: restore a whole last event's newline, or quarantine a torn write")
    .addHelpText(
      'after',
      '\nWhat the next append would do, and nothing else: a corrupt line inside the log is never touched.\n\nExamples:\n  baton log verify || baton log repair',
    )
    .action(runs(async (ctx) => (await loadCommand('log-repair')).logRepair(ctx)));
}

function registerLogStats(log: Command): void {
  log
    .command('stats')
    .description('head, event and stream counts, segments, bytes, events by type')
    .addHelpText('after', '\nExamples:\n  baton log stats')
    .action(runs(async (ctx) => (await loadCommand('log-stats')).logStats(ctx)));
}

function registerLogExport(log: Command): void {
  log
    .command('export')
    .description('write every stored event, in seq order, exactly as stored')
    .requiredOption('--out <file>', 'destination file, or - for stdout')
    .option('--to <seq>', 'stop after this seq (the intact prefix of a log with a corrupt line: see log verify)')
    .option('--force', "replace FILE when it exists (never a file inside a .baton/ folder or a store's log, cache or quarantine)")
    .addHelpText(
      'after',
      '\nExamples:\n  baton log export --out backup.jsonl\n  baton log export --out - | gzip > backup.jsonl.gz\n  baton log export --to 9000 --out intact.jsonl && baton --dir ../restored log import intact.jsonl',
    )
    .action(runs(async (ctx, options: { out: string; to?: string; force?: boolean }) => (await loadCommand('log-export')).logExport(ctx, options)));
}

function registerLogImport(log: Command): void {
  log
    .command('import')
    .description("load an export into this workspace's (empty) store; the chain is verified before anything is committed")
    .argument('<file>', 'an export file, or - for stdin')
    .addHelpText('after', '\nExamples:\n  baton --dir fresh-ws log import backup.jsonl\n  gunzip -c backup.jsonl.gz | baton log import -')
    .action(runs(async (ctx, file: string) => (await loadCommand('log-import')).logImport(ctx, file)));
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
