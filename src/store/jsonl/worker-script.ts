import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * How to start the worker thread whose module is `name` beside this module: compiled JavaScript
 * (dist/, and the bundled CLI, which emits each worker as its own entry in dist/bin/), else the
 * TypeScript source through tsx (tests run on the sources: plain Node cannot start a .ts worker,
 * and `execArgv: ['--import', 'tsx']` does not reach a worker's module loader on Node 20, so a
 * one-line bootstrap registers tsx's loader — a dev dependency — in the worker, then imports it).
 * Undefined when neither is there: the caller works without the worker.
 */
export interface WorkerEntry {
  script: URL | string;
  /** `script` is code to evaluate (the bootstrap), not a module URL. */
  evaluate: boolean;
}

export function workerEntry(name: string): WorkerEntry | undefined {
  const compiled = new URL(`./${name}.js`, import.meta.url);
  if (existsSync(fileURLToPath(compiled))) return { script: compiled, evaluate: false };
  const source = new URL(`./${name}.ts`, import.meta.url);
  if (!existsSync(fileURLToPath(source))) return undefined;
  const tsx = import.meta.resolve('tsx/esm/api');
  return { script: `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(source.href)}); });`, evaluate: true };
}
