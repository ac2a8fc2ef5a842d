// What a crawl found, written to PostgreSQL: the same rows as sqlite/writes.ts writes (pages with their tags,
// headings and links, the report's ready rows of each page, link outcomes, kept/touched/removed pages, the crawl's
// live stats), set-based where a page has many rows (its links, a batch's outcomes). The search vector and the
// report's other rows follow through the schema's triggers (migrations/).
import type { KeepWrite, OutcomeWrite, PageWrite } from '../../model/crawl-writes.js';
import type { CrawlStats } from '../../model/types.js';
import type { Sql } from '../sql.js';
import { SEARCHABLE_COLUMNS } from '../pending-index.js';
import { pgText } from './pg-sql.js';
import { pathWords } from '../search/path-words.js';
import { addSearchWords, pageWords, type SeenWords } from './search-words.js';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/**
 * JSON text for PostgreSQL's json functions, its strings made what a bound string becomes: no NUL, and U+FFFD for a
 * lone surrogate (JSON.stringify escapes one as \udxxx, which PostgreSQL refuses to turn into text).
 */
const json = (v: unknown) =>
  JSON.stringify(v, (_k, x: unknown) => (typeof x === 'string' ? pgText(x).replace(LONE_SURROGATE, '\ufffd') : x));

/** The page columns a batch upsert reads from its JSON rows, with their types. */
const PAGE_COLUMNS: [string, string][] = [
  ['url', 'text'],
  ['host', 'text'],
  ['http_status', 'bigint'],
  ['content_type', 'text'],
  ['indexed', 'integer'],
  ['show_in_search', 'integer'],
  ['title', 'text'],
  ['language', 'text'],
  ['tags', 'text'],
  ['superwords', 'text'],
  ['content', 'text'],
  ['path_words', 'text'],
  ['meta', 'text'],
  ['created', 'text'],
  ['modified', 'text'],
  ['sitemap_lastmod', 'text'],
  ['last_crawled', 'text'],
  ['crawl_id', 'bigint'],
  ['anchors', 'text'],
  ['etag', 'text'],
  ['last_modified', 'text'],
  ['body_hash', 'text'],
  ['revisit_key', 'text'],
  ['found_links', 'text'],
];
const KEEP_STORED = new Set(['url', 'sitemap_lastmod']);
/** The searchable columns of a page, with their types: while a crawl runs they wait in page_index_pending. */
const INDEXED = new Set<string>(SEARCHABLE_COLUMNS);
const INDEX_COLUMNS = PAGE_COLUMNS.filter(([c]) => INDEXED.has(c));

/**
 * The page upsert. deferIndex: a new page goes in unsearchable and a stored one keeps its searchable columns (its
 * vector does not move); the crawl's values go to page_index_pending.
 */
function upsertPagesSql(deferIndex: boolean): string {
  const values = PAGE_COLUMNS.map(([c]) => (deferIndex && c === 'indexed' ? '0' : `x.${c}`));
  const updated = PAGE_COLUMNS.filter(([c]) => !KEEP_STORED.has(c) && !(deferIndex && INDEXED.has(c)));
  return `
INSERT INTO pages (${PAGE_COLUMNS.map(([c]) => c).join(', ')})
SELECT ${values.join(', ')}
FROM json_to_recordset(?::json) AS x(${PAGE_COLUMNS.map(([c, t]) => `${c} ${t}`).join(', ')})
ON CONFLICT (url) DO UPDATE SET ${updated.map(([c]) => `${c} = excluded.${c}`).join(', ')}, sitemap_lastmod = COALESCE(excluded.sitemap_lastmod, pages.sitemap_lastmod)
RETURNING id, url, (xmax = 0) AS fresh`;
}

const SET_PENDING = `
INSERT INTO page_index_pending (page_id, fresh, ${INDEX_COLUMNS.map(([c]) => c).join(', ')})
SELECT x.page_id, x.fresh, ${INDEX_COLUMNS.map(([c]) => `x.${c}`).join(', ')}
FROM json_to_recordset(?::json) AS x(page_id bigint, fresh integer, ${INDEX_COLUMNS.map(([c, t]) => `${c} ${t}`).join(', ')})
ON CONFLICT (page_id) DO UPDATE SET fresh = excluded.fresh, ${INDEX_COLUMNS.map(([c]) => `${c} = excluded.${c}`).join(', ')}`;

/**
 * Saves pages with their tags, headings and links, replacing what an earlier crawl stored for the same URL: a few
 * set-based statements for the whole batch (a page given twice counts as its last, as writing them in turn would).
 * `seen`: the words a crawl writer has already added to search_words, not sent again.
 */
export async function savePages(sql: Sql, pages: PageWrite[], deferIndex = false, seen?: SeenWords): Promise<void> {
  if (!pages.length) return;
  const now = new Date().toISOString();
  const byUrl = new Map<string, PageWrite>();
  for (const p of pages) {
    byUrl.delete(p.url);
    byUrl.set(p.url, p);
  }
  const written = [...byUrl.values()].map((p) => ({
    url: p.url,
    host: p.host,
    http_status: p.httpStatus,
    content_type: p.contentType,
    indexed: p.indexed ? 1 : 0,
    show_in_search: p.showInSearch ? 1 : 0,
    title: p.title,
    language: p.language,
    tags: p.tags.join(' '),
    superwords: p.superwords.join(' '),
    content: p.content,
    path_words: pathWords(p.url),
    meta: p.meta ? json(p.meta) : null,
    created: p.created,
    modified: p.modified,
    sitemap_lastmod: p.sitemapLastmod,
    last_crawled: now,
    crawl_id: p.crawlId,
    anchors: p.anchors ? json(p.anchors) : null,
    etag: p.revisit?.etag ?? null,
    last_modified: p.revisit?.lastModified ?? null,
    body_hash: p.revisit?.bodyHash ?? null,
    revisit_key: p.revisit?.key ?? null,
    found_links: p.revisit?.found ?? null,
  }));
  const rows = await sql.all<{ id: number; url: string; fresh: boolean }>(upsertPagesSql(deferIndex), [json(written)]);
  const saved = rows.map((r) => ({ id: r.id, page: byUrl.get(r.url)! }));
  if (deferIndex) {
    const byRow = new Map(written.map((w) => [w.url, w]));
    await sql.run(SET_PENDING, [
      json(
        // A page this crawl added has its searchable columns in pages already (unsearchable): not sent twice.
        rows.map((r) => {
          const w = byRow.get(r.url)!;
          const kept = r.fresh
            ? INDEX_COLUMNS.filter(([c]) => c === 'indexed' || c === 'show_in_search')
            : INDEX_COLUMNS;
          return {
            page_id: r.id,
            fresh: r.fresh ? 1 : 0,
            ...Object.fromEntries(kept.map(([c]) => [c, w[c as keyof typeof w]])),
          };
        }),
      ),
    ]);
  }
  const words = pageWords([...byUrl.values()], pathWords);
  await addSearchWords(sql, seen ? seen.unseen(words) : words);
  const ids = json(saved.map((s) => s.id));
  const IN_IDS = 'IN (SELECT json_array_elements_text(?::json)::bigint)';

  await sql.run(`DELETE FROM page_tags WHERE page_id ${IN_IDS}`, [ids]);
  const tags = saved.flatMap(({ id, page }) => page.tags.map((tag) => ({ page_id: id, tag })));
  if (tags.length) {
    await sql.run(
      'INSERT INTO page_tags (page_id, tag) SELECT x.page_id, x.tag FROM json_to_recordset(?::json) AS x(page_id bigint, tag text) ON CONFLICT DO NOTHING',
      [json(tags)],
    );
  }

  const headings = saved
    .filter(({ page }) => page.headings?.length)
    .map(({ id, page }) => ({ page_id: id, headings: page.headings!.join('\n') }));
  await sql.run(`DELETE FROM page_headings WHERE page_id ${IN_IDS}`, [
    json(saved.filter(({ page }) => !page.headings?.length).map((s) => s.id)),
  ]);
  if (headings.length) {
    await sql.run(
      `INSERT INTO page_headings (page_id, headings) SELECT x.page_id, x.headings FROM json_to_recordset(?::json) AS x(page_id bigint, headings text)
       ON CONFLICT (page_id) DO UPDATE SET headings = excluded.headings`,
      [json(headings)],
    );
  }

  const contents = saved
    .filter(({ page }) => page.markdown)
    .map(({ id, page }) => ({ page_id: id, markdown: page.markdown, outline: json(page.outline ?? []) }));
  await sql.run(`DELETE FROM page_content WHERE page_id ${IN_IDS}`, [
    json(saved.filter(({ page }) => !page.markdown).map((s) => s.id)),
  ]);
  if (contents.length) {
    await sql.run(
      `INSERT INTO page_content (page_id, markdown, outline) SELECT x.page_id, x.markdown, x.outline FROM json_to_recordset(?::json) AS x(page_id bigint, markdown text, outline text)
       ON CONFLICT (page_id) DO UPDATE SET markdown = excluded.markdown, outline = excluded.outline`,
      [json(contents)],
    );
  }

  await sql.run(`DELETE FROM links WHERE page_id ${IN_IDS}`, [ids]);
  const links = saved.flatMap(({ id, page }) =>
    page.links.map((l) => ({ page_id: id, url: l.url, element: l.element, text: l.text })),
  );
  if (links.length) {
    await sql.run(
      `INSERT INTO links (page_id, url, element, text) SELECT x.page_id, x.url, x.element, x.text
       FROM json_to_recordset(?::json) AS x(page_id bigint, url text, element text, text text) ON CONFLICT DO NOTHING`,
      [json(links)],
    );
  }

  // The link report's ready rows follow the links just written (as sqlite/writes.ts refreshes them per page).
  await sql.run(`DELETE FROM report_links WHERE page_id ${IN_IDS}`, [ids]);
  await sql.run(
    `INSERT INTO report_links (page_id, url, rank, page_url, host, element, text)
     SELECT l.page_id, l.url, rr.rank, p.url, p.host, l.element, l.text
     FROM links l JOIN link_outcomes o ON o.url = l.url JOIN report_reasons rr ON rr.reason = o.reason JOIN pages p ON p.id = l.page_id
     WHERE l.page_id ${IN_IDS} ON CONFLICT DO NOTHING`,
    [ids],
  );
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
       etag = x.etag, last_modified = x.last_modified, kept_crawl_id = x.crawl_id, kept_as = x.kind
     FROM json_to_recordset(?::json) AS x(url text, crawl_id bigint, sitemap_lastmod text, etag text, last_modified text, kind text)
     WHERE pages.url = x.url`,
    [
      new Date().toISOString(),
      json(
        kept.map((k) => ({
          url: k.url,
          crawl_id: k.crawlId,
          sitemap_lastmod: k.sitemapLastmod,
          etag: k.etag,
          last_modified: k.lastModified,
          kind: k.kind,
        })),
      ),
    ],
  );
}

/** Marks stored pages as seen by a crawl without rewriting them. */
export async function touchPages(sql: Sql, urls: string[], crawlId: number): Promise<void> {
  if (!urls.length) return;
  await sql.run('UPDATE pages SET crawl_id = ? WHERE url IN (SELECT json_array_elements_text(?::json))', [
    crawlId,
    json(urls),
  ]);
}

/** Removes stored pages by exact URL, with their tags, links, headings and report rows; how many there were. */
export async function removePagesByUrl(sql: Sql, urls: string[]): Promise<number> {
  if (!urls.length) return 0;
  return (await sql.run('DELETE FROM pages WHERE url IN (SELECT json_array_elements_text(?::json))', [json(urls)]))
    .changes;
}

/** The crawl's live stats and heartbeat (as crawls.ts updateCrawlStats). */
export async function updateCrawlStats(sql: Sql, id: number, stats: CrawlStats): Promise<void> {
  await sql.run(
    'UPDATE crawls SET pages = ?, links = ?, errors = ?, not_modified = ?, unchanged = ?, retries = ?, stats = ?, heartbeat_at = ? WHERE id = ?',
    [
      stats.pages,
      stats.links,
      stats.errors,
      stats.notModified ?? 0,
      stats.unchanged ?? 0,
      stats.retries ?? 0,
      stats.targets ? json(stats.targets) : null,
      Date.now(),
      id,
    ],
  );
}
