// Versioned schema. Each migration runs once, in its own transaction, recorded in PRAGMA user_version.
// Add a new entry at the end; never edit one that has shipped.

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * Fills the (empty) full-text indexes from the searchable pages, as the triggers of migration 13 index a page: the
 * migration uses it, and so does `svc repair` (the one definition of what the indexes hold).
 */
export const FILL_SEARCH_INDEXES = `INSERT INTO pages_fts(rowid, title, superwords, tags, content)
  SELECT id, title, superwords, tags, content FROM pages WHERE indexed = 1 AND show_in_search = 1;
INSERT INTO pages_title_fts(rowid, title, superwords)
  SELECT id, title, superwords FROM pages WHERE indexed = 1 AND show_in_search = 1;
INSERT OR IGNORE INTO search_stemmers(stemmer)
  SELECT DISTINCT svc_stemmer(language) FROM pages WHERE indexed = 1 AND show_in_search = 1 AND svc_stemmer(language) IS NOT NULL;
`;

/** How migration 4 filled its indexes (with stems and identifier parts, computed by svc_terms); as it shipped. */
const FILL_SEARCH_INDEXES_4 = `INSERT INTO pages_fts(rowid, title, superwords, tags, content, title_terms, terms)
  SELECT id, title, superwords, tags, content, svc_terms(language, title), svc_terms(language, content) FROM pages WHERE indexed = 1 AND show_in_search = 1;
INSERT INTO pages_title_fts(rowid, title, superwords, title_terms)
  SELECT id, title, superwords, svc_terms(language, title) FROM pages WHERE indexed = 1 AND show_in_search = 1;
INSERT OR IGNORE INTO search_stemmers(stemmer)
  SELECT DISTINCT svc_stemmer(language) FROM pages WHERE indexed = 1 AND show_in_search = 1 AND svc_stemmer(language) IS NOT NULL;
`;

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
  },
  {
    // Owned by the link-report work (src/backend/report). The report is read far more often than links change,
    // so its rows are kept ready here: triggers follow outcome changes and page deletions, and savePages
    // refreshes a page's rows after writing its links (one set-based statement per page, not a trigger per link).
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
  },
  {
    // Owned by the search work (src/backend/search). The last word of a query is expanded into its most frequent
    // completions through the index's vocabulary (completions.ts) from 3 characters on, so FTS5's own prefix
    // indexes are never read; they cost about 40% of every page's indexing. Both indexes are rebuilt without them
    // from the searchable pages (a 'rebuild' would read every row of pages, hidden ones included).
    version: 3,
    name: 'full-text indexes without prefix indexes',
    sql: `
DROP TABLE pages_fts;
DROP TABLE pages_title_fts;
CREATE VIRTUAL TABLE pages_fts USING fts5(
  title, superwords, tags, content,
  content='pages', content_rowid='id',
  tokenize='unicode61 remove_diacritics 2'
);
INSERT INTO pages_fts(pages_fts, rank) VALUES ('automerge', 16);
INSERT INTO pages_fts(pages_fts, rank) VALUES ('crisismerge', 64);
CREATE VIRTUAL TABLE pages_title_fts USING fts5(
  title, superwords,
  content='pages', content_rowid='id',
  tokenize='unicode61 remove_diacritics 2'
);
INSERT INTO pages_fts(rowid, title, superwords, tags, content)
  SELECT id, title, superwords, tags, content FROM pages WHERE indexed = 1 AND show_in_search = 1;
INSERT INTO pages_title_fts(rowid, title, superwords)
  SELECT id, title, superwords FROM pages WHERE indexed = 1 AND show_in_search = 1;
`,
  },
  {
    // Owned by the search work (src/store/search-index). Search by stems and identifier parts: each index gets
    // columns of extra terms (terms.ts: the Snowball stems of the page's words in its language, and the parts of
    // camelCase words), computed in JS by the function svc_terms, which every connection registers before it
    // migrates or writes. The indexes become contentless (with deletes by rowid), so a page leaves the index
    // without its old terms being computed again. search_stemmers lists the stemmers of the indexed pages, so a
    // query's words are stemmed in each of them. The indexes are rebuilt from the searchable pages.
    version: 4,
    name: 'full-text indexes with stems and identifier parts',
    sql: `
DROP TRIGGER pages_ai;
DROP TRIGGER pages_ad;
DROP TRIGGER pages_au;
DROP TABLE pages_fts;
DROP TABLE pages_title_fts;
CREATE TABLE search_stemmers (stemmer TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE VIRTUAL TABLE pages_fts USING fts5(
  title, superwords, tags, content, title_terms, terms,
  content='', contentless_delete=1,
  tokenize='unicode61 remove_diacritics 2'
);
INSERT INTO pages_fts(pages_fts, rank) VALUES ('automerge', 16);
INSERT INTO pages_fts(pages_fts, rank) VALUES ('crisismerge', 64);
CREATE VIRTUAL TABLE pages_title_fts USING fts5(
  title, superwords, title_terms,
  content='', contentless_delete=1,
  tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER pages_ai AFTER INSERT ON pages WHEN new.indexed = 1 AND new.show_in_search = 1 BEGIN
  INSERT INTO pages_fts(rowid, title, superwords, tags, content, title_terms, terms)
    VALUES (new.id, new.title, new.superwords, new.tags, new.content, svc_terms(new.language, new.title), svc_terms(new.language, new.content));
  INSERT INTO pages_title_fts(rowid, title, superwords, title_terms) VALUES (new.id, new.title, new.superwords, svc_terms(new.language, new.title));
  INSERT INTO search_stemmers(stemmer) SELECT svc_stemmer(new.language)
    WHERE svc_stemmer(new.language) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM search_stemmers WHERE stemmer = svc_stemmer(new.language));
END;
CREATE TRIGGER pages_ad AFTER DELETE ON pages WHEN old.indexed = 1 AND old.show_in_search = 1 BEGIN
  DELETE FROM pages_fts WHERE rowid = old.id;
  DELETE FROM pages_title_fts WHERE rowid = old.id;
END;
-- (A trigger's INSERT OR IGNORE would take the outer upsert's conflict policy: hence NOT EXISTS.)
-- As before: one update trigger, the old entry out before the new one in, and only when something indexed changed
-- (the language too now: it chooses the stemmer).
CREATE TRIGGER pages_au AFTER UPDATE OF indexed, show_in_search, title, language, superwords, tags, content ON pages
WHEN old.indexed IS NOT new.indexed OR old.show_in_search IS NOT new.show_in_search OR old.title IS NOT new.title
  OR old.language IS NOT new.language OR old.superwords IS NOT new.superwords OR old.tags IS NOT new.tags OR old.content IS NOT new.content BEGIN
  DELETE FROM pages_fts WHERE rowid = old.id AND old.indexed = 1 AND old.show_in_search = 1;
  DELETE FROM pages_title_fts WHERE rowid = old.id AND old.indexed = 1 AND old.show_in_search = 1;
  INSERT INTO pages_fts(rowid, title, superwords, tags, content, title_terms, terms)
    SELECT new.id, new.title, new.superwords, new.tags, new.content, svc_terms(new.language, new.title), svc_terms(new.language, new.content)
    WHERE new.indexed = 1 AND new.show_in_search = 1;
  INSERT INTO pages_title_fts(rowid, title, superwords, title_terms)
    SELECT new.id, new.title, new.superwords, svc_terms(new.language, new.title) WHERE new.indexed = 1 AND new.show_in_search = 1;
  INSERT INTO search_stemmers(stemmer) SELECT svc_stemmer(new.language) WHERE new.indexed = 1 AND new.show_in_search = 1
    AND svc_stemmer(new.language) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM search_stemmers WHERE stemmer = svc_stemmer(new.language));
END;
${FILL_SEARCH_INDEXES_4}
INSERT INTO pages_fts(pages_fts) VALUES ('optimize');
INSERT INTO pages_title_fts(pages_title_fts) VALUES ('optimize');
`,
  },
  {
    // Owned by the OAuth sign-in (src/auth/oauth). Passwords (scrypt, for the sign-in page), the clients that
    // registered themselves, and the codes and tokens issued to them: codes and tokens only as sha256 hashes.
    // A grant is one sign-in: its code and every token refreshed from it share grant_id, so a code used twice
    // can revoke everything that came of it. Expiry times are Unix seconds.
    version: 5,
    name: 'oauth sign-in: passwords, clients, codes, tokens',
    sql: `
ALTER TABLE users ADD COLUMN password_hash TEXT;

CREATE TABLE oauth_clients (
  client_id  TEXT PRIMARY KEY,
  info       TEXT NOT NULL,          -- JSON: the registered client metadata (RFC 7591), no secret
  created_at TEXT NOT NULL
);

CREATE TABLE oauth_codes (
  code_hash      TEXT PRIMARY KEY,
  grant_id       TEXT NOT NULL,
  client_id      TEXT NOT NULL REFERENCES oauth_clients(client_id) ON DELETE CASCADE,
  login          TEXT NOT NULL REFERENCES users(login) ON DELETE CASCADE,
  redirect_uri   TEXT NOT NULL,
  code_challenge TEXT NOT NULL,
  scopes         TEXT NOT NULL,      -- space separated
  resource       TEXT NOT NULL,
  expires_at     INTEGER NOT NULL,
  used_at        INTEGER             -- set on first exchange; a second one is refused and revokes the grant
);

CREATE TABLE oauth_tokens (
  token_hash TEXT PRIMARY KEY,
  kind       TEXT NOT NULL CHECK (kind IN ('access','refresh')),
  grant_id   TEXT NOT NULL,
  client_id  TEXT NOT NULL REFERENCES oauth_clients(client_id) ON DELETE CASCADE,
  login      TEXT NOT NULL REFERENCES users(login) ON DELETE CASCADE,
  scopes     TEXT NOT NULL,
  resource   TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX oauth_tokens_login ON oauth_tokens(login);
CREATE INDEX oauth_tokens_grant ON oauth_tokens(grant_id);
CREATE INDEX oauth_codes_grant ON oauth_codes(grant_id);
`,
  },
  {
    // Owned by the link-check fidelity work: where on the page a link is, bot blocks, fragment targets.
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
  },
  {
    // Crawl ownership by heartbeat, whatever the PIDs are (PID 1 in a container, a zombie, a reused PID): the
    // owning process writes heartbeat_at (ms since the epoch) with the crawl's live stats; a crawl whose beat is
    // older than 30 s is dead. stop_requested lets any process ask the owner to stop.
    version: 7,
    name: 'crawl heartbeat and stop requests',
    sql: `
ALTER TABLE crawls ADD COLUMN owner_instance TEXT;
ALTER TABLE crawls ADD COLUMN heartbeat_at INTEGER;
ALTER TABLE crawls ADD COLUMN stop_requested INTEGER NOT NULL DEFAULT 0;
`,
  },
  {
    // History (src/store/history.ts). report_links rows are deleted and written again whenever a
    // page is saved, so when a problem was first found lives here: one row per episode of a problem (page, link,
    // reason), opened by the end of the crawl that first found it and closed (fixed_crawl) by the end of the first
    // crawl after which the report no longer held it. A problem that comes back opens a new episode. Episodes keep
    // what the link looked like, so "fixed" can still show it. Crawl ids order the ends: one crawl of a project
    // runs at a time. history_done marks crawls whose end has been recorded here (and, from migration 9, whose
    // webhooks are in the outbox); a crawl marked failed by another process is recorded by the next sweep.
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
  },
  {
    // Owned by the webhooks work (src/store/webhooks.ts). The outbox: one row per (crawl end, matching webhook),
    // written in the transaction that records the crawl's end, sent by a deliverer that claims rows with a lease
    // (a claim whose process died is taken again when the lease runs out). The secret is never stored: the body is
    // signed when it is sent, with the secret the config then gives for the URL. Times in ms since the epoch.
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
  },
  {
    // The unattended loop (schedules, the crawl queue, live update). Needs only migration 7's owner columns.
    // A crawl queued by a schedule or by live update waits with no owner (owner_instance NULL, no heartbeat) until a
    // serving process claims it; triggered_by says who asked for it. schedule_state remembers, per schedule, up to
    // when its runs are accounted for and when it last queued a crawl, so a restart runs a missed one once.
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
  },
  {
    // Conditional re-crawls: what the next crawl asks a page's server with
    // (If-None-Match / If-Modified-Since), a hash of the body it was made from (a 200 with the same one is not
    // parsed or indexed again), the settings it was extracted under, and its links as found, replayed when the
    // page is kept. All NULL for pages stored before: they are fetched and parsed once more as before. Crawl
    // records count the pages kept so.
    version: 11,
    name: 'page validators, body hash and found links for conditional re-crawls',
    sql: `
ALTER TABLE pages ADD COLUMN etag TEXT;
ALTER TABLE pages ADD COLUMN last_modified TEXT;
ALTER TABLE pages ADD COLUMN body_hash TEXT;
ALTER TABLE pages ADD COLUMN revisit_key TEXT;
ALTER TABLE pages ADD COLUMN found_links TEXT;
-- Of a crawl's pages: how many were kept because the site answered 304, or sent the same body again.
ALTER TABLE crawls ADD COLUMN not_modified INTEGER NOT NULL DEFAULT 0;
ALTER TABLE crawls ADD COLUMN unchanged INTEGER NOT NULL DEFAULT 0;
`,
  },
  {
    // Owned by the search work (src/store/search-index). The text of a page's headings (h1–h6), one a line: the
    // ranking reads it for its best matches, as it reads their titles (a page with a heading that is the query
    // ranks high). A table of its own, not a column of pages: a column added to pages sits after the page's text,
    // and reading it for 30 pages a query cost as much as the rest of the title ranking. Not in the full-text
    // index, so nothing is re-indexed; pages stored before get theirs when next crawled.
    version: 12,
    name: 'page headings for ranking',
    sql: `
CREATE TABLE page_headings (
  page_id  INTEGER PRIMARY KEY REFERENCES pages(id) ON DELETE CASCADE,
  headings TEXT NOT NULL
);
`,
  },
  {
    // Owned by the search work (src/store/search-index). Stems at query time: the indexes hold a page's words as
    // written and nothing else (no stem or identifier-part columns, no JS in the triggers' indexing), and a query
    // word is searched as the indexed words that share its stem (stems.ts, from the index's vocabulary). Computing
    // and indexing every page's stems cost as much as the rest of indexing it. search_stemmers stays: it tells
    // which stemmers a query's words are stemmed in. Both indexes are rebuilt from the searchable pages.
    version: 13,
    name: 'full-text indexes of words as written (stems at query time)',
    sql: `
DROP TRIGGER pages_ai;
DROP TRIGGER pages_ad;
DROP TRIGGER pages_au;
DROP TABLE pages_fts;
DROP TABLE pages_title_fts;
CREATE VIRTUAL TABLE pages_fts USING fts5(
  title, superwords, tags, content,
  content='', contentless_delete=1,
  tokenize='unicode61 remove_diacritics 2'
);
INSERT INTO pages_fts(pages_fts, rank) VALUES ('automerge', 16);
INSERT INTO pages_fts(pages_fts, rank) VALUES ('crisismerge', 64);
CREATE VIRTUAL TABLE pages_title_fts USING fts5(
  title, superwords,
  content='', contentless_delete=1,
  tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER pages_ai AFTER INSERT ON pages WHEN new.indexed = 1 AND new.show_in_search = 1 BEGIN
  INSERT INTO pages_fts(rowid, title, superwords, tags, content) VALUES (new.id, new.title, new.superwords, new.tags, new.content);
  INSERT INTO pages_title_fts(rowid, title, superwords) VALUES (new.id, new.title, new.superwords);
  INSERT INTO search_stemmers(stemmer) SELECT svc_stemmer(new.language)
    WHERE svc_stemmer(new.language) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM search_stemmers WHERE stemmer = svc_stemmer(new.language));
END;
CREATE TRIGGER pages_ad AFTER DELETE ON pages WHEN old.indexed = 1 AND old.show_in_search = 1 BEGIN
  DELETE FROM pages_fts WHERE rowid = old.id;
  DELETE FROM pages_title_fts WHERE rowid = old.id;
END;
CREATE TRIGGER pages_au AFTER UPDATE OF indexed, show_in_search, title, language, superwords, tags, content ON pages
WHEN old.indexed IS NOT new.indexed OR old.show_in_search IS NOT new.show_in_search OR old.title IS NOT new.title
  OR old.language IS NOT new.language OR old.superwords IS NOT new.superwords OR old.tags IS NOT new.tags OR old.content IS NOT new.content BEGIN
  DELETE FROM pages_fts WHERE rowid = old.id AND old.indexed = 1 AND old.show_in_search = 1;
  DELETE FROM pages_title_fts WHERE rowid = old.id AND old.indexed = 1 AND old.show_in_search = 1;
  INSERT INTO pages_fts(rowid, title, superwords, tags, content)
    SELECT new.id, new.title, new.superwords, new.tags, new.content WHERE new.indexed = 1 AND new.show_in_search = 1;
  INSERT INTO pages_title_fts(rowid, title, superwords)
    SELECT new.id, new.title, new.superwords WHERE new.indexed = 1 AND new.show_in_search = 1;
  INSERT INTO search_stemmers(stemmer) SELECT svc_stemmer(new.language) WHERE new.indexed = 1 AND new.show_in_search = 1
    AND svc_stemmer(new.language) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM search_stemmers WHERE stemmer = svc_stemmer(new.language));
END;
${FILL_SEARCH_INDEXES}
INSERT INTO pages_fts(pages_fts) VALUES ('optimize');
INSERT INTO pages_title_fts(pages_title_fts) VALUES ('optimize');
`,
  },
  {
    // Owned by the shared-frontier work (src/store/frontier.ts, src/store/host-leases.ts): what several `svc worker`
    // processes share while they crawl one site together. Per crawl: its frontier (every page URL found, each
    // handed to one worker at a time under a lease; done once), each target's max_pages count of URLs handed out,
    // and per host the politeness every worker keeps (slot tokens with leases, the next start, a pause). Times in
    // ms since the epoch. Rows live as long as their crawl's frontier; dropped with it.
    version: 14,
    name: 'shared crawl frontier and host leases',
    sql: `
CREATE TABLE frontier_crawls (
  crawl_id    INTEGER PRIMARY KEY,
  opened_at   INTEGER NOT NULL,
  finished_at INTEGER,               -- set once, by the one worker that saw nothing pending or claimed
  finished_by TEXT
);
CREATE TABLE frontier_targets (
  crawl_id  INTEGER NOT NULL,
  target    TEXT NOT NULL,          -- the target's host[:port]
  max_pages INTEGER NOT NULL,
  handed    INTEGER NOT NULL DEFAULT 0,   -- URLs handed out (a claim taken again after its lease ran out counts once)
  PRIMARY KEY (crawl_id, target)
);
CREATE TABLE frontier (
  id          INTEGER PRIMARY KEY,  -- claims take the oldest first
  crawl_id    INTEGER NOT NULL,
  url         TEXT NOT NULL,
  target      TEXT NOT NULL,
  info        TEXT,                 -- the crawler's own note about the URL, handed back with the claim
  state       TEXT NOT NULL CHECK (state IN ('pending','claimed','done','cut')),
  attempts    INTEGER NOT NULL DEFAULT 0,
  worker      TEXT,                 -- claimed: by whom
  lease_until INTEGER,              -- claimed: another worker may take it after
  UNIQUE (crawl_id, url)
);
CREATE INDEX frontier_next ON frontier(crawl_id, target, state, id);
CREATE INDEX frontier_claimed ON frontier(crawl_id, lease_until) WHERE state = 'claimed';
CREATE TABLE host_pace (
  crawl_id        INTEGER NOT NULL,
  host            TEXT NOT NULL,
  next_start_at   INTEGER NOT NULL DEFAULT 0,
  paused_until    INTEGER NOT NULL DEFAULT 0,
  slow_downs      INTEGER NOT NULL DEFAULT 0,
  concurrency_cap INTEGER,
  slow_delay_ms   INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (crawl_id, host)
);
CREATE TABLE host_slots (
  crawl_id    INTEGER NOT NULL,
  host        TEXT NOT NULL,
  slot        INTEGER NOT NULL,     -- 0 … concurrency-1: the key itself keeps a host's requests at most that many
  token       TEXT NOT NULL UNIQUE, -- random: only the holder frees it
  holder      TEXT NOT NULL,        -- the worker
  lease_until INTEGER NOT NULL,
  PRIMARY KEY (crawl_id, host, slot)
);
CREATE INDEX host_slots_holder ON host_slots(holder);
`,
  },
  {
    // Several workers crawling one site: the lead's plan for the crawl (what a worker that joins needs to know, e.g.
    // whether a target's links are walked), published once its seeds are in the frontier; and each worker's report
    // (its share of the crawl's stats, renewed with its heartbeat), which the lead adds up at the end.
    version: 15,
    name: 'shared crawls: the plan and the workers\' reports',
    sql: `
ALTER TABLE frontier_crawls ADD COLUMN plan TEXT;
CREATE TABLE frontier_workers (
  crawl_id INTEGER NOT NULL,
  worker   TEXT NOT NULL,
  report   TEXT NOT NULL,           -- JSON: the worker's stats and per-target seed results
  seen_at  INTEGER NOT NULL,
  PRIMARY KEY (crawl_id, worker)
);
`,
  },
  {
    // Owned by the OAuth sign-in (src/auth/oauth). A refresh token traded for new ones is kept, marked, until it
    // expires: its second use is then recognised as a theft and ends every token of its sign-in.
    version: 16,
    name: 'oauth: rotated refresh tokens are remembered',
    sql: `
ALTER TABLE oauth_tokens ADD COLUMN rotated_at INTEGER;
`,
  },
];
