// Crawl ownership by heartbeat, whatever the PIDs are (PID 1 in a container, a zombie, a reused PID): the
// owning process writes heartbeat_at (ms since the epoch) with the crawl's live stats; a crawl whose beat is
// older than 30 s is dead. stop_requested lets any process ask the owner to stop.
import type { Migration } from './index.js';

export const migration: Migration = {
  version: 7,
  name: 'crawl heartbeat and stop requests',
  sql: `
ALTER TABLE crawls ADD COLUMN owner_instance TEXT;
ALTER TABLE crawls ADD COLUMN heartbeat_at INTEGER;
ALTER TABLE crawls ADD COLUMN stop_requested INTEGER NOT NULL DEFAULT 0;
`,
};
