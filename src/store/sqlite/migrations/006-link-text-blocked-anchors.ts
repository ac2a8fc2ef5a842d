// Owned by the link-check fidelity work: where on the page a link is, bot blocks, fragment targets.
import type { Migration } from './index.js';

export const migration: Migration = {
  version: 6,
  name: 'link text, blocked answers, page anchors',
  sql: `
-- The anchor text or alt of the link (at most 100 characters), beside the element it was found in.
ALTER TABLE links ADD COLUMN text TEXT NOT NULL DEFAULT '';
-- 1: the answer was a bot or rate-limit block (status 999, a challenge page), not a real failure.
ALTER TABLE link_outcomes ADD COLUMN blocked INTEGER NOT NULL DEFAULT 0;
-- JSON array of the page's fragment targets (ids, <a name>), when a target checks fragments; NULL: not collected.
ALTER TABLE pages ADD COLUMN anchors TEXT;

-- The report's ready rows carry the link's element and text, in both order indexes, so a report stays one
-- covered index range (a lookup in links per row would cost more than the rest of the query).
ALTER TABLE report_links ADD COLUMN element TEXT NOT NULL DEFAULT '';
ALTER TABLE report_links ADD COLUMN text TEXT NOT NULL DEFAULT '';
UPDATE report_links SET element = COALESCE((SELECT l.element FROM links l WHERE l.page_id = report_links.page_id AND l.url = report_links.url), '');
DROP INDEX report_links_order;
DROP INDEX report_links_host;
CREATE INDEX report_links_order ON report_links(rank, page_url, url, element, text);
CREATE INDEX report_links_host ON report_links(host, rank, page_url, url, element, text);
DROP TRIGGER report_outcomes_ai;
DROP TRIGGER report_outcomes_au;
CREATE TRIGGER report_outcomes_ai AFTER INSERT ON link_outcomes BEGIN
  INSERT OR IGNORE INTO report_links (page_id, url, rank, page_url, host, element, text)
  SELECT l.page_id, l.url, rr.rank, p.url, p.host, l.element, l.text
  FROM report_reasons rr JOIN links l ON l.url = new.url JOIN pages p ON p.id = l.page_id
  WHERE rr.reason = new.reason;
END;
CREATE TRIGGER report_outcomes_au AFTER UPDATE OF url, reason ON link_outcomes WHEN old.url IS NOT new.url OR old.reason IS NOT new.reason BEGIN
  DELETE FROM report_links WHERE (page_id, url) IN (SELECT page_id, url FROM links WHERE url = old.url);
  INSERT OR IGNORE INTO report_links (page_id, url, rank, page_url, host, element, text)
  SELECT l.page_id, l.url, rr.rank, p.url, p.host, l.element, l.text
  FROM report_reasons rr JOIN links l ON l.url = new.url JOIN pages p ON p.id = l.page_id
  WHERE rr.reason = new.reason;
END;
`,
};
