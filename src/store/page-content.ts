// Reads of stored pages for reading the site: one page's Markdown and outline (page_content, migration 35; a page
// without them gives its plain text), the pages under an address prefix in address order, paged by the last
// address seen, and the outlines of a few pages (a search hit's best section). Written once against Sql.
import type { OutlineEntry, StoredPageContent, StoredPageSummary } from '../model/page-content.js';
import { inList, inParams, type Sql, type SqlValue } from './sql.js';

/** The highest character: `prefix + MAX_CHAR` is above every address that starts with prefix, in byte order. */
const MAX_CHAR = '\u{10FFFF}';

function parseOutline(raw: string | null): OutlineEntry[] {
  if (!raw) return [];
  try {
    const v: unknown = JSON.parse(raw);
    return Array.isArray(v) ? (v as OutlineEntry[]) : [];
  } catch {
    return [];
  }
}

interface ContentRow {
  url: string;
  title: string;
  language: string | null;
  last_crawled: string;
  indexed: number;
  show_in_search: number;
  content: string;
  markdown: string | null;
  outline: string | null;
}

/** The page stored under exactly this URL, on one of `hosts`, or null. */
export async function readPageContent(
  sql: Sql,
  url: string,
  hosts: readonly string[],
): Promise<StoredPageContent | null> {
  if (!hosts.length) return null;
  const row = await sql.get<ContentRow>(
    `SELECT p.url, p.title, p.language, p.last_crawled, p.indexed, p.show_in_search, p.content, c.markdown, c.outline
     FROM pages p LEFT JOIN page_content c ON c.page_id = p.id WHERE p.url = @url AND p.host IN (${inList('h', hosts.length)})`,
    { url, ...inParams('h', hosts) },
  );
  if (!row) return null;
  return {
    url: row.url,
    title: row.title,
    lang: row.language,
    lastCrawled: row.last_crawled,
    inSearch: row.indexed === 1 && row.show_in_search === 1,
    markdown: row.markdown ?? row.content ?? '',
    outline: row.markdown === null ? [] : parseOutline(row.outline),
  };
}

export interface PageListRead {
  /** Address prefixes (each a full URL prefix): a page under any of them is listed. */
  prefixes: readonly string[];
  /** Only pages after this address. */
  after: string | null;
  limit: number;
  /** Only pages in search (indexed and shown). */
  inSearchOnly: boolean;
}

/** Pages under the prefixes in address order, one page of them, and how many there are in all. */
export async function listStoredPages(
  sql: Sql,
  read: PageListRead,
): Promise<{ pages: StoredPageSummary[]; total: number }> {
  if (!read.prefixes.length) return { pages: [], total: 0 };
  const params: Record<string, SqlValue> = {};
  const ranges = read.prefixes.map((p, i) => {
    params[`lo${i}`] = p;
    params[`hi${i}`] = p + MAX_CHAR;
    return `(url >= @lo${i} AND url < @hi${i})`;
  });
  const where = `(${ranges.join(' OR ')})${read.inSearchOnly ? ' AND indexed = 1 AND show_in_search = 1' : ''}`;
  return sql.snapshot(async (t) => {
    const rows = await t.all<{
      url: string;
      title: string;
      last_crawled: string;
      indexed: number;
      show_in_search: number;
    }>(
      `SELECT url, title, last_crawled, indexed, show_in_search FROM pages WHERE ${where}${read.after === null ? '' : ' AND url > @after'} ORDER BY url LIMIT @limit`,
      { ...params, ...(read.after === null ? {} : { after: read.after }), limit: read.limit },
    );
    const total = await t.get<{ n: number }>(`SELECT count(*) AS n FROM pages WHERE ${where}`, params);
    return {
      pages: rows.map((r) => ({
        url: r.url,
        title: r.title,
        lastCrawled: r.last_crawled,
        inSearch: r.indexed === 1 && r.show_in_search === 1,
      })),
      total: Number(total?.n ?? 0),
    };
  });
}

/** The Markdown and outline of each of `urls` that has them (pages without headings are left out). */
export async function pageOutlines(
  sql: Sql,
  urls: readonly string[],
): Promise<Map<string, { markdown: string; outline: OutlineEntry[] }>> {
  const unique = [...new Set(urls)];
  if (!unique.length) return new Map();
  const rows = await sql.all<{ url: string; markdown: string; outline: string }>(
    `SELECT p.url, c.markdown, c.outline FROM pages p JOIN page_content c ON c.page_id = p.id
     WHERE p.url IN (${inList('u', unique.length)}) AND c.outline <> '[]'`,
    inParams('u', unique),
  );
  return new Map(rows.map((r) => [r.url, { markdown: r.markdown, outline: parseOutline(r.outline) }]));
}
