import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One initdb for the run: every test file's PostgreSQL cluster starts from a copy of it.
    globalSetup: ['test/support/pg-template.ts'],
  },
});
