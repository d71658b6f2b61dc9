#!/usr/bin/env node
import { fileURLToPath } from 'node:url';
import { useValidatorCompiler } from '../../events/compiled.js';
import { main } from './program.js';
import { whenCreated } from './std-streams.js';
import { codeCacheCompiler } from './validator-code-cache.js';

// Validators come from the code cache the build wrote beside the bin (validator-code-cache.ts).
useValidatorCompiler(codeCacheCompiler(fileURLToPath(new URL('./validators.codecache', import.meta.url))).compile);

/** The standard streams something created (most commands create neither: see std-streams.ts). */
const created: NodeJS.WriteStream[] = [];

// A reader that stops early (`baton --help | head -1`, `baton log show | head`) closes the pipe:
// that is the end of the output, not a crash to report with a stack trace. (Output written to the
// descriptor directly meets EPIPE as an exception and moves to the stream, which then says it here.)
whenCreated('stdout', (stream) => {
  created.push(stream);
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });
});
whenCreated('stderr', (stream) => created.push(stream));

/**
 * The command has finished (long-running ones — serve, mcp, `log tail -f`, `mem watch` — finish
 * only when stopped): exit once its output is flushed, with its exit code. Left to drain on its
 * own, Node would first wait for V8's background work (compiling hot functions, a concurrent
 * collection of a large fold's garbage), which no command's result depends on. Output written to
 * the descriptors directly is written already; a stream something created is flushed first.
 */
function exitWhenOutputFlushed(streams: readonly NodeJS.WriteStream[] = [...created]): void {
  const [first, ...rest] = streams;
  if (first === undefined) process.exit();
  else first.write('', () => exitWhenOutputFlushed(rest));
}

void main(process.argv).then(() => exitWhenOutputFlushed());
