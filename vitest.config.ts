import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most tests wait on child processes (the built CLI, crash fixtures, PostgreSQL), so one worker
    // per core keeps both cores busy; vitest's default (cores − 1) runs the suite serially on the
    // 2-core CI machines.
    maxWorkers: Math.max(2, availableParallelism()),
  },
});
