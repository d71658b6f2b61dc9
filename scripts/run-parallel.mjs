// Runs the commands given as arguments at the same time, each through the shell as npm runs a
// script, and exits with the first failure's exit code once all have ended (0 when all succeeded).
// `npm test` uses it for the checks that only need the generated sources: the build, the type check
// and the lint are each mostly one thread, so on a two-core machine two of them at once take about
// half the time of one after the other. Each command's output is printed in one piece when it ends,
// so the logs of two commands never interleave.
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';

const commands = process.argv.slice(2);
if (commands.length === 0) {
  process.stderr.write('usage: node scripts/run-parallel.mjs "COMMAND" ["COMMAND" …]\n');
  process.exit(2);
}

function run(command) {
  return new Promise((resolve) => {
    const started = Date.now();
    const output = [];
    const child = spawn(command, { shell: true, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('error', (error) => output.push(Buffer.from(`${error.message}\n`)));
    child.on('close', (code, signal) => {
      const exit = code ?? 1;
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const outcome = exit === 0 ? 'ok' : `FAILED (${signal ?? `exit ${exit}`})`;
      process.stdout.write(`\n> ${command}: ${outcome} in ${seconds} s\n`);
      process.stdout.write(Buffer.concat(output));
      resolve(exit);
    });
  });
}

const exits = await Promise.all(commands.map(run));
process.exit(exits.find((exit) => exit !== 0) ?? 0);
