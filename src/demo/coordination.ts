/**
 * Two agents negotiate a proposal to convergence through the `baton` CLI: an implementer proposes
 * a boundary to a reviewer, the reviewer counters, the implementer agrees, and `mem converged`
 * turns from open to converged. `baton` runs the binary (args after `--dir`), `show` prints a step.
 */
export type BatonRun = (args: string[], env?: Record<string, string>) => Promise<{ stdout: string; stderr: string; code: number }>;

interface Envelope {
  session?: { id: string; baton: { display_name: string } };
  signal?: { signal_id: string; thread_id: string };
}

function lastJson(stdout: string): Envelope {
  const lines = stdout
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('{'));
  return lines.length === 0 ? {} : (JSON.parse(lines.at(-1)!) as Envelope);
}

export async function coordinationDemo(baton: BatonRun, show: (cmd: string, r: { stdout: string; stderr: string; code: number }) => void): Promise<void> {
  const step = async (args: string[], env?: Record<string, string>): Promise<Envelope> => {
    const r = await baton(args, env);
    show(args.map((a) => (/^[\w.:/@=-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' '), r);
    if (r.code !== 0 && !(args.includes('converged') && r.code === 6))
      throw new Error(`demo step failed (exit ${r.code}): baton ${args.join(' ')}\n${r.stdout}${r.stderr}`);
    return lastJson(r.stdout);
  };
  const implementer = (await step(['--json', 'session', 'start', '--agent-identity', 'codex:implementer:demo', '--role', 'implementer', '--client', 'codex']))
    .session!;
  const reviewer = (await step(['--json', 'session', 'start', '--agent-identity', 'claude:reviewer:demo', '--role', 'reviewer', '--client', 'claude-code']))
    .session!;
  await step(['--human', 'mem', 'roster']);
  const as = (s: { id: string }) => ['--human', '--session', s.id];
  const jsonAs = (s: { id: string }) => ['--json', '--session', s.id];

  const proposal = (
    await step([
      ...jsonAs(implementer),
      'mem',
      'signal',
      'Split the store into jsonl/ and memory/ adapters?',
      '--to',
      reviewer.baton.display_name,
      '--intent',
      'PROPOSE',
      '--requires-ack',
    ])
  ).signal!;
  await step([...as(reviewer), 'hooks', 'drain', '--session', reviewer.id]);
  await step(['--human', 'mem', 'converged', '--thread', proposal.thread_id]);
  const counter = (
    await step([
      ...jsonAs(reviewer),
      'mem',
      'signal',
      'Yes, but keep the shared append plan in one file',
      '--reply-to',
      proposal.signal_id,
      '--intent',
      'COUNTER',
    ])
  ).signal!;
  await step([...as(implementer), 'mem', 'inbox']);
  await step(['--human', 'mem', 'converged', '--thread', proposal.thread_id]);
  await step([...as(implementer), 'mem', 'signal', 'Agreed: one append plan, two adapters', '--reply-to', counter.signal_id, '--intent', 'AGREE']);
  await step(['--human', 'mem', 'converged', '--thread', proposal.thread_id]);
  await step([...as(reviewer), 'session', 'end', reviewer.id]);
  await step([...as(implementer), 'session', 'end', implementer.id]);
}
