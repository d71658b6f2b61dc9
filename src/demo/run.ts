import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { coordinationDemo, type BatonRun } from './coordination.js';
import { workUnitsDemo } from './work-units.js';
import { flowDemo } from './flow.js';
import { tasksDemo } from './tasks.js';
import { logDemo } from './log.js';
import { narration, shownText, type Shown } from './display.js';

/**
 * The README's first command: a demo workspace in a temporary folder, driven through the built
 * `baton` binary exactly as agents and wrappers drive it: the log, two agents negotiating, a team
 * flow, an initiative in waves, and last the tasks of an orchestrator that crashes mid-work, where
 * `baton status` tells a returning agent exactly what to do next. Every command is shown with its
 * human output; a closing summary gives each part in one line with its key figure. The temporary
 * folder is removed at the end, unless `--keep` (then its path is printed); `--only PART,…` runs
 * some parts only.
 */
const run = promisify(execFile);
const BIN = fileURLToPath(new URL('../../bin/baton.js', import.meta.url));
const USAGE = 'usage: npm run demo [-- [--keep] [--only PART,…]]   parts: log, signals, flow, initiative, tasks';

async function batonAt(dir: string, args: string[], env: Record<string, string> = {}): Promise<Awaited<ReturnType<BatonRun>>> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, '--dir', dir, ...args], { env: { ...process.env, ...env } });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; code?: number };
    return { stdout: e.stdout ?? '', stderr: e.stderr ?? '', code: e.code ?? 1 };
  }
}

function heading(title: string): void {
  const bold = process.stdout.isTTY ? ['\x1b[1m', '\x1b[0m'] : ['', ''];
  process.stdout.write(`\n${bold[0]}== ${title}${bold[1]}\n`);
}

function subheading(title: string): void {
  process.stdout.write(`\n-- ${title}\n`);
}

/** What a part is given: the workspace, a way to run and show commands, and the copy the log part tampers with. */
interface PartIo {
  dir: string;
  copy: string;
  baton: BatonRun;
  show: (command: string, result: Awaited<ReturnType<BatonRun>>) => void;
  /** The commands this part has shown so far. */
  shown: Shown[];
}

interface Part {
  name: string;
  /** Its heading, and its name in the summary. */
  title: string;
  label: string;
  /** Runs the part; answers its key figure for the summary. */
  run: (io: PartIo) => Promise<string>;
}

const lastOf = (shown: readonly Shown[], words: string): Shown | undefined => shown.filter((s) => s.command.includes(words)).at(-1);

const PARTS: readonly Part[] = [
  {
    name: 'log',
    title: 'The log: concurrent appends, idempotent retries, refusals, verification, tampering, time travel',
    label: 'The log',
    run: ({ dir, copy, baton, show }) => logDemo({ dir, copy, baton, inCopy: (args, env) => batonAt(copy, args, env), show, heading: subheading }),
  },
  {
    name: 'signals',
    title: 'Two agents negotiate a proposal to convergence (A2A.V1 signals, receipts, convergence)',
    label: 'Two agents negotiate',
    run: async ({ baton, show, shown }) => {
      await coordinationDemo(baton, show);
      const intents = shown.flatMap((s) => /--intent (\w+)/.exec(s.command)?.[1] ?? []);
      const verdict = lastOf(shown, 'mem converged')?.code === 0 ? 'converged' : 'not converged';
      return `${intents.length} signals (${intents.join(', ')}); the thread ${verdict}, and the receipts say who read what`;
    },
  },
  {
    name: 'flow',
    title: 'A team flow: a failed verification, a second iteration, completion (Agent Flow phase gates)',
    label: 'A team flow',
    run: async ({ dir, baton, show, shown }) => {
      await flowDemo(baton, show, dir);
      const file = shown.at(-1)!.stdout;
      const field = (key: string): string => new RegExp(`^${key}: "?([^"\\n]*)`, 'm').exec(file)?.[1] ?? '?';
      const failed = shown.filter((s) => s.command.includes('flow merge') && /failed/.test(s.stdout)).length;
      return `${field('current_phase')} in iteration ${field('iteration')}, after ${failed} failed merge(s) went round the loop; a late update refused`;
    },
  },
  {
    name: 'initiative',
    title: 'An initiative in waves: launch, claims, checkpoints, a stall, a contamination, finish (work units)',
    label: 'An initiative in waves',
    run: async ({ dir, baton, show, shown }) => {
      await workUnitsDemo(baton, show, dir);
      const statuses = shown.filter((s) => s.command.includes('orchestrate status'));
      const last = statuses.at(-1)?.stdout ?? '';
      const done = last.match(/^\s*WU-\d+\s+done\b/gm)?.length ?? 0;
      const all = last.match(/^\s*WU-\d+\s/gm)?.length ?? 0;
      const seen = ['stalled', 'contaminated'].filter((state) => statuses.some((s) => new RegExp(`WU-\\d+\\s+${state}`).test(s.stdout)));
      return `${done} of ${all} WUs done, wave by wave${seen.length > 0 ? `; ${seen.join(' and ')} on the way, recovered` : ''}`;
    },
  },
  {
    name: 'tasks',
    title: 'Tasks and subagents: an orchestrator crashes mid-work; a returning agent asks `baton status` what to do next',
    label: 'Tasks, last stop',
    run: async ({ baton, show, shown }) => {
      const minute = Math.floor(Date.now() / 60_000) * 60_000;
      await tasksDemo(baton, show, { start: new Date(minute).toISOString(), narrate: (text) => process.stdout.write(narration(text)) });
      const count = (words: string): number => shown.filter((s) => s.command.includes(words)).length;
      // The next action's gist: "A task is waiting for manual verification", without what to verify.
      const next = /^Next action: ([^:\n]*)/m.exec(shown.at(-1)!.stdout)?.[1] ?? '?';
      return `${count('task create')} tasks, ${count('subagent start')} subagents; after the crash, baton status says: ${next}`;
    },
  },
];

interface Options {
  keep: boolean;
  parts: readonly Part[];
}

function parseOptions(args: readonly string[]): Options {
  let keep = false;
  let parts = PARTS;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--keep') keep = true;
    else if (args[i] === '--only' && args[i + 1] !== undefined) {
      const names = args[++i]!.split(',');
      const unknown = names.filter((n) => !PARTS.some((p) => p.name === n));
      if (unknown.length > 0) throw new Error(`unknown part ${unknown.join(', ')}\n${USAGE}`);
      parts = PARTS.filter((p) => names.includes(p.name));
    } else throw new Error(`unknown argument ${args[i]}\n${USAGE}`);
  }
  return { keep, parts };
}

/** Each part in one line with its key figure, at the end of the demo. */
function summary(lines: readonly { label: string; figure: string }[]): string {
  const width = Math.max(...lines.map((l) => l.label.length));
  const line = ({ label, figure }: { label: string; figure: string }): string => {
    const text = `  ${label.padEnd(width)}  ${figure}`;
    return text.length <= 160 ? text : `${text.slice(0, 159)}…`;
  };
  return lines.map(line).join('\n') + '\n';
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const root = mkdtempSync(join(tmpdir(), 'baton-demo-'));
  const dir = join(root, 'workspace');
  const copy = join(root, 'tampered-copy');
  mkdirSync(dir);
  mkdirSync(copy);
  const remove = (): void => {
    if (!options.keep) rmSync(root, { recursive: true, force: true });
  };
  process.once('SIGINT', () => {
    remove();
    process.exit(130);
  });
  const figures: { label: string; figure: string }[] = [];
  try {
    heading(`A fresh workspace in ${dir} (${options.keep ? 'kept at the end' : 'removed at the end; npm run demo -- --keep keeps it'})`);
    const baton: BatonRun = (args, env) => batonAt(dir, args, env);
    process.stdout.write(shownText({ command: '--human init', ...(await baton(['--human', 'init'])) }));
    for (const [i, part] of options.parts.entries()) {
      heading(`${i + 1}/${options.parts.length} ${part.title}`);
      const shown: Shown[] = [];
      const show = (command: string, result: Awaited<ReturnType<BatonRun>>): void => {
        shown.push({ command, ...result });
        process.stdout.write(shownText({ command, ...result }));
      };
      figures.push({ label: part.label, figure: await part.run({ dir, copy, baton, show, shown }) });
    }
  } finally {
    remove();
  }
  heading('What the demo showed');
  process.stdout.write(summary(figures));
  process.stdout.write(
    options.keep
      ? `The workspace is kept in ${dir}: try node ${BIN} --dir ${dir} log tail\n`
      : `The workspace was a temporary folder, now removed (npm run demo -- --keep keeps it).\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
