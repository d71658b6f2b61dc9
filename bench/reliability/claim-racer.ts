/**
 * One racer of the claim races (claim-races.ts): a Node process that, once booted, says it is
 * ready on descriptor 3 and waits for one byte on its stdin (the start gun, written to every
 * racer at once), then runs the built `baton` in this same process with the given arguments —
 * exactly as `node dist/bin/baton.js ARGS…` runs it, its own module loading included — and exits
 * with its exit code.
 *
 *   claim-racer.js BATON_BIN ARG…
 */
import { writeSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [bin, ...args] = process.argv.slice(2);
if (bin === undefined) {
  process.stderr.write('usage: claim-racer BATON_BIN ARG…\n');
  process.exit(2);
}

process.stdin.once('data', () => {
  process.stdin.pause();
  process.argv = [process.execPath, bin, ...args];
  void import(pathToFileURL(bin).href);
});
writeSync(3, 'ready\n');
