// The unattended loop (schedules, the crawl queue, live update). Needs only migration 7's owner columns.
// A crawl queued by a schedule or by live update waits with no owner (owner_instance NULL, no heartbeat) until a
// serving process claims it; triggered_by says who asked for it. schedule_state remembers, per schedule, up to
// when its runs are accounted for and when it last queued a crawl, so a restart runs a missed one once.
import type { Migration } from './index.js';

export const migration: Migration = {
  version: 10,
  name: 'crawl queue and schedules',
  sql: `
ALTER TABLE crawls ADD COLUMN triggered_by TEXT NOT NULL DEFAULT 'request'
  CHECK (triggered_by IN ('request','schedule:full','schedule:partial','live_update'));
CREATE TABLE schedule_state (
  project    TEXT NOT NULL,
  kind       TEXT NOT NULL CHECK (kind IN ('full','partial')),
  checked_at INTEGER,               -- ms since the epoch: runs up to here are queued or skipped
  last_run   INTEGER,               -- ms since the epoch: when it last queued a crawl
  PRIMARY KEY (project, kind)
);
`,
};
