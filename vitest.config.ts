import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import { ALL_TESTS, E2E, UNIT } from './test/support/projects.js';
import { SlowestFirst } from './test/support/sequencer.js';

// One temp directory for the run, removed at its end; for the projects that run svc or PostgreSQL, a fresh dist/
// (rebuilt when a source is newer) and the run's one PostgreSQL cluster with its migrated template database. vitest
// runs each project's global setup (the root's last): each of these runs once however many projects list it.
const TEMP_ROOT = 'test/support/temp-root.ts';
const BUILD_AND_POSTGRES = [TEMP_ROOT, 'test/support/build.ts', 'test/support/pg-template.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most files wait on servers, child processes and browsers they start, not on their own CPU: two more files than
    // cores (vitest's default is one fewer). On two cores, quiet: two at a time 371 s, three 322 s; then, on a slower
    // day for the same machine, three 374 s and four 340 s.
    maxWorkers: availableParallelism() + 2,
    globalSetup: [TEMP_ROOT],
    // The longest files first in every clone, not only where an earlier run left its durations.
    sequence: { sequencer: SlowestFirst },
    // Which project a file runs in: test/support/projects.ts (integration unless listed; checked by
    // test/layout/projects.test.ts). `npm run test:unit` is the edit loop.
    projects: [
      { extends: true, test: { name: 'unit', include: UNIT, isolate: false, globalSetup: [TEMP_ROOT] } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: [ALL_TESTS],
          // One module graph per worker for all its files: importing it again for every file was a fifth of the run.
          isolate: false,
          exclude: [...configDefaults.exclude, ...UNIT, ...E2E],
          globalSetup: BUILD_AND_POSTGRES,
        },
      },
      // Their own cost is the processes and browsers they start; their module graph is shared as integration's is.
      { extends: true, test: { name: 'e2e', include: E2E, isolate: false, globalSetup: BUILD_AND_POSTGRES } },
    ],
  },
});
