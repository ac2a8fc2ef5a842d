// The link report before the search index: what a crawl writes is in the report at once, while search answers from
// the index as it was until the crawl finishes the index; a process that dies in between leaves a store the next
// open finishes; a crawl run says when each was ready. On both stores.
import { problemCounts } from '../../src/model/counts.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/crawl.js';
import { Store } from '../../src/store/sqlite/store.js';
import { html, startSite, writeJson } from '../support/site.js';
import { testTerminal } from '../support/cli.js';
import type { PageWrite } from '../../src/model/crawl-writes.js';
import { createCrawl, getCrawl, markReportReady } from '../../src/store/crawls.js';
import { finishPendingIndex } from '../../src/store/pending-index.js';
import type { ServiceStore } from '../../src/store/service-store.js';
import { DIALECTS, KIT_TOKEN, storeKit, writeThrough } from '../support/stores.js';
import { linkingPage, outcome } from '../support/writes.js';

const SITE = 'http://127.0.0.1:18133';
const PROJECT = KIT_TOKEN;

/** The URLs search finds for `q`, sorted. */
async function found(store: ServiceStore, q: string): Promise<string[]> {
  return (await store.searchPages(q, undefined)).hits.map((h) => h.url).sort();
}

/** The report's ready rows pointing at `url`. */
async function reportRows(store: ServiceStore, url: string): Promise<number> {
  const row = await store.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM report_links WHERE url = ?', [url]);
  return Number(row?.n ?? 0);
}

async function pending(store: ServiceStore): Promise<number> {
  return Number((await store.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM page_index_pending'))?.n ?? 0);
}

/** A crawl's writes of one page, deferred as a crawl run writes them, through the store's crawl writer. */
async function writeDeferred(store: ServiceStore, crawlId: number, pages: PageWrite[]): Promise<void> {
  const sink = store.openCrawlWriter(crawlId, { threaded: false, deferIndex: true });
  for (const p of pages) sink.page(p);
  sink.outcome(outcome(`${SITE}/gone`, 'not_found', { crawlId }));
  await sink.drain();
  await sink.close();
}

describe.each(DIALECTS)('report before index on %s', (dialect) => {
  const kit = storeKit(dialect);
  afterAll(() => kit.stop());

  /** A store whose index holds /a with "oldword" (an earlier crawl), and a second crawl running. */
  async function earlierCrawl() {
    const fresh = await kit.fresh({ token: PROJECT });
    const { store } = fresh;
    await writeThrough(store, { pages: [linkingPage(`${SITE}/a`, [], { title: 'Alpha', content: 'oldword' })] });
    const crawl = (await createCrawl(store.sql, PROJECT, 'full'))!;
    await store.sql.run(`UPDATE crawls SET status = 'running' WHERE id = ?`, [crawl.id]);
    return { ...fresh, crawlId: crawl.id };
  }

  const changed = (crawlId: number) => [
    linkingPage(`${SITE}/a`, [`${SITE}/gone`], { title: 'Alpha', content: 'newword', crawlId }),
    linkingPage(`${SITE}/b`, [`${SITE}/gone`], { title: 'Beta', content: 'newword addedword', crawlId }),
  ];

  it('the report holds what the crawl wrote at once; search answers the previous index until the index is finished', async () => {
    const { store, crawlId } = await earlierCrawl();
    await writeDeferred(store, crawlId, changed(crawlId));

    // The report is final: both pages' broken link is in its ready rows.
    expect(await reportRows(store, `${SITE}/gone`)).toBe(2);
    // Search still answers from the index as it was: the old words of /a, nothing of /b.
    expect(await found(store, 'oldword')).toEqual([`${SITE}/a`]);
    expect(await found(store, 'newword')).toEqual([]);
    expect(await found(store, 'addedword')).toEqual([]);
    expect(await pending(store)).toBe(2);

    expect(await finishPendingIndex(store.sql)).toBe(2);
    expect(await found(store, 'oldword')).toEqual([]);
    expect(await found(store, 'newword')).toEqual([`${SITE}/a`, `${SITE}/b`]);
    expect(await found(store, 'addedword')).toEqual([`${SITE}/b`]);
    expect(await pending(store)).toBe(0);
    expect(await reportRows(store, `${SITE}/gone`)).toBe(2);
  });

  it('a page removed before the index is finished leaves nothing pending behind', async () => {
    const { store, crawlId } = await earlierCrawl();
    await writeDeferred(store, crawlId, changed(crawlId));
    const sink = store.openCrawlWriter(crawlId, { threaded: false, deferIndex: true });
    sink.remove(`${SITE}/b`);
    await sink.drain();
    await sink.close();
    expect(await pending(store)).toBe(1);
    await finishPendingIndex(store.sql);
    expect(await found(store, 'newword')).toEqual([`${SITE}/a`]);
  });

  it('the process dies between the final report and the index: the next open finishes the index', async () => {
    const { store, reopen, crawlId } = await earlierCrawl();
    await writeDeferred(store, crawlId, changed(crawlId));
    await markReportReady(store.sql, crawlId, problemCounts([]));
    // What kill -9 leaves: the crawl running with a heartbeat that stops, its pages pending, no indexedAt.
    await store.sql.run('UPDATE crawls SET heartbeat_at = 0 WHERE id = ?', [crawlId]);
    expect(await found(store, 'newword')).toEqual([]);

    const next = await reopen({ deadAfterMs: 1 });
    expect(await pending(next)).toBe(0);
    expect(await found(next, 'newword')).toEqual([`${SITE}/a`, `${SITE}/b`]);
    expect(await found(next, 'oldword')).toEqual([]);
    const rec = (await getCrawl(next.sql, PROJECT, crawlId))!;
    expect(rec.status).toBe('failed');
    expect(rec.reportReadyAt).toEqual(expect.any(String));
    expect(rec.indexedAt).toEqual(expect.any(String));
  });

  it('an open while a crawl runs leaves its pending pages to it', async () => {
    const { store, reopen, crawlId } = await earlierCrawl();
    await writeDeferred(store, crawlId, changed(crawlId));
    await store.sql.run('UPDATE crawls SET heartbeat_at = ? WHERE id = ?', [Date.now(), crawlId]);
    const other = await reopen();
    expect(await pending(other)).toBe(2);
    expect(await found(other, 'newword')).toEqual([]);
  });
});

describe('a crawl run', () => {
  it('says when its report was final and when its index was built, in that order; search answers after it', async () => {
    const site = await startSite({
      '/': html('<p>zebrafish</p> <a href="/a">a</a> <a href="/missing">m</a>'),
      '/a': html('<p>quokka</p>'),
    });
    const dir = mkdtempSync(join(tmpdir(), 'svc-report-index-'));
    const config = writeJson(dir, 'svc.json', {
      project: { public_token: 'rep12345:eu-north-1' },
      data_dir: join(dir, 'data'),
      targets: [{ host: site.host, scheme: 'http', track_links: 'all', request_timeout_ms: 1000 }],
      log_level: 'silent',
    });
    const out: string[] = [];
    const io = { ...testTerminal().io, stdout: { write: (c: string) => out.push(c) } };
    try {
      expect(await run(['full', '--config', config], io)).toBe(0);
    } finally {
      await site.close();
    }
    const rec = JSON.parse(out[0]!) as {
      startedAt: string;
      reportReadyAt: string;
      indexedAt: string;
      finishedAt: string;
    };
    expect(rec.reportReadyAt).toEqual(expect.any(String));
    expect(rec.indexedAt).toEqual(expect.any(String));
    expect(rec.startedAt <= rec.reportReadyAt && rec.reportReadyAt <= rec.indexedAt).toBe(true);
    expect(rec.indexedAt <= rec.finishedAt).toBe(true);
    const store = new Store(join(dir, 'data', 'svc.db'));
    try {
      expect(await found(store, 'quokka')).toEqual([`http://${site.host}/a`]);
      expect(await pending(store)).toBe(0);
    } finally {
      store.close();
    }
  });
});
