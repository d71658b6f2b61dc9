import { spawn } from 'node:child_process';
import { childCommand, PROJECT_ROOT } from '../support.js';

/**
 * A child process appending to a workspace's log through the JSONL store (append-child.ts): it
 * prints a line per append the store reported durable, and is killed with SIGKILL at the caller's
 * moment.
 */
export interface LibraryAppender {
  done: Promise<{ stdout: string; stderr: string; signal: NodeJS.Signals | null; code: number | null }>;
  /** Resolves once the child printed its first acknowledged append (or ended). */
  firstReport: Promise<void>;
  kill: () => void;
}

export function startAppender(workspace: string, tag: string, mode: 'loop' | 'storm', size: number): LibraryAppender {
  const { args } = childCommand('reliability/append-child');
  const child = spawn(process.execPath, [...args, workspace, tag, mode, String(size)], { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let reported: () => void = () => undefined;
  const firstReport = new Promise<void>((resolve) => (reported = resolve));
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    stdout += chunk;
    if (stdout.includes('\n')) reported();
  });
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  const done = new Promise<{ stdout: string; stderr: string; signal: NodeJS.Signals | null; code: number | null }>((resolve) => {
    child.on('close', (code, signal) => {
      reported();
      resolve({ stdout, stderr, signal, code });
    });
  });
  return { done, firstReport, kill: () => child.kill('SIGKILL') };
}
