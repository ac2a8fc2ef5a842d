// Which vitest project each test file runs in (vitest.config.ts; test/layout/projects.test.ts checks the lists):
// `unit`, the edit loop, for what runs in memory (no server, no process, no browser, no database but SQLite's
// :memory:); `e2e` for what runs the built svc as a process or drives Chromium; `integration`, every other file —
// loopback servers, SQLite files, PostgreSQL, an app in-process — so a new file lands there unless listed.

/** Files that run in memory only: one worker's module graph serves them all (isolate: false). */
export const UNIT = [
  'test/abilities/delete-confirmation.test.ts',
  'test/auth/attempt-limiter.test.ts',
  'test/auth/oauth-rules.test.ts',
  'test/auth/request-state.test.ts',
  'test/backend/crawl-tasks.test.ts',
  'test/backend/report-formats.test.ts',
  'test/cli/config.test.ts',
  'test/cli/projects-config.test.ts',
  'test/cms/live-update.test.ts',
  'test/docs/tool-table.test.ts',
  'test/http/origin-guard.test.ts',
  'test/layout/*.test.ts',
  'test/lib/*.test.ts',
  'test/mcp/confirm-delete-clock.test.ts',
  'test/mcp/task-shapes.test.ts',
  'test/model/*.test.ts',
  'test/report-view/*.test.ts',
  'test/store/search-index/fold.test.ts',
  'test/store/search-index/highlight.test.ts',
  'test/store/search-index/query.test.ts',
  'test/store/search-index/terms.test.ts',
  'test/tools/progress.test.ts',
];

/** Files that run the built svc as users run it (test/support/cli.ts, `svc mcp` over stdio) or drive Chromium. */
export const E2E = [
  'test/http/metrics.test.ts',
  'test/cli/links.test.ts',
  'test/cli/action.test.ts',
  'test/backend/findings.test.ts',
  'test/backend/report-html-chromium.test.ts',
  'test/backend/shared-instances.test.ts',
  'test/cli/crawl.test.ts',
  'test/cli/database-url.test.ts',
  'test/cli/findings.test.ts',
  'test/cli/loop.test.ts',
  'test/cli/projects.test.ts',
  'test/cli/readonly.test.ts',
  'test/cli/schedule-set.test.ts',
  'test/cli/search-stats.test.ts',
  'test/cli/start-up.test.ts',
  'test/cli/version.test.ts',
  'test/cli/webhooks.test.ts',
  'test/cli/worker.test.ts',
  'test/console/console-browser.test.ts',
  'test/console/console-postgres.test.ts',
  'test/crawler/bin-memory.test.ts',
  'test/demo/e2e.test.ts',
  'test/http/oauth-browser.test.ts',
  'test/http/oauth-sdk-client.test.ts',
  'test/mcp/app-browser.test.ts',
  'test/mcp/app-negotiation.test.ts',
  'test/mcp/confirm-delete.test.ts',
  'test/mcp/eras.test.ts',
  'test/mcp/http.test.ts',
  'test/mcp/stdio.test.ts',
  'test/mcp/tasks-postgres.test.ts',
  'test/mcp/tasks.test.ts',
  'test/reliability/concurrency.test.ts',
];

/** Every test file: integration's include, less the two lists. */
export const ALL_TESTS = 'test/**/*.test.ts';

/**
 * The files that take longest, longest first (measured on two cores): they start first in their project wherever
 * the suite runs (test/support/sequencer.ts). vitest orders by the durations of an earlier run on the same machine
 * and, in a fresh clone, by file size, which put short files that run long at the end of the run, with every other
 * worker idle waiting for them.
 */
export const SLOWEST = [
  'test/console/console-browser.test.ts',
  'test/console/console-postgres.test.ts',
  'test/mcp/eras.test.ts',
  'test/cli/worker.test.ts',
  'test/cli/loop.test.ts',
  'test/backend/shared-instances.test.ts',
  'test/mcp/app-browser.test.ts',
  'test/mcp/stdio.test.ts',
  'test/reliability/concurrency.test.ts',
  'test/http/metrics.test.ts',
  'test/install/package.test.ts',
  'test/backend/shared-crawl.test.ts',
  'test/reliability/fuzz.test.ts',
  'test/abilities/crawl-tasks.test.ts',
  'test/store/frontier.test.ts',
  'test/store/host-leases.test.ts',
];
