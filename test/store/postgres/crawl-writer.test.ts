import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrawlSink } from '../../../src/crawler/sink.js';
import type { OutcomeWrite } from '../../../src/model/crawl-writes.js';
import { PgCrawlWriter } from '../../../src/store/pg/crawl-writer.js';
import type { PgSql } from '../../../src/store/pg/pg-sql.js';
import { COMMIT_UNKNOWN, type Sql } from '../../../src/store/sql.js';
import { pgFixture, skip, type PgFixture } from '../../support/postgres.js';
import { BASE, HOST, searchPage as page } from '../../support/writes.js';

function outcome(url: string, over: Partial<OutcomeWrite> = {}): OutcomeWrite {
  return { url, httpStatus: 404, reason: 'not_found', message: 'Not Found', redirectsTo: null, crawlId: 1, ...over };
}

describe.skipIf(skip)('the PostgreSQL crawl writer', () => {
  let f: PgFixture;
  let sql: PgSql;
  let crawlId: number;

  beforeAll(async () => {
    f = pgFixture();
    sql = await f.open();
    crawlId = (await sql.get<{ id: number }>(
      `INSERT INTO crawls (project, mode, status, started_at) VALUES ('p', 'full', 'running', 'now') RETURNING id`,
    ))!.id;
  });
  afterAll(async () => {
    await f?.close();
  });

  const count = async (table: string, where = 'true', params: (string | number)[] = []) =>
    (await sql.get<{ c: number }>(`SELECT count(*) AS c FROM ${table} WHERE ${where}`, params))!.c;

  it('commits pages with tags, headings and links, outcomes, report rows, stats and search vectors', async () => {
    const w = new PgCrawlWriter(sql, crawlId, { pages: 3, outcomes: 5, inFlight: 1 });
    const sink: CrawlSink = w; // the shape the crawler writes to
    for (let i = 0; i < 10; i++) {
      sink.page(
        page(`/p${i}`, {
          crawlId,
          title: `Page ${i}`,
          content: `body text ${i} with a NUL\u0000 and a lone \ud800 surrogate`,
          tags: ['public', `n${i % 2}`],
          headings: i === 0 ? ['Installation guide', 'Advisory Locks'] : undefined,
          links: [
            { url: `${BASE}/missing`, element: 'a', text: 'gone' },
            { url: `${BASE}/p${(i + 1) % 10}`, element: 'a', text: 'next' },
          ],
          showInSearch: i !== 9,
        }),
      );
      await sink.settle();
    }
    sink.outcome(outcome(`${BASE}/missing`, { crawlId }));
    for (let i = 0; i < 10; i++)
      sink.outcome(outcome(`${BASE}/p${i}`, { httpStatus: 200, reason: 'ok', message: '', crawlId }));
    sink.stats({ pages: 10, links: 11, errors: 1 });
    await sink.drain();
    await sink.close();

    expect(await count('pages')).toBe(10);
    expect(await count('links')).toBe(20);
    expect(await count('page_tags')).toBe(20);
    expect(await count('page_headings')).toBe(1);
    expect(await count('link_outcomes')).toBe(11);
    // Every page links to the missing URL: ten report rows, counted per section.
    expect(await count('report_links')).toBe(10);
    expect(await sql.all('SELECT host, rank, n FROM report_counts')).toEqual([{ host: HOST, rank: 0, n: 10 }]);
    expect(await sql.get('SELECT pages, links, errors FROM crawls WHERE id = ?', [crawlId])).toEqual({
      pages: 10,
      links: 11,
      errors: 1,
    });
    // The hidden page has no vector; the others do, the headings and the address's words (`/p0`) in weight B.
    expect(await count('pages', 'search_vector IS NULL')).toBe(1);
    expect(
      await sql.get(
        `SELECT search_config::text AS c, array_to_string(tsvector_to_array(ts_filter(search_vector, '{b}')), ' ') AS b FROM pages WHERE url = ?`,
        [`${BASE}/p0`],
      ),
    ).toEqual({
      c: 'svc_english',
      b: 'advisori guid instal lock p0',
    });
    expect(await sql.get('SELECT content FROM pages WHERE url = ?', [`${BASE}/p0`])).toEqual({
      content: 'body text 0 with a NUL\ufffd and a lone \ufffd surrogate',
    });
  });

  it('keeps, touches and removes stored pages, and a re-crawl replaces a page and its vector', async () => {
    const second = (await sql.get<{ id: number }>(
      `INSERT INTO crawls (project, mode, status) VALUES ('p', 'full', 'running') RETURNING id`,
    ))!.id;
    const w = new PgCrawlWriter(sql, second);
    w.keep({
      url: `${BASE}/p1`,
      crawlId: second,
      sitemapLastmod: '2026-01-01',
      etag: '"e1"',
      lastModified: null,
      kind: 'notModified',
    });
    w.touch(`${BASE}/p2`);
    w.remove(`${BASE}/p3`);
    w.page(page('/p4', { crawlId: second, title: 'Renamed', content: 'brand new words', headings: ['Fresh heading'] }));
    await w.drain();
    expect(await sql.get('SELECT crawl_id, etag, sitemap_lastmod FROM pages WHERE url = ?', [`${BASE}/p1`])).toEqual({
      crawl_id: second,
      etag: '"e1"',
      sitemap_lastmod: '2026-01-01',
    });
    expect(await sql.get('SELECT crawl_id FROM pages WHERE url = ?', [`${BASE}/p2`])).toEqual({ crawl_id: second });
    expect(await count('pages', 'url = ?', [`${BASE}/p3`])).toBe(0);
    expect(await count('links', 'page_id NOT IN (SELECT id FROM pages)')).toBe(0);
    // p3 went, and p4 links to nothing now: eight pages still link to the missing URL.
    expect(await count('report_links')).toBe(8);
    expect(await sql.get('SELECT n FROM report_counts')).toEqual({ n: 8 });
    const v = await sql.get<{ hit: number; old: number; heading: number }>(
      `SELECT search_vector @@ to_tsquery('english', 'brand & new') AS hit, search_vector @@ to_tsquery('english', 'body') AS old,
         ts_filter(search_vector, '{b}') @@ to_tsquery('english', 'fresh') AS heading FROM pages WHERE url = ?`,
      [`${BASE}/p4`],
    );
    expect(v).toEqual({ hit: 1, old: 0, heading: 1 });
  });

  it('moves report rows and counts when a link outcome changes (triggers on link_outcomes)', async () => {
    const missing = `${BASE}/missing`;
    const rows = await count('report_links', 'url = ?', [missing]);
    expect(rows).toBeGreaterThan(0);
    const w = new PgCrawlWriter(sql, crawlId);
    w.outcome(outcome(missing, { reason: 'ok', httpStatus: 200, crawlId }));
    await w.drain();
    expect(await count('report_links', 'url = ?', [missing])).toBe(0);
    w.outcome(outcome(missing, { reason: 'forbidden', httpStatus: 403, crawlId }));
    await w.drain();
    expect(await count('report_links', 'url = ? AND rank = 1', [missing])).toBe(rows);
    expect(await sql.get('SELECT sum(n) AS n FROM report_counts WHERE rank = 1')).toEqual({ n: rows });
    expect(await sql.get('SELECT sum(n) AS n FROM report_counts WHERE rank = 0')).toEqual({
      n: await count('report_links', 'rank = 0'),
    });
  });

  it('rolls a failing batch back whole and throws from settle and drain', async () => {
    const before = await count('pages');
    const w = new PgCrawlWriter(sql, crawlId, { pages: 2 });
    w.page(page('/fail-1', { crawlId }));
    // A reason outside the schema's CHECK: the batch's transaction fails at its outcomes, after its pages.
    w.outcome(outcome(`${BASE}/x`, { reason: 'bogus' as OutcomeWrite['reason'] }));
    w.page(page('/fail-2', { crawlId })); // the second page flushes the batch
    await expect(w.drain()).rejects.toThrow(/writing crawl results failed: .*link_outcomes_reason_check/);
    await expect(w.settle()).rejects.toThrow(/writing crawl results failed/);
    expect(() => w.page(page('/after', { crawlId }))).not.toThrow(); // held until the next flush...
    expect(() => w.flush()).toThrow(/writing crawl results failed/); // ...which refuses
    await w.close();
    expect(await count('pages')).toBe(before);
    expect(await count('pages', 'url LIKE ?', [`${BASE}/fail%`])).toBe(0);
  });

  it.each([
    ['was written', true],
    ['was not written', false],
  ])(
    "writes a batch again when its COMMIT's answer was lost and it %s: once, its words included",
    async (_, written) => {
      // PostgreSQL restarting while a COMMIT is out: the writer's first transaction ends in SVC_COMMIT_UNKNOWN after
      // it committed, or after it rolled back; the next ones go through.
      let first = true;
      const lost = Object.assign(new Error('the connection was lost while committing'), { code: COMMIT_UNKNOWN });
      const flaky = Object.create(sql) as PgSql;
      flaky.tx = async <T>(fn: (t: Sql) => Promise<T>): Promise<T> => {
        if (!first) return sql.tx(fn);
        first = false;
        if (written) await sql.tx(fn);
        else await sql.tx(async (t) => Promise.reject(await fn(t).then(() => lost))).catch(() => {});
        throw lost;
      };
      const word = `zebrafinch${written ? 'a' : 'b'}`;
      const w = new PgCrawlWriter(flaky, crawlId, { pages: 2 });
      w.page(
        page(`/again-${word}-1`, {
          crawlId,
          content: `a ${word} sings`,
          links: [{ url: `${BASE}/x`, element: 'a', text: 'x' }],
        }),
      );
      w.page(page(`/again-${word}-2`, { crawlId, content: 'plain' }));
      await w.drain();
      await w.close();
      expect(first).toBe(false);
      expect(await count('pages', 'url LIKE ?', [`${BASE}/again-${word}-%`])).toBe(2);
      expect(await count('links', 'page_id IN (SELECT id FROM pages WHERE url = ?)', [`${BASE}/again-${word}-1`])).toBe(
        1,
      );
      expect(await count('search_words', 'word = ?', [word])).toBe(1);
    },
  );

  it('makes settle wait while more batches than inFlight wait to commit, so memory stays bounded', async () => {
    const w = new PgCrawlWriter(sql, crawlId, { pages: 1, inFlight: 0 });
    for (let i = 0; i < 5; i++) {
      w.page(page(`/settled-${i}`, { crawlId, content: `settled ${i}` })); // flushes: one page a batch
      await w.settle();
      // With no batch allowed to wait, settle returns only once this page is committed.
      expect(await count('pages', 'url = ?', [`${BASE}/settled-${i}`])).toBe(1);
    }
    await w.drain();
  });

  it('stores a long page URL and a long broken link on it (no index entry holds two URLs)', async () => {
    // Random characters do not compress: 2,000 of them in each URL, which SQLite takes as any other.
    const noise = () => randomBytes(1500).toString('base64url').slice(0, 2000);
    const pageUrl = `${BASE}/long/${noise()}`;
    const link = `${BASE}/gone/${noise()}`;
    const w = new PgCrawlWriter(sql, crawlId);
    w.outcome(outcome(link, { crawlId }));
    w.page(page(pageUrl.slice(BASE.length), { crawlId, links: [{ url: link, element: 'a', text: 'x'.repeat(100) }] }));
    await w.drain();
    expect(await count('report_links', 'page_url = ? AND url = ?', [pageUrl, link])).toBe(1);
  });

  it('takes a page given twice in one batch as its last', async () => {
    const w = new PgCrawlWriter(sql, crawlId);
    w.page(
      page('/twice', { crawlId, title: 'First', tags: ['a'], links: [{ url: `${BASE}/one`, element: 'a', text: '' }] }),
    );
    w.page(
      page('/twice', {
        crawlId,
        title: 'Second',
        tags: ['b'],
        headings: ['Only heading'],
        links: [{ url: `${BASE}/two`, element: 'a', text: '' }],
      }),
    );
    await w.drain();
    const id = (await sql.get<{ id: number; title: string }>('SELECT id, title FROM pages WHERE url = ?', [
      `${BASE}/twice`,
    ]))!;
    expect(id.title).toBe('Second');
    expect(await sql.all('SELECT tag FROM page_tags WHERE page_id = ?', [id.id])).toEqual([{ tag: 'b' }]);
    expect(await sql.all('SELECT url FROM links WHERE page_id = ?', [id.id])).toEqual([{ url: `${BASE}/two` }]);
    expect(await sql.all('SELECT headings FROM page_headings WHERE page_id = ?', [id.id])).toEqual([
      { headings: 'Only heading' },
    ]);
  });

  it('applies outcomes in order: an only-if-new outcome never replaces one written before it', async () => {
    const w = new PgCrawlWriter(sql, crawlId);
    const u = `${BASE}/order`;
    w.outcome(outcome(u, { reason: 'server_error', httpStatus: 500, crawlId }));
    w.outcome(outcome(u, { reason: 'ok', httpStatus: 200, onlyIfNew: true, crawlId }));
    w.outcome(outcome(u, { reason: 'forbidden', httpStatus: 403, crawlId }));
    w.outcome(outcome(u, { reason: 'redirect', httpStatus: 301, crawlId }));
    await w.drain();
    expect(await sql.get('SELECT reason, http_status FROM link_outcomes WHERE url = ?', [u])).toEqual({
      reason: 'redirect',
      http_status: 301,
    });
  });
});
