/**
 * Two agents negotiate a proposal to convergence through the `baton` CLI: an implementer proposes
 * a boundary to a reviewer, the reviewer counters, the implementer agrees, and `mem converged`
 * turns from open to converged. `baton` runs the binary (args after `--dir`), `show` prints a step.
 */
export type BatonRun = (args: string[], env?: Record<string, string>) => Promise<{ stdout: string; stderr: string; code: number }>;

/** The first `<prefix>-…` or `<prefix>_…` id a command's human output names (`session_…`, `sig-…`, `thread-…`). */
export function idIn(stdout: string, prefix: string): string {
  const id = new RegExp(`\\b${prefix}[0-9a-z]+\\b`).exec(stdout)?.[0];
  if (id === undefined) throw new Error(`demo: no ${prefix}… id in the output:\n${stdout}`);
  return id;
}

/** A started session as `session start` prints it: `Planck  session_…  active  …`. */
function startedSession(stdout: string): { id: string; name: string } {
  const name = /^(\S+)\s+session_/m.exec(stdout)?.[1];
  if (name === undefined) throw new Error(`demo: no session in the output:\n${stdout}`);
  return { id: idIn(stdout, 'session_'), name };
}

export async function coordinationDemo(baton: BatonRun, show: (cmd: string, r: { stdout: string; stderr: string; code: number }) => void): Promise<void> {
  const step = async (args: string[], env?: Record<string, string>): Promise<string> => {
    const r = await baton(args, env);
    show(args.map((a) => (/^[\w.:/@=-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' '), r);
    if (r.code !== 0 && !(args.includes('converged') && r.code === 6))
      throw new Error(`demo step failed (exit ${r.code}): baton ${args.join(' ')}\n${r.stdout}${r.stderr}`);
    return r.stdout;
  };
  const implementer = startedSession(
    await step(['--human', 'session', 'start', '--agent-identity', 'codex:implementer:demo', '--role', 'implementer', '--client', 'codex']),
  );
  const reviewer = startedSession(
    await step(['--human', 'session', 'start', '--agent-identity', 'claude:reviewer:demo', '--role', 'reviewer', '--client', 'claude-code']),
  );
  await step(['--human', 'mem', 'roster']);
  const as = (s: { id: string }) => ['--human', '--session', s.id];

  const proposed = await step([
    ...as(implementer),
    'mem',
    'signal',
    'Split the store into jsonl/ and memory/ adapters?',
    '--to',
    reviewer.name,
    '--intent',
    'PROPOSE',
    '--requires-ack',
  ]);
  const proposal = idIn(proposed, 'sig-');
  const thread = idIn(proposed, 'thread-');
  await step([...as(reviewer), 'hooks', 'drain', '--session', reviewer.id]);
  await step(['--human', 'mem', 'converged', '--thread', thread]);
  const countered = await step([
    ...as(reviewer),
    'mem',
    'signal',
    'Yes, but keep the shared append plan in one file',
    '--reply-to',
    proposal,
    '--intent',
    'COUNTER',
  ]);
  await step([...as(implementer), 'mem', 'inbox']);
  await step(['--human', 'mem', 'converged', '--thread', thread]);
  await step([...as(implementer), 'mem', 'signal', 'Agreed: one append plan, two adapters', '--reply-to', idIn(countered, 'sig-'), '--intent', 'AGREE']);
  await step(['--human', 'mem', 'converged', '--thread', thread]);
  await step([...as(reviewer), 'session', 'end', reviewer.id]);
  await step([...as(implementer), 'session', 'end', implementer.id]);
}
