#!/usr/bin/env node
import { main } from './program.js';

// A reader that stops early (`baton --help | head -1`, `baton log show | head`) closes the pipe:
// that is the end of the output, not a crash to report with a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});

/**
 * The command has finished (long-running ones — serve, mcp, `log tail -f`, `mem watch` — finish
 * only when stopped): exit once its output is flushed, with its exit code. Left to drain on its
 * own, Node would first wait for V8's background work (compiling hot functions, a concurrent
 * collection of a large fold's garbage), which no command's result depends on.
 */
function exitWhenOutputFlushed(): void {
  process.stdout.write('', () => process.stderr.write('', () => process.exit()));
}

void main(process.argv).then(exitWhenOutputFlushed);
