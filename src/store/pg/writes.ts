// What a crawl found, written to PostgreSQL: the same rows as the SQLite writes of pages.ts (pages with their tags,
// headings and links, the report's ready rows of each page, link outcomes, kept/touched/removed pages, the crawl's
// live stats), set-based where a page has many rows (its links, a batch's outcomes). The search vector and the
// report's other rows follow through the schema's triggers (migrations.ts).
import type { KeepWrite, OutcomeWrite, PageWrite } from '../../model/crawl-writes.js';
import type { CrawlStats } from '../../model/types.js';
import type { Sql } from '../sql.js';
import { pgText } from './pg-sql.js';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/**
 * JSON text for PostgreSQL's json functions, its strings made what a bound string becomes: no NUL, and U+FFFD for a
 * lone surrogate (JSON.stringify escapes one as \udxxx, which PostgreSQL refuses to turn into text).
 */
const json = (v: unknown) => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'string' ? pgText(x).replace(LONE_SURROGATE, '\ufffd') : x));

const UPSERT_PAGE = `
INSERT INTO pages (url, host, http_status, content_type, indexed, show_in_search, title, language, tags, superwords, content, meta, created, modified, sitemap_lastmod, last_crawled, crawl_id, anchors,
  etag, last_modified, body_hash, revisit_key, found_links)
VALUES (@url, @host, @httpStatus, @contentType, @indexed, @showInSearch, @title, @language, @tags, @superwords, @content, @meta, @created, @modified, @sitemapLastmod, @lastCrawled, @crawlId, @anchors,
  @etag, @lastModified, @bodyHash, @revisitKey, @foundLinks)
ON CONFLICT (url) DO UPDATE SET host = excluded.host, http_status = excluded.http_status, content_type = excluded.content_type,
  indexed = excluded.indexed, show_in_search = excluded.show_in_search, title = excluded.title, language = excluded.language,
  tags = excluded.tags, superwords = excluded.superwords, content = excluded.content, meta = excluded.meta, created = excluded.created,
  modified = excluded.modified, sitemap_lastmod = COALESCE(excluded.sitemap_lastmod, pages.sitemap_lastmod),
  last_crawled = excluded.last_crawled, crawl_id = excluded.crawl_id, anchors = excluded.anchors,
  etag = excluded.etag, last_modified = excluded.last_modified, body_hash = excluded.body_hash, revisit_key = excluded.revisit_key, found_links = excluded.found_links
RETURNING id`;

/** Saves pages with their tags, headings and links, replacing what an earlier crawl stored for the same URL. */
export async function savePages(sql: Sql, pages: PageWrite[]): Promise<void> {
  const now = new Date().toISOString();
  for (const p of pages) {
    const row = await sql.get<{ id: number }>(UPSERT_PAGE, {
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
      meta: p.meta ? json(p.meta) : null,
      created: p.created,
      modified: p.modified,
      sitemapLastmod: p.sitemapLastmod,
      lastCrawled: now,
      crawlId: p.crawlId,
      anchors: p.anchors ? json(p.anchors) : null,
      etag: p.revisit?.etag ?? null,
      lastModified: p.revisit?.lastModified ?? null,
      bodyHash: p.revisit?.bodyHash ?? null,
      revisitKey: p.revisit?.key ?? null,
      foundLinks: p.revisit?.found ?? null,
    });
    const id = row!.id;
    await sql.run('DELETE FROM page_tags WHERE page_id = ?', [id]);
    if (p.tags.length) {
      await sql.run('INSERT INTO page_tags (page_id, tag) SELECT ?, t FROM json_array_elements_text(?::json) AS t ON CONFLICT DO NOTHING', [id, json(p.tags)]);
    }
    if (p.headings?.length) {
      await sql.run('INSERT INTO page_headings (page_id, headings) VALUES (?, ?) ON CONFLICT (page_id) DO UPDATE SET headings = excluded.headings', [
        id,
        p.headings.join('\n'),
      ]);
    } else await sql.run('DELETE FROM page_headings WHERE page_id = ?', [id]);
    await sql.run('DELETE FROM links WHERE page_id = ?', [id]);
    if (p.links.length) {
      await sql.run(
        `INSERT INTO links (page_id, url, element, text) SELECT ?, x.url, x.element, x.text FROM json_to_recordset(?::json) AS x(url text, element text, text text)
         ON CONFLICT DO NOTHING`,
        [id, json(p.links.map((l) => ({ url: l.url, element: l.element, text: l.text })))],
      );
    }
    // The link report's ready rows follow the links just written (as pages.ts does: one set-based refresh per page).
    await sql.run('DELETE FROM report_links WHERE page_id = ?', [id]);
    await sql.run(
      `INSERT INTO report_links (page_id, url, rank, page_url, host, element, text)
       SELECT l.page_id, l.url, rr.rank, p.url, p.host, l.element, l.text
       FROM links l JOIN link_outcomes o ON o.url = l.url JOIN report_reasons rr ON rr.reason = o.reason JOIN pages p ON p.id = l.page_id
       WHERE l.page_id = ? ON CONFLICT DO NOTHING`,
      [id],
    );
  }
}

const OUTCOME_COLUMNS = `x.url, x.http_status, x.reason, x.message, x.redirects_to, x.crawl_id, x.checked_at, x.blocked
  FROM json_to_recordset(?::json) AS x(url text, http_status bigint, reason text, message text, redirects_to text, crawl_id bigint, checked_at text, blocked integer)`;

/**
 * Records link outcomes (one row per URL; the newest wins; an `onlyIfNew` one only where none is stored), in the
 * order given: consecutive outcomes of one kind go in one statement (a URL given twice in it counts once).
 */
export async function saveOutcomes(sql: Sql, outcomes: OutcomeWrite[]): Promise<void> {
  const checkedAt = new Date().toISOString();
  for (let i = 0; i < outcomes.length; ) {
    const onlyIfNew = !!outcomes[i]!.onlyIfNew;
    const run = new Map<string, object>();
    for (; i < outcomes.length && !!outcomes[i]!.onlyIfNew === onlyIfNew; i++) {
      const o = outcomes[i]!;
      // The newest of a URL wins; of outcomes only written when new, the first.
      if (onlyIfNew && run.has(o.url)) continue;
      run.set(o.url, {
        url: o.url,
        http_status: o.httpStatus,
        reason: o.reason,
        message: o.message,
        redirects_to: o.redirectsTo,
        crawl_id: o.crawlId,
        checked_at: checkedAt,
        blocked: o.blocked ? 1 : 0,
      });
    }
    await sql.run(
      `INSERT INTO link_outcomes (url, http_status, reason, message, redirects_to, crawl_id, checked_at, blocked)
       SELECT ${OUTCOME_COLUMNS}
       ON CONFLICT (url) DO ${
         onlyIfNew
           ? 'NOTHING'
           : `UPDATE SET http_status = excluded.http_status, reason = excluded.reason, message = excluded.message,
         redirects_to = excluded.redirects_to, crawl_id = excluded.crawl_id, checked_at = excluded.checked_at, blocked = excluded.blocked`
       }`,
      [json([...run.values()])],
    );
  }
}

/** Stored pages a crawl found unchanged: seen by this crawl and checked now, with the validators to ask with next time. */
export async function keepPages(sql: Sql, kept: KeepWrite[]): Promise<void> {
  if (!kept.length) return;
  await sql.run(
    `UPDATE pages SET crawl_id = x.crawl_id, last_crawled = ?, sitemap_lastmod = COALESCE(x.sitemap_lastmod, pages.sitemap_lastmod),
       etag = x.etag, last_modified = x.last_modified
     FROM json_to_recordset(?::json) AS x(url text, crawl_id bigint, sitemap_lastmod text, etag text, last_modified text)
     WHERE pages.url = x.url`,
    [
      new Date().toISOString(),
      json(kept.map((k) => ({ url: k.url, crawl_id: k.crawlId, sitemap_lastmod: k.sitemapLastmod, etag: k.etag, last_modified: k.lastModified }))),
    ],
  );
}

/** Marks stored pages as seen by a crawl without rewriting them. */
export async function touchPages(sql: Sql, urls: string[], crawlId: number): Promise<void> {
  if (!urls.length) return;
  await sql.run('UPDATE pages SET crawl_id = ? WHERE url IN (SELECT json_array_elements_text(?::json))', [crawlId, json(urls)]);
}

/** Removes stored pages by exact URL, with their tags, links, headings and report rows; how many there were. */
export async function removePagesByUrl(sql: Sql, urls: string[]): Promise<number> {
  if (!urls.length) return 0;
  return (await sql.run('DELETE FROM pages WHERE url IN (SELECT json_array_elements_text(?::json))', [json(urls)])).changes;
}

/** The crawl's live stats and heartbeat (as crawls.ts updateCrawlStats). */
export async function updateCrawlStats(sql: Sql, id: number, stats: CrawlStats): Promise<void> {
  await sql.run('UPDATE crawls SET pages = ?, links = ?, errors = ?, not_modified = ?, unchanged = ?, stats = ?, heartbeat_at = ? WHERE id = ?', [
    stats.pages,
    stats.links,
    stats.errors,
    stats.notModified ?? 0,
    stats.unchanged ?? 0,
    stats.targets ? json(stats.targets) : null,
    Date.now(),
    id,
  ]);
}
