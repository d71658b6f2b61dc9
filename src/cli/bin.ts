#!/usr/bin/env node
import { main } from './program.js';

// A reader that stops early (`baton --help | head -1`, `baton log show | head`) closes the pipe:
// that is the end of the output, not a crash to report with a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});

void main(process.argv);
