import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most files wait on servers, child processes and browsers they start, not on their own CPU: two at a time even
    // on two cores (vitest's default there is one) takes about a third off the run.
    maxWorkers: Math.max(2, availableParallelism()),
    // One temp directory for the run, removed at its end; a fresh dist/ for the suites that run the built svc
    // (rebuilt when a source is newer); one initdb for the run, every test file's PostgreSQL cluster starting from a
    // copy of it.
    globalSetup: ['test/support/temp-root.ts', 'test/support/build.ts', 'test/support/pg-template.ts'],
  },
});
