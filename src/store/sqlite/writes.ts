// What a crawl found, written to SQLite: pages with their tags, headings, Markdown and links, the report's ready rows of each
// page, link outcomes, kept/touched/removed pages. Synchronous, on one connection, as the writer thread commits a
// batch (crawl-writer.ts); each is one transaction, or part of the batch's (no savepoint). The full-text index and the
// report's other rows follow through the schema's triggers (migrations/).
import type { KeepWrite, OutcomeWrite, PageWrite } from '../../model/crawl-writes.js';
import { REMOVE_PAGE } from '../pages.js';
import { SEARCHABLE_COLUMNS } from '../pending-index.js';
import { pathWords } from '../search/path-words.js';
import type { SqliteConnection } from './connection.js';

/** The searchable columns of a page: while a crawl runs they wait in page_index_pending. */
const INDEX_COLUMNS = new Set<string>(SEARCHABLE_COLUMNS);
const PAGE_COLUMNS = [
  ['url', 'url'],
  ['host', 'host'],
  ['http_status', 'httpStatus'],
  ['content_type', 'contentType'],
  ['indexed', 'indexed'],
  ['show_in_search', 'showInSearch'],
  ['title', 'title'],
  ['language', 'language'],
  ['tags', 'tags'],
  ['superwords', 'superwords'],
  ['content', 'content'],
  ['path_words', 'pathWords'],
  ['meta', 'meta'],
  ['created', 'created'],
  ['modified', 'modified'],
  ['sitemap_lastmod', 'sitemapLastmod'],
  ['last_crawled', 'lastCrawled'],
  ['crawl_id', 'crawlId'],
  ['anchors', 'anchors'],
  ['etag', 'etag'],
  ['last_modified', 'lastModified'],
  ['body_hash', 'bodyHash'],
  ['revisit_key', 'revisitKey'],
  ['found_links', 'foundLinks'],
] as const;

/**
 * The page upsert. deferIndex: a new page goes in unsearchable and a stored one keeps its searchable columns (the
 * index does not move); the crawl's values go to page_index_pending.
 */
function upsertPageSql(deferIndex: boolean): string {
  const values = PAGE_COLUMNS.map(([c, p]) => (deferIndex && c === 'indexed' ? '0' : `@${p}`));
  const updated = PAGE_COLUMNS.filter(([c]) => c !== 'url' && c !== 'sitemap_lastmod')
    .filter(([c]) => !(deferIndex && INDEX_COLUMNS.has(c)))
    .map(([c]) => `${c} = excluded.${c}`);
  return `INSERT INTO pages (${PAGE_COLUMNS.map(([c]) => c).join(', ')}) VALUES (${values.join(', ')})
    ON CONFLICT(url) DO UPDATE SET ${updated.join(', ')}, sitemap_lastmod = COALESCE(excluded.sitemap_lastmod, pages.sitemap_lastmod)
    RETURNING id`;
}

/** What a deferred write needs: whether a page is stored already, and its pending row (full, or for a new page). */
function pendingStatements(conn: SqliteConnection) {
  return {
    stored: conn.prepare('SELECT 1 FROM pages WHERE url = ?').pluck(),
    set: conn.prepare(`INSERT OR REPLACE INTO page_index_pending (page_id, indexed, show_in_search, fresh, title, language, tags, superwords, content, path_words)
      VALUES (@id, @indexed, @showInSearch, 0, @title, @language, @tags, @superwords, @content, @pathWords)`),
    // A page this crawl adds has its searchable columns in pages already (unsearchable): they are not written twice.
    setFresh: conn.prepare(`INSERT OR REPLACE INTO page_index_pending (page_id, indexed, show_in_search, fresh)
      VALUES (@id, @indexed, @showInSearch, 1)`),
  };
}

/**
 * Saves pages with their tags and links, replacing what an earlier crawl stored for the same URL. One transaction (or part of the open one).
 * deferIndex (a crawl's writes): their searchable columns wait in page_index_pending until the crawl's report is
 * final, and search answers from the index as it was.
 */
export function savePages(conn: SqliteConnection, pages: PageWrite[], deferIndex = false): void {
  if (!pages.length) return;
  const upsert = conn.prepare(upsertPageSql(deferIndex));
  const pending = deferIndex ? pendingStatements(conn) : null;
  const delTags = conn.prepare('DELETE FROM page_tags WHERE page_id = ?');
  const setHeadings = conn.prepare('INSERT OR REPLACE INTO page_headings (page_id, headings) VALUES (?, ?)');
  const delHeadings = conn.prepare('DELETE FROM page_headings WHERE page_id = ?');
  const setContent = conn.prepare('INSERT OR REPLACE INTO page_content (page_id, markdown, outline) VALUES (?, ?, ?)');
  const delContent = conn.prepare('DELETE FROM page_content WHERE page_id = ?');
  const addTag = conn.prepare('INSERT OR IGNORE INTO page_tags (page_id, tag) VALUES (?, ?)');
  const delLinks = conn.prepare('DELETE FROM links WHERE page_id = ?');
  const addLink = conn.prepare('INSERT OR IGNORE INTO links (page_id, url, element, text) VALUES (?, ?, ?, ?)');
  // The link report's ready rows (migration 2) follow the links just written: one set-based refresh per page
  // (a trigger per link row would double the cost of writing links). Every write of `links` goes through here.
  const clearReport = conn.prepare('DELETE FROM report_links WHERE page_id = ?');
  const fillReport = conn.prepare(`
    INSERT OR IGNORE INTO report_links (page_id, url, rank, page_url, host, element, text)
    SELECT l.page_id, l.url, rr.rank, p.url, p.host, l.element, l.text
    FROM links l JOIN link_outcomes o ON o.url = l.url JOIN report_reasons rr ON rr.reason = o.reason JOIN pages p ON p.id = l.page_id
    WHERE l.page_id = ?`);
  const now = new Date().toISOString();
  conn.inTx(() => {
    for (const p of pages) {
      const row = {
        url: p.url,
        host: p.host,
        httpStatus: p.httpStatus,
        contentType: p.contentType,
        indexed: p.indexed ? 1 : 0,
        showInSearch: p.showInSearch ? 1 : 0,
        title: p.title,
        language: p.language,
        tags: p.tags.join(' '),
        superwords: p.superwords.join(' '),
        content: p.content,
        pathWords: pathWords(p.url),
        meta: p.meta ? JSON.stringify(p.meta) : null,
        created: p.created,
        modified: p.modified,
        sitemapLastmod: p.sitemapLastmod,
        lastCrawled: now,
        crawlId: p.crawlId,
        anchors: p.anchors ? JSON.stringify(p.anchors) : null,
        etag: p.revisit?.etag ?? null,
        lastModified: p.revisit?.lastModified ?? null,
        bodyHash: p.revisit?.bodyHash ?? null,
        revisitKey: p.revisit?.key ?? null,
        foundLinks: p.revisit?.found ?? null,
      };
      const fresh = pending !== null && pending.stored.get(p.url) === undefined;
      const { id } = upsert.get(row) as { id: number };
      if (fresh) pending.setFresh.run({ id, indexed: row.indexed, showInSearch: row.showInSearch });
      else if (pending) pending.set.run({ ...row, id });
      delTags.run(id);
      for (const t of p.tags) addTag.run(id, t);
      if (p.headings?.length) setHeadings.run(id, p.headings.join('\n'));
      else delHeadings.run(id);
      if (p.markdown) setContent.run(id, p.markdown, JSON.stringify(p.outline ?? []));
      else delContent.run(id);
      delLinks.run(id);
      for (const l of p.links) addLink.run(id, l.url, l.element, l.text);
      clearReport.run(id);
      fillReport.run(id);
    }
  });
}

/** Records link outcomes (one row per URL; the newest wins). One transaction (or part of the open one). */
export function saveOutcomes(conn: SqliteConnection, outcomes: OutcomeWrite[]): void {
  if (!outcomes.length) return;
  const stmt = conn.prepare(`
    INSERT INTO link_outcomes (url, http_status, reason, message, redirects_to, crawl_id, checked_at, blocked)
    VALUES (@url, @httpStatus, @reason, @message, @redirectsTo, @crawlId, @checkedAt, @blocked)
    ON CONFLICT(url) DO UPDATE SET http_status = excluded.http_status, reason = excluded.reason, message = excluded.message,
      redirects_to = excluded.redirects_to, crawl_id = excluded.crawl_id, checked_at = excluded.checked_at, blocked = excluded.blocked`);
  const insertNew = conn.prepare(`
    INSERT INTO link_outcomes (url, http_status, reason, message, redirects_to, crawl_id, checked_at, blocked)
    VALUES (@url, @httpStatus, @reason, @message, @redirectsTo, @crawlId, @checkedAt, @blocked) ON CONFLICT(url) DO NOTHING`);
  const checkedAt = new Date().toISOString();
  conn.inTx(() => {
    for (const { onlyIfNew, blocked, ...o } of outcomes)
      (onlyIfNew ? insertNew : stmt).run({ ...o, blocked: blocked ? 1 : 0, checkedAt });
  });
}

/**
 * Stored pages a crawl found unchanged (304, or the same body): seen by this crawl and checked now, with the
 * validators to ask with next time. Nothing indexed or linked is written, so neither the index nor the links move.
 */
export function keepPages(conn: SqliteConnection, kept: KeepWrite[]): void {
  if (!kept.length) return;
  const stmt =
    conn.prepare(`UPDATE pages SET crawl_id = @crawlId, last_crawled = @now, sitemap_lastmod = COALESCE(@sitemapLastmod, sitemap_lastmod),
    etag = @etag, last_modified = @lastModified, kept_crawl_id = @crawlId, kept_as = @kind WHERE url = @url`);
  const now = new Date().toISOString();
  conn.inTx(() => {
    for (const k of kept) stmt.run({ ...k, now });
  });
}

/** Marks stored pages as seen by a crawl without rewriting them (e.g. a page the site asked us not to fetch right now). */
export function touchPages(conn: SqliteConnection, urls: string[], crawlId: number): void {
  if (!urls.length) return;
  const stmt = conn.prepare('UPDATE pages SET crawl_id = ? WHERE url = ?');
  conn.inTx(() => {
    for (const u of urls) stmt.run(crawlId, u);
  });
}

/** Removes stored pages by exact URL (a re-crawled page that is now gone or redirects elsewhere). */
export function removePagesByUrl(conn: SqliteConnection, urls: string[]): number {
  if (!urls.length) return 0;
  const stmt = conn.prepare(REMOVE_PAGE);
  return conn.inTx(() => urls.filter((u) => stmt.run(u).changes > 0).length);
}
