// The schema the service started with: crawls, pages with their tags and full-text indexes, links and their outcomes,
// API keys, users and posts.
import type { Migration } from './index.js';

export const migration: Migration = {
  version: 1,
  name: 'initial schema',
  sql: `
CREATE TABLE crawls (
  id          INTEGER PRIMARY KEY,
  project     TEXT NOT NULL,
  mode        TEXT NOT NULL CHECK (mode IN ('full','partial','manual')),
  status      TEXT NOT NULL CHECK (status IN ('queued','running','completed','stopped','failed')),
  urls        TEXT,                 -- JSON array, manual crawls only
  started_at  TEXT,
  finished_at TEXT,
  pages       INTEGER NOT NULL DEFAULT 0,
  links       INTEGER NOT NULL DEFAULT 0,
  errors      INTEGER NOT NULL DEFAULT 0,
  stats       TEXT,                 -- JSON: per-target {pages, cutByMaxPages, walkLinks?}
  error       TEXT,
  owner_pid   INTEGER               -- process running it: a crawl is only dead when its process is
);
CREATE INDEX crawls_project_status ON crawls(project, status);

-- Every document fetched with a 2xx answer. Only rows with indexed = 1 and show_in_search = 1 are in pages_fts.
CREATE TABLE pages (
  id              INTEGER PRIMARY KEY,
  url             TEXT NOT NULL UNIQUE,
  host            TEXT NOT NULL,     -- the target's host[:port]
  http_status     INTEGER NOT NULL,
  content_type    TEXT,
  indexed         INTEGER NOT NULL DEFAULT 0,
  show_in_search  INTEGER NOT NULL DEFAULT 1,
  title           TEXT NOT NULL DEFAULT '',
  language        TEXT,
  tags            TEXT NOT NULL DEFAULT '',   -- space separated, for the index
  superwords      TEXT NOT NULL DEFAULT '',
  content         TEXT NOT NULL DEFAULT '',
  meta            TEXT,                       -- JSON PageMeta
  created         TEXT,
  modified        TEXT,
  sitemap_lastmod TEXT,
  last_crawled    TEXT NOT NULL,
  crawl_id        INTEGER
);
CREATE INDEX pages_host ON pages(host);
CREATE INDEX pages_crawl ON pages(host, crawl_id);
-- The search's language filter reads a match's language here, not from the wide page row.
CREATE INDEX pages_id_language ON pages(id, language);

CREATE TABLE page_tags (
  page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
  tag     TEXT NOT NULL,
  PRIMARY KEY (tag, page_id)
) WITHOUT ROWID;
-- A page's tags (hits, re-crawl, and the ON DELETE CASCADE from pages) without scanning every tag.
CREATE INDEX page_tags_page ON page_tags(page_id);

-- Full-text index over pages, kept in step by triggers so page and index change in one transaction.
-- Only searchable pages are in it: indexed = 1 (not noindex, HTML) and show_in_search = 1; a hidden page
-- stays in pages (its meta, its links) but no query can return it, and counting matches needs no join.
-- prefix='3': the last word of a query is also a prefix (search as you type), from 3 characters.
CREATE VIRTUAL TABLE pages_fts USING fts5(
  title, superwords, tags, content,
  content='pages', content_rowid='id',
  tokenize='unicode61 remove_diacritics 2', prefix='3'
);
-- Merge segments 16 at a time instead of 4: each posting is rewritten about half as often while a crawl
-- writes (index builds ~25% faster at 100,000 pages), for a few more segments to read until the next merge.
INSERT INTO pages_fts(pages_fts, rank) VALUES ('automerge', 16);
INSERT INTO pages_fts(pages_fts, rank) VALUES ('crisismerge', 64);
-- Titles and superwords alone: a small index that finds the pages whose title answers a broad query at
-- once (src/backend/search ranks those first).
CREATE VIRTUAL TABLE pages_title_fts USING fts5(
  title, superwords,
  content='pages', content_rowid='id',
  tokenize='unicode61 remove_diacritics 2', prefix='2 3 4'
);
CREATE TRIGGER pages_ai AFTER INSERT ON pages WHEN new.indexed = 1 AND new.show_in_search = 1 BEGIN
  INSERT INTO pages_fts(rowid, title, superwords, tags, content) VALUES (new.id, new.title, new.superwords, new.tags, new.content);
  INSERT INTO pages_title_fts(rowid, title, superwords) VALUES (new.id, new.title, new.superwords);
END;
CREATE TRIGGER pages_ad AFTER DELETE ON pages WHEN old.indexed = 1 AND old.show_in_search = 1 BEGIN
  INSERT INTO pages_fts(pages_fts, rowid, title, superwords, tags, content) VALUES ('delete', old.id, old.title, old.superwords, old.tags, old.content);
  INSERT INTO pages_title_fts(pages_title_fts, rowid, title, superwords) VALUES ('delete', old.id, old.title, old.superwords);
END;
-- One update trigger, so the old entry always leaves before the new one arrives (SQLite fires separate
-- triggers newest first: a 'delete' after the insert would strike the new tokens and corrupt the index).
-- Only writes to indexed columns touch the index (not e.g. crawl_id when a crawl marks a page seen).
-- A re-crawl that changes nothing searchable (most pages of most re-crawls) leaves the index alone.
CREATE TRIGGER pages_au AFTER UPDATE OF indexed, show_in_search, title, superwords, tags, content ON pages
WHEN old.indexed IS NOT new.indexed OR old.show_in_search IS NOT new.show_in_search OR old.title IS NOT new.title
  OR old.superwords IS NOT new.superwords OR old.tags IS NOT new.tags OR old.content IS NOT new.content BEGIN
  INSERT INTO pages_fts(pages_fts, rowid, title, superwords, tags, content)
    SELECT 'delete', old.id, old.title, old.superwords, old.tags, old.content WHERE old.indexed = 1 AND old.show_in_search = 1;
  INSERT INTO pages_title_fts(pages_title_fts, rowid, title, superwords)
    SELECT 'delete', old.id, old.title, old.superwords WHERE old.indexed = 1 AND old.show_in_search = 1;
  INSERT INTO pages_fts(rowid, title, superwords, tags, content)
    SELECT new.id, new.title, new.superwords, new.tags, new.content WHERE new.indexed = 1 AND new.show_in_search = 1;
  INSERT INTO pages_title_fts(rowid, title, superwords)
    SELECT new.id, new.title, new.superwords WHERE new.indexed = 1 AND new.show_in_search = 1;
END;

-- The links found on a page at its last crawl.
CREATE TABLE links (
  page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
  url     TEXT NOT NULL,
  element TEXT NOT NULL,            -- a, area, img, source, script, link, iframe
  PRIMARY KEY (page_id, url)
) WITHOUT ROWID;
CREATE INDEX links_url ON links(url);

-- The last known outcome of each link URL (one row per URL, whatever page it is on).
CREATE TABLE link_outcomes (
  url          TEXT PRIMARY KEY,
  http_status  INTEGER NOT NULL,
  reason       TEXT NOT NULL CHECK (reason IN ('ok','not_found','forbidden','server_error','redirect','unknown','skipped')),
  message      TEXT NOT NULL DEFAULT '',
  redirects_to TEXT,
  crawl_id     INTEGER,
  checked_at   TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX link_outcomes_reason ON link_outcomes(reason);

CREATE TABLE api_keys (
  id         INTEGER PRIMARY KEY,
  project    TEXT NOT NULL,
  name       TEXT NOT NULL DEFAULT '',
  key_hash   TEXT NOT NULL UNIQUE,  -- sha256 hex of the key; the key itself is never stored
  created_at TEXT NOT NULL
);

CREATE TABLE users (
  login      TEXT PRIMARY KEY,
  role       TEXT NOT NULL CHECK (role IN ('administrator','editor','author','contributor','subscriber')),
  token_hash TEXT UNIQUE,           -- sha256 hex of the bearer token
  created_at TEXT NOT NULL
);

CREATE TABLE posts (
  id             INTEGER PRIMARY KEY,
  url            TEXT NOT NULL,
  title          TEXT NOT NULL DEFAULT '',
  status         TEXT NOT NULL CHECK (status IN ('publish','private','draft','pending','future')),
  author         TEXT NOT NULL,
  type           TEXT NOT NULL DEFAULT 'post',
  created        TEXT,
  modified       TEXT,
  language       TEXT,
  terms          TEXT NOT NULL DEFAULT '{}',   -- JSON {taxonomy: [term]}
  show_in_search INTEGER NOT NULL DEFAULT 1,
  superwords     TEXT NOT NULL DEFAULT '[]',   -- JSON array
  content        TEXT NOT NULL DEFAULT ''
);
CREATE INDEX posts_url ON posts(url);
`,
};
