/**
 * The tasks part of the demo (tasks.md): a session runs tasks, one blocks on an expired login,
 * the agent goes away; a returning agent asks `baton status` and is told exactly what to do next.
 */
type Result = { stdout: string; stderr: string; code: number };
type Baton = (args: string[], env?: Record<string, string>) => Promise<Result>;

interface Ids {
  session?: { id: string };
  task?: { id: string };
}

function ids(r: Result): Ids {
  const last = r.stdout.trim().split('\n').at(-1) ?? '{}';
  return JSON.parse(last) as Ids;
}

export async function tasksDemo(baton: Baton, show: (cmd: string, r: Result) => void, dir: string): Promise<void> {
  const run = async (args: string[], env?: Record<string, string>): Promise<Result> => {
    const r = await baton(['--dir', dir, ...args], env);
    show(`baton ${args.join(' ')}`, r);
    return r;
  };
  const started = await run(['--json', 'session', 'start', '--goal', 'instrument checkout', '--branch', 'feat/checkout']);
  const session = ids(started).session?.id ?? '';
  const as = ['--json', '--session', session];
  const scan = ids(await run([...as, 'task', 'create', '--label', 'scan the repo', '--state', 'running'])).task?.id ?? '';
  await run([...as, 'task', 'own', scan, '--branch', 'feat/checkout']);
  await run([...as, 'task', 'transition', scan, 'completed', '--summary', 'found 12 events']);
  const deploy = ids(await run([...as, 'task', 'create', '--label', 'deploy the dashboard', '--state', 'running'])).task?.id ?? '';
  await run([...as, 'subagent', 'start', '--kind', 'dashboard_creation', '--root-task', deploy]);
  // An illegal move is refused (exit 2) and appends nothing.
  await run([...as, 'task', 'transition', scan, 'running']);
  await run([...as, 'task', 'transition', deploy, 'blocked', '--reason', 'login expired']);
  await run(['--json', 'tasks']);
  // The returning agent: what do I do next, and how do I resume?
  await run(['--human', 'status']);
  await run(['--human', 'resume', session]);
}
