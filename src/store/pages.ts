// What a crawl found, read back and deleted: pages (and, through triggers, the full-text index), their links, link
// outcomes. Written once against Sql, so they run on every database; the batched writes of a crawl are each
// database's own (sqlite/writes.ts, pg/writes.ts).
import type { CrawlReader, StoredRevisit } from '../model/crawl-writes.js';
import type { PageIndexState } from '../model/types.js';
import { inList, inParams, type Sql, type SqlValue } from './sql.js';

/**
 * A full crawl decides what the report holds: redirected and skipped/unknown URLs are forgotten unless this crawl
 * (`keepCrawlId`) found them again. The backend applies it when a full crawl completes rather than when it starts,
 * which leaves the same report, except that a crawl killed half way keeps the last complete report intact. Outcomes
 * linked from a page of `keepHosts` (targets that did not reach their end) are kept too.
 */
export async function clearForFullCrawl(
  sql: Sql,
  keepCrawlId: number | null = null,
  keepHosts: readonly string[] = [],
): Promise<number> {
  const found = keepCrawlId === null ? '' : ' AND crawl_id IS DISTINCT FROM @crawl';
  const kept = keepHosts.length
    ? ` AND NOT EXISTS (SELECT 1 FROM links l JOIN pages p ON p.id = l.page_id WHERE l.url = link_outcomes.url AND p.host IN (${inList('h', keepHosts.length)}))`
    : '';
  const params: Record<string, SqlValue> = {
    ...inParams('h', keepHosts),
    ...(keepCrawlId === null ? {} : { crawl: keepCrawlId }),
  };
  return sql.tx(
    async (t) =>
      (await t.run(`DELETE FROM link_outcomes WHERE reason IN ('redirect','skipped','unknown')${found}${kept}`, params))
        .changes,
  );
}

/** After a completed full crawl: pages of `host` the crawl did not see leave the store and the index. */
export async function removePagesNotSeen(sql: Sql, host: string, crawlId: number): Promise<number> {
  return sql.tx(
    async (t) =>
      (await t.run('DELETE FROM pages WHERE host = ? AND (crawl_id IS NULL OR crawl_id <> ?)', [host, crawlId]))
        .changes,
  );
}

/** Per host, the pages a crawl stored or kept (each page is counted once, whichever worker stored it). */
export async function crawlPageCounts(sql: Sql, crawlId: number): Promise<Map<string, number>> {
  const rows = await sql.all<{ host: string; n: number }>(
    'SELECT host, count(*) AS n FROM pages WHERE crawl_id = ? GROUP BY host',
    [crawlId],
  );
  return new Map(rows.map((r) => [r.host, r.n]));
}

/**
 * The stored pages crawl `crawlId` kept as they were, per kind (a 304, or the same body), counted in the store: a
 * page two workers kept counts once.
 */
export async function crawlKeptCounts(sql: Sql, crawlId: number): Promise<{ notModified: number; unchanged: number }> {
  const rows = await sql.all<{ kept_as: string; n: number }>(
    'SELECT kept_as, count(*) AS n FROM pages WHERE kept_crawl_id = ? AND crawl_id = ? GROUP BY kept_as',
    [crawlId, crawlId],
  );
  const n = (kind: string) => Number(rows.find((r) => r.kept_as === kind)?.n ?? 0);
  return { notModified: n('notModified'), unchanged: n('unchanged') };
}

/** Every stored page of a host leaves the store and the index (a host that is no longer crawled). */
export async function removePagesOfHost(sql: Sql, host: string): Promise<number> {
  return sql.tx(async (t) => (await t.run('DELETE FROM pages WHERE host = ?', [host])).changes);
}

/** url → sitemap lastmod of every stored page of a host (for partial crawls). */
export async function sitemapLastmods(sql: Sql, host: string): Promise<Map<string, string | null>> {
  const rows = await sql.all<{ url: string; sitemap_lastmod: string | null }>(
    'SELECT url, sitemap_lastmod FROM pages WHERE host = ?',
    [host],
  );
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
  return (
    (await sql.get(`SELECT 1 AS one FROM link_outcomes WHERE url = ? AND reason = 'ok' AND checked_at >= ?`, [
      url,
      since,
    ])) !== undefined
  );
}

/**
 * What the stored pages among `urls` offer a revisit (validators, body hash, settings key, found links), by URL, in
 * one query: a page with none to replay is left out, and so is a URL not stored.
 */
export async function storedRevisits(sql: Sql, urls: readonly string[]): Promise<Map<string, StoredRevisit>> {
  const unique = [...new Set(urls)];
  if (!unique.length) return new Map();
  const rows = await sql.all<{
    url: string;
    etag: string | null;
    last_modified: string | null;
    body_hash: string | null;
    revisit_key: string;
    found_links: string;
    http_status: number;
  }>(
    `SELECT url, etag, last_modified, body_hash, revisit_key, found_links, http_status FROM pages WHERE url IN (${inList('u', unique.length)}) AND found_links IS NOT NULL AND revisit_key IS NOT NULL`,
    inParams('u', unique),
  );
  return new Map(
    rows.map((row) => [
      row.url,
      {
        etag: row.etag,
        lastModified: row.last_modified,
        bodyHash: row.body_hash,
        key: row.revisit_key,
        found: row.found_links,
        httpStatus: row.http_status,
      },
    ]),
  );
}

/** The one statement that removes a stored page by URL (its tags, links and index entry follow by cascade and triggers). */
export const REMOVE_PAGE = 'DELETE FROM pages WHERE url = ?';

/** Removes the page stored under exactly this URL, with its tags, links and index entry; whether there was one. */
export async function removePageByUrl(sql: Sql, url: string): Promise<boolean> {
  return (await sql.run(REMOVE_PAGE, [url])).changes > 0;
}

/** What the index holds of the first of `urls` that is stored (e.g. a URL as given and in its canonical form). */
export async function pageIndexState(sql: Sql, urls: readonly string[]): Promise<PageIndexState> {
  for (const url of urls) {
    const row = await sql.get<{ indexed: number; show_in_search: number; last_crawled: string }>(
      'SELECT indexed, show_in_search, last_crawled FROM pages WHERE url = ?',
      [url],
    );
    if (row)
      return {
        indexed: row.indexed === 1,
        inSearch: row.indexed === 1 && row.show_in_search === 1,
        lastCrawled: row.last_crawled,
      };
  }
  return { indexed: false, inSearch: false, lastCrawled: null };
}

/** What a crawl reads of what is stored, one query per call: the same on every database. */
export function crawlReaderOf(sql: Sql): CrawlReader {
  return {
    sitemapLastmods: (host) => sitemapLastmods(sql, host),
    pageAnchors: (url) => pageAnchors(sql, url),
    okCheckedSince: (url, since) => okCheckedSince(sql, url, since),
    revisits: (urls) => storedRevisits(sql, urls),
  };
}
