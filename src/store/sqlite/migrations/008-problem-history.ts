// History (src/store/history.ts). report_links rows are deleted and written again whenever a
// page is saved, so when a problem was first found lives here: one row per episode of a problem (page, link,
// reason), opened by the end of the crawl that first found it and closed (fixed_crawl) by the end of the first
// crawl after which the report no longer held it. A problem that comes back opens a new episode. Episodes keep
// what the link looked like, so "fixed" can still show it. Crawl ids order the ends: one crawl of a project
// runs at a time. history_done marks crawls whose end has been recorded here (and, from migration 9, whose
// webhooks are in the outbox); a crawl marked failed by another process is recorded by the next sweep.
import type { Migration } from './index.js';

export const migration: Migration = {
  version: 8,
  name: 'problem history: first seen, fixed',
  sql: `
CREATE TABLE problem_history (
  id           INTEGER PRIMARY KEY,
  project      TEXT NOT NULL,
  page_url     TEXT NOT NULL,
  url          TEXT NOT NULL,
  reason       TEXT NOT NULL,
  host         TEXT NOT NULL,
  http_status  INTEGER NOT NULL,
  message      TEXT NOT NULL DEFAULT '',
  redirects_to TEXT,
  element      TEXT NOT NULL DEFAULT '',
  text         TEXT NOT NULL DEFAULT '',
  blocked      INTEGER NOT NULL DEFAULT 0,
  first_crawl  INTEGER NOT NULL,
  first_seen   TEXT NOT NULL,     -- finished_at of first_crawl
  fixed_crawl  INTEGER,           -- NULL while the problem is still in the report
  fixed_at     TEXT
);
-- The open episode of a report row: the report reads first_seen from the index alone (fixed_crawl is in it for
-- that too). One open episode per problem: recordProblemHistory opens one only where none is open, in one transaction.
CREATE INDEX problem_history_open ON problem_history(project, page_url, url, reason, first_seen, fixed_crawl) WHERE fixed_crawl IS NULL;
CREATE INDEX problem_history_span ON problem_history(project, first_crawl, fixed_crawl);
ALTER TABLE crawls ADD COLUMN history_done INTEGER NOT NULL DEFAULT 0;
UPDATE crawls SET history_done = 1 WHERE status IN ('completed','stopped','failed');
-- What is stored now was found by the crawls so far: the latest ended one stands for them, so an upgrade does not
-- make every old problem "new".
INSERT INTO problem_history (project, page_url, url, reason, host, http_status, message, redirects_to, element, text, blocked, first_crawl, first_seen)
  SELECT c.project, r.page_url, r.url, rr.reason, r.host, o.http_status, o.message, o.redirects_to, r.element, r.text, o.blocked, c.id, c.finished_at
  FROM report_links r JOIN report_reasons rr ON rr.rank = r.rank JOIN link_outcomes o ON o.url = r.url
  JOIN (SELECT id, project, finished_at FROM crawls WHERE status IN ('completed','stopped','failed') AND finished_at IS NOT NULL ORDER BY id DESC LIMIT 1) c;
`,
};
