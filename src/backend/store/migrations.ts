// Versioned schema. Each migration runs once, in its own transaction, recorded in PRAGMA user_version.
// Add a new entry at the end; never edit one that has shipped.

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: Migration[] = [
  {
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
  stats       TEXT,                 -- JSON: per-target {pages, cutByMaxPages}
  error       TEXT
);
CREATE INDEX crawls_project_status ON crawls(project, status);

-- Every document fetched with a 2xx answer. Only rows with indexed = 1 are in pages_fts.
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

CREATE TABLE page_tags (
  page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
  tag     TEXT NOT NULL,
  PRIMARY KEY (tag, page_id)
) WITHOUT ROWID;

-- Full-text index over pages, kept in step by triggers so page and index change in one transaction.
CREATE VIRTUAL TABLE pages_fts USING fts5(
  title, superwords, tags, content,
  content='pages', content_rowid='id',
  tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER pages_ai AFTER INSERT ON pages WHEN new.indexed = 1 BEGIN
  INSERT INTO pages_fts(rowid, title, superwords, tags, content) VALUES (new.id, new.title, new.superwords, new.tags, new.content);
END;
CREATE TRIGGER pages_ad AFTER DELETE ON pages WHEN old.indexed = 1 BEGIN
  INSERT INTO pages_fts(pages_fts, rowid, title, superwords, tags, content) VALUES ('delete', old.id, old.title, old.superwords, old.tags, old.content);
END;
CREATE TRIGGER pages_au_old AFTER UPDATE ON pages WHEN old.indexed = 1 BEGIN
  INSERT INTO pages_fts(pages_fts, rowid, title, superwords, tags, content) VALUES ('delete', old.id, old.title, old.superwords, old.tags, old.content);
END;
CREATE TRIGGER pages_au_new AFTER UPDATE ON pages WHEN new.indexed = 1 BEGIN
  INSERT INTO pages_fts(rowid, title, superwords, tags, content) VALUES (new.id, new.title, new.superwords, new.tags, new.content);
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
  },
];
