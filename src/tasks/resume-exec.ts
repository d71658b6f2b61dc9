import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { TaskErrorCode } from '../../projections/tasks/refusal.js';
import { BatonError } from '../errors.js';

/**
 * `resume --execute` (tasks.md §10.6): spawn argv[0] with the rest as arguments, no shell, stdio
 * inherited, same environment and directory; resolve with the child's exit code, or 128 + the
 * signal number when a signal ended it. Baton ignores SIGINT meanwhile: the terminal delivers it
 * to the child, and the child's result is what Baton reports.
 */
/**
 * A resume command that runs `baton` runs this very Baton (the Node binary and the script running
 * now), not whatever `baton` the PATH holds — or none, when Baton was started by its path.
 */
export function ownBaton(command: readonly string[], execPath = process.execPath, script = process.argv[1]): string[] {
  if (command[0] !== 'baton' || script === undefined) return [...command];
  return [execPath, script, ...command.slice(1)];
}

export async function executeResume(command: readonly string[]): Promise<number> {
  if (command.length === 0) throw new BatonError(TaskErrorCode.EMPTY_COMMAND, 'Resume command is empty — nothing to execute.');
  // The envelope printed before must reach stdout before the child writes to the same fd.
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  process.removeAllListeners('SIGINT');
  const ignore = (): void => undefined;
  process.on('SIGINT', ignore);
  try {
    return await new Promise<number>((resolve, reject) => {
      const child = spawn(command[0]!, command.slice(1), { stdio: 'inherit', shell: false });
      child.once('error', (error) =>
        reject(new BatonError(TaskErrorCode.SPAWN_FAILED, `Failed to spawn resume command: ${error.message}`, { command: [...command] })),
      );
      child.once('exit', (code, signal) => {
        if (code !== null) resolve(code);
        else resolve(128 + (signal ? (constants.signals[signal] ?? 0) : 0));
      });
    });
  } finally {
    process.off('SIGINT', ignore);
  }
}
