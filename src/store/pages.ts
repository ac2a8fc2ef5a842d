// What a crawl found, stored: pages (and, through triggers, the full-text index), their links, link outcomes. The
// reads and deletes the backend and the crawler ask for are written once against Sql; the batched writes of a crawl
// (savePages, saveOutcomes, keepPages, touchPages, removePagesByUrl) are SQLite's own, synchronous, for the writer
// thread.
import type { CrawlReader, KeepWrite, OutcomeWrite, PageWrite, StoredRevisit } from '../model/crawl-writes.js';
import type { PageIndexState } from '../model/types.js';
import type { Store } from './store.js';
import { inList, inParams, type Sql, type SqlValue } from './sql.js';

/** Saves pages with their tags and links, replacing what an earlier crawl stored for the same URL. One transaction. */
export function savePages(store: Store, pages: PageWrite[]): void {
  if (!pages.length) return;
  const upsert = store.prepare(`
    INSERT INTO pages (url, host, http_status, content_type, indexed, show_in_search, title, language, tags, superwords, content, meta, created, modified, sitemap_lastmod, last_crawled, crawl_id, anchors,
      etag, last_modified, body_hash, revisit_key, found_links)
    VALUES (@url, @host, @httpStatus, @contentType, @indexed, @showInSearch, @title, @language, @tags, @superwords, @content, @meta, @created, @modified, @sitemapLastmod, @lastCrawled, @crawlId, @anchors,
      @etag, @lastModified, @bodyHash, @revisitKey, @foundLinks)
    ON CONFLICT(url) DO UPDATE SET host = excluded.host, http_status = excluded.http_status, content_type = excluded.content_type,
      indexed = excluded.indexed, show_in_search = excluded.show_in_search, title = excluded.title, language = excluded.language,
      tags = excluded.tags, superwords = excluded.superwords, content = excluded.content, meta = excluded.meta, created = excluded.created,
      modified = excluded.modified, sitemap_lastmod = COALESCE(excluded.sitemap_lastmod, pages.sitemap_lastmod),
      last_crawled = excluded.last_crawled, crawl_id = excluded.crawl_id, anchors = excluded.anchors,
      etag = excluded.etag, last_modified = excluded.last_modified, body_hash = excluded.body_hash, revisit_key = excluded.revisit_key, found_links = excluded.found_links
    RETURNING id`);
  const delTags = store.prepare('DELETE FROM page_tags WHERE page_id = ?');
  const setHeadings = store.prepare('INSERT OR REPLACE INTO page_headings (page_id, headings) VALUES (?, ?)');
  const delHeadings = store.prepare('DELETE FROM page_headings WHERE page_id = ?');
  const addTag = store.prepare('INSERT OR IGNORE INTO page_tags (page_id, tag) VALUES (?, ?)');
  const delLinks = store.prepare('DELETE FROM links WHERE page_id = ?');
  const addLink = store.prepare('INSERT OR IGNORE INTO links (page_id, url, element, text) VALUES (?, ?, ?, ?)');
  // The link report's ready rows (migration 2) follow the links just written: one set-based refresh per page
  // (a trigger per link row would double the cost of writing links). Every write of `links` goes through here.
  const clearReport = store.prepare('DELETE FROM report_links WHERE page_id = ?');
  const fillReport = store.prepare(`
    INSERT OR IGNORE INTO report_links (page_id, url, rank, page_url, host, element, text)
    SELECT l.page_id, l.url, rr.rank, p.url, p.host, l.element, l.text
    FROM links l JOIN link_outcomes o ON o.url = l.url JOIN report_reasons rr ON rr.reason = o.reason JOIN pages p ON p.id = l.page_id
    WHERE l.page_id = ?`);
  const now = new Date().toISOString();
  store.tx(() => {
    for (const p of pages) {
      const { id } = upsert.get({
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
      }) as { id: number };
      delTags.run(id);
      for (const t of p.tags) addTag.run(id, t);
      if (p.headings?.length) setHeadings.run(id, p.headings.join('\n'));
      else delHeadings.run(id);
      delLinks.run(id);
      for (const l of p.links) addLink.run(id, l.url, l.element, l.text);
      clearReport.run(id);
      fillReport.run(id);
    }
  });
}

/** Records link outcomes (one row per URL; the newest wins). One transaction. */
export function saveOutcomes(store: Store, outcomes: OutcomeWrite[]): void {
  if (!outcomes.length) return;
  const stmt = store.prepare(`
    INSERT INTO link_outcomes (url, http_status, reason, message, redirects_to, crawl_id, checked_at, blocked)
    VALUES (@url, @httpStatus, @reason, @message, @redirectsTo, @crawlId, @checkedAt, @blocked)
    ON CONFLICT(url) DO UPDATE SET http_status = excluded.http_status, reason = excluded.reason, message = excluded.message,
      redirects_to = excluded.redirects_to, crawl_id = excluded.crawl_id, checked_at = excluded.checked_at, blocked = excluded.blocked`);
  const insertNew = store.prepare(`
    INSERT INTO link_outcomes (url, http_status, reason, message, redirects_to, crawl_id, checked_at, blocked)
    VALUES (@url, @httpStatus, @reason, @message, @redirectsTo, @crawlId, @checkedAt, @blocked) ON CONFLICT(url) DO NOTHING`);
  const checkedAt = new Date().toISOString();
  store.tx(() => {
    for (const { onlyIfNew, blocked, ...o } of outcomes) (onlyIfNew ? insertNew : stmt).run({ ...o, blocked: blocked ? 1 : 0, checkedAt });
  });
}

/**
 * A full crawl decides what the report holds: redirected and skipped/unknown URLs are forgotten unless this crawl
 * (`keepCrawlId`) found them again. The backend applies it when a full crawl completes rather than when it starts,
 * which leaves the same report, except that a crawl killed half way keeps the last complete report intact. Outcomes
 * linked from a page of `keepHosts` (targets that did not reach their end) are kept too.
 */
export async function clearForFullCrawl(sql: Sql, keepCrawlId: number | null = null, keepHosts: readonly string[] = []): Promise<number> {
  const found = keepCrawlId === null ? '' : ' AND crawl_id IS DISTINCT FROM @crawl';
  const kept = keepHosts.length
    ? ` AND NOT EXISTS (SELECT 1 FROM links l JOIN pages p ON p.id = l.page_id WHERE l.url = link_outcomes.url AND p.host IN (${inList('h', keepHosts.length)}))`
    : '';
  const params: Record<string, SqlValue> = { ...inParams('h', keepHosts), ...(keepCrawlId === null ? {} : { crawl: keepCrawlId }) };
  return sql.tx(async (t) => (await t.run(`DELETE FROM link_outcomes WHERE reason IN ('redirect','skipped','unknown')${found}${kept}`, params)).changes);
}

/** After a completed full crawl: pages of `host` the crawl did not see leave the store and the index. */
export async function removePagesNotSeen(sql: Sql, host: string, crawlId: number): Promise<number> {
  return sql.tx(async (t) => (await t.run('DELETE FROM pages WHERE host = ? AND (crawl_id IS NULL OR crawl_id <> ?)', [host, crawlId])).changes);
}

/** Per host, the pages a crawl stored or kept (each page is counted once, whichever worker stored it). */
export async function crawlPageCounts(sql: Sql, crawlId: number): Promise<Map<string, number>> {
  const rows = await sql.all<{ host: string; n: number }>('SELECT host, count(*) AS n FROM pages WHERE crawl_id = ? GROUP BY host', [crawlId]);
  return new Map(rows.map((r) => [r.host, r.n]));
}

/** Every stored page of a host leaves the store and the index (a host that is no longer crawled). */
export async function removePagesOfHost(sql: Sql, host: string): Promise<number> {
  return sql.tx(async (t) => (await t.run('DELETE FROM pages WHERE host = ?', [host])).changes);
}

/** url → sitemap lastmod of every stored page of a host (for partial crawls). */
export async function sitemapLastmods(sql: Sql, host: string): Promise<Map<string, string | null>> {
  const rows = await sql.all<{ url: string; sitemap_lastmod: string | null }>('SELECT url, sitemap_lastmod FROM pages WHERE host = ?', [host]);
  return new Map(rows.map((r) => [r.url, r.sitemap_lastmod]));
}

/** The fragment targets stored with a page at its last crawl; null when there is no such page or none were collected. */
export async function pageAnchors(sql: Sql, url: string): Promise<string[] | null> {
  const row = await sql.get<{ anchors: string | null }>('SELECT anchors FROM pages WHERE url = ?', [url]);
  if (!row?.anchors) return null;
  try {
    const v: unknown = JSON.parse(row.anchors);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : null;
  } catch {
    return null;
  }
}

/** Whether the stored outcome of a link URL is `ok` and was checked at or after `since` (ISO 8601): the external link cache. */
export async function okCheckedSince(sql: Sql, url: string, since: string): Promise<boolean> {
  return (await sql.get(`SELECT 1 AS one FROM link_outcomes WHERE url = ? AND reason = 'ok' AND checked_at >= ?`, [url, since])) !== undefined;
}

/** What a stored page offers a revisit: its validators, body hash, settings key and found links; null when it has none to replay. */
export async function storedRevisit(sql: Sql, url: string): Promise<StoredRevisit | null> {
  const row = await sql.get<{ etag: string | null; last_modified: string | null; body_hash: string | null; revisit_key: string; found_links: string; http_status: number }>(
    'SELECT etag, last_modified, body_hash, revisit_key, found_links, http_status FROM pages WHERE url = ? AND found_links IS NOT NULL AND revisit_key IS NOT NULL',
    [url],
  );
  if (!row) return null;
  return { etag: row.etag, lastModified: row.last_modified, bodyHash: row.body_hash, key: row.revisit_key, found: row.found_links, httpStatus: row.http_status };
}

const REMOVE_PAGE = 'DELETE FROM pages WHERE url = ?';

/** Removes the page stored under exactly this URL, with its tags, links and index entry; whether there was one. */
export async function removePageByUrl(sql: Sql, url: string): Promise<boolean> {
  return (await sql.run(REMOVE_PAGE, [url])).changes > 0;
}

/** What the index holds of the first of `urls` that is stored (e.g. a URL as given and in its canonical form). */
export async function pageIndexState(sql: Sql, urls: readonly string[]): Promise<PageIndexState> {
  for (const url of urls) {
    const row = await sql.get<{ indexed: number; show_in_search: number; last_crawled: string }>('SELECT indexed, show_in_search, last_crawled FROM pages WHERE url = ?', [url]);
    if (row) return { indexed: row.indexed === 1, inSearch: row.indexed === 1 && row.show_in_search === 1, lastCrawled: row.last_crawled };
  }
  return { indexed: false, inSearch: false, lastCrawled: null };
}

// ---------------------------------------------------------------------------------------------------------------
// SQLite's crawl writes: synchronous, on one connection, as the writer thread commits a batch (a PostgreSQL store
// has a crawl writer of its own). Each is one transaction, or a savepoint of the batch's.

/**
 * Stored pages a crawl found unchanged (304, or the same body): seen by this crawl and checked now, with the
 * validators to ask with next time. Nothing indexed or linked is written, so neither the index nor the links move.
 */
export function keepPages(store: Store, kept: KeepWrite[]): void {
  if (!kept.length) return;
  const stmt = store.prepare(`UPDATE pages SET crawl_id = @crawlId, last_crawled = @now, sitemap_lastmod = COALESCE(@sitemapLastmod, sitemap_lastmod),
    etag = @etag, last_modified = @lastModified WHERE url = @url`);
  const now = new Date().toISOString();
  store.tx(() => {
    for (const k of kept) stmt.run({ ...k, now });
  });
}

/** Marks stored pages as seen by a crawl without rewriting them (e.g. a page the site asked us not to fetch right now). */
export function touchPages(store: Store, urls: string[], crawlId: number): void {
  if (!urls.length) return;
  const stmt = store.prepare('UPDATE pages SET crawl_id = ? WHERE url = ?');
  store.tx(() => {
    for (const u of urls) stmt.run(crawlId, u);
  });
}

/** Removes stored pages by exact URL (a re-crawled page that is now gone or redirects elsewhere). */
export function removePagesByUrl(store: Store, urls: string[]): number {
  if (!urls.length) return 0;
  const stmt = store.prepare(REMOVE_PAGE);
  return store.tx(() => urls.filter((u) => stmt.run(u).changes > 0).length);
}

/** What a crawl reads of what is stored, one query per call: the same on every database. */
export function crawlReaderOf(sql: Sql): CrawlReader {
  return {
    sitemapLastmods: (host) => sitemapLastmods(sql, host),
    pageAnchors: (url) => pageAnchors(sql, url),
    okCheckedSince: (url, since) => okCheckedSince(sql, url, since),
    revisit: (url) => storedRevisit(sql, url),
  };
}
