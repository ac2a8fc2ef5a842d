// Owned by the webhooks work (src/store/webhooks.ts). The outbox: one row per (crawl end, matching webhook),
// written in the transaction that records the crawl's end, sent by a deliverer that claims rows with a lease
// (a claim whose process died is taken again when the lease runs out). The secret is never stored: the body is
// signed when it is sent, with the secret the config then gives for the URL. Times in ms since the epoch.
import type { Migration } from './index.js';

export const migration: Migration = {
  version: 9,
  name: 'webhook deliveries outbox',
  sql: `
CREATE TABLE webhook_deliveries (
  id              TEXT PRIMARY KEY,     -- random; sent as X-Svc-Delivery
  seq             INTEGER NOT NULL UNIQUE,
  project         TEXT NOT NULL,
  crawl_id        INTEGER,
  event           TEXT NOT NULL,
  url             TEXT NOT NULL,
  body            TEXT NOT NULL,        -- the exact bytes sent (and signed)
  status          TEXT NOT NULL CHECK (status IN ('pending','sending','delivered','failed')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  last_error      TEXT,
  next_attempt_at INTEGER,              -- when pending: not before
  lease_until     INTEGER,              -- when sending: another process may take it after
  created_at      INTEGER NOT NULL,
  delivered_at    INTEGER
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(status, next_attempt_at);
CREATE INDEX webhook_deliveries_project ON webhook_deliveries(project, seq);
`,
};
