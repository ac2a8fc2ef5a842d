// Owned by the link-report work (src/backend/report). The report is read far more often than links change,
// so its rows are kept ready here: triggers follow outcome changes and page deletions, and savePages
// refreshes a page's rows after writing its links (one set-based statement per page, not a trigger per link).
import type { Migration } from './index.js';

export const migration: Migration = {
  version: 2,
  name: 'link report rows kept ready',
  sql: `
-- Section order of the report; reasons not listed (ok, skipped) never reach it.
CREATE TABLE report_reasons (
  reason TEXT PRIMARY KEY,
  rank   INTEGER NOT NULL UNIQUE
) WITHOUT ROWID;
INSERT INTO report_reasons (reason, rank) VALUES ('not_found', 0), ('forbidden', 1), ('server_error', 2), ('redirect', 3), ('unknown', 4);

-- One row per (page, link) whose outcome is a problem. The two indexes hold the report's documented order
-- (section, page URL, link URL), for all pages and per host, so a report is one ordered index range.
CREATE TABLE report_links (
  page_id  INTEGER NOT NULL,
  url      TEXT NOT NULL,
  rank     INTEGER NOT NULL,
  page_url TEXT NOT NULL,
  host     TEXT NOT NULL,          -- the page's (canonical) target host
  PRIMARY KEY (page_id, url)
) WITHOUT ROWID;
CREATE INDEX report_links_order ON report_links(rank, page_url, url);
CREATE INDEX report_links_host ON report_links(host, rank, page_url, url);

-- Full count per (host, section), so a report never counts rows it does not return.
CREATE TABLE report_counts (
  host TEXT NOT NULL,
  rank INTEGER NOT NULL,
  n    INTEGER NOT NULL,
  PRIMARY KEY (host, rank)
) WITHOUT ROWID;
CREATE TRIGGER report_counts_ai AFTER INSERT ON report_links BEGIN
  INSERT INTO report_counts (host, rank, n) VALUES (new.host, new.rank, 1) ON CONFLICT (host, rank) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER report_counts_ad AFTER DELETE ON report_links BEGIN
  UPDATE report_counts SET n = n - 1 WHERE host = old.host AND rank = old.rank;
END;
CREATE TRIGGER report_counts_au AFTER UPDATE OF host, rank ON report_links WHEN old.host IS NOT new.host OR old.rank IS NOT new.rank BEGIN
  UPDATE report_counts SET n = n - 1 WHERE host = old.host AND rank = old.rank;
  INSERT INTO report_counts (host, rank, n) VALUES (new.host, new.rank, 1) ON CONFLICT (host, rank) DO UPDATE SET n = n + 1;
END;

INSERT OR IGNORE INTO report_links (page_id, url, rank, page_url, host)
  SELECT l.page_id, l.url, rr.rank, p.url, p.host
  FROM links l JOIN link_outcomes o ON o.url = l.url JOIN report_reasons rr ON rr.reason = o.reason JOIN pages p ON p.id = l.page_id;

CREATE TRIGGER report_outcomes_ai AFTER INSERT ON link_outcomes BEGIN
  INSERT OR IGNORE INTO report_links (page_id, url, rank, page_url, host)
  SELECT l.page_id, l.url, rr.rank, p.url, p.host
  FROM report_reasons rr JOIN links l ON l.url = new.url JOIN pages p ON p.id = l.page_id
  WHERE rr.reason = new.reason;
END;
CREATE TRIGGER report_outcomes_au AFTER UPDATE OF url, reason ON link_outcomes WHEN old.url IS NOT new.url OR old.reason IS NOT new.reason BEGIN
  DELETE FROM report_links WHERE (page_id, url) IN (SELECT page_id, url FROM links WHERE url = old.url);
  INSERT OR IGNORE INTO report_links (page_id, url, rank, page_url, host)
  SELECT l.page_id, l.url, rr.rank, p.url, p.host
  FROM report_reasons rr JOIN links l ON l.url = new.url JOIN pages p ON p.id = l.page_id
  WHERE rr.reason = new.reason;
END;
CREATE TRIGGER report_outcomes_ad AFTER DELETE ON link_outcomes BEGIN
  DELETE FROM report_links WHERE (page_id, url) IN (SELECT page_id, url FROM links WHERE url = old.url);
END;
CREATE TRIGGER report_pages_ad AFTER DELETE ON pages BEGIN
  DELETE FROM report_links WHERE page_id = old.id;
END;
CREATE TRIGGER report_pages_au AFTER UPDATE OF url, host ON pages WHEN old.url IS NOT new.url OR old.host IS NOT new.host BEGIN
  UPDATE report_links SET page_url = new.url, host = new.host WHERE page_id = new.id;
END;

`,
};
