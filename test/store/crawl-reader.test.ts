// What a crawl reads back of the pages it stored, on both stores: the revisit rows of many URLs in one read, each
// as the crawl wrote it, by URL; a URL not stored, or stored with nothing to replay, is absent.
import { afterAll, describe, expect, it } from 'vitest';
import { pageWrite } from '../support/writes.js';
import { DIALECTS, storeKit, writeThrough } from '../support/stores.js';

const BASE = 'http://127.0.0.1:18222';

describe.each(DIALECTS)('the crawl reader, on %s', (dialect) => {
  const kit = storeKit(dialect);
  afterAll(() => kit.stop());

  it('reads the revisit rows of many URLs at once, as written; a URL not stored or with none gives nothing', async () => {
    const { store } = await kit.fresh();
    const revisit = (i: number) => ({
      etag: i % 2 ? `"e${i}"` : null,
      lastModified: i % 3 ? null : 'Mon, 02 Nov 2026 10:00:00 GMT',
      bodyHash: `hash${i}`,
      key: 'settings-1',
      found: `{"l":[],"i":${i}}`,
    });
    const pages = Array.from({ length: 70 }, (_, i) =>
      pageWrite(`${BASE}/p${i}`, { httpStatus: i === 5 ? 203 : 200, revisit: revisit(i) }),
    );
    // Stored, but with nothing a revisit could replay.
    pages.push(pageWrite(`${BASE}/plain`));
    await writeThrough(store, { pages });
    const reader = store.crawlReader();

    const urls = [...pages.map((p) => p.url), `${BASE}/missing`, `${BASE}/p3`];
    const rows = await reader.revisits(urls);
    expect(rows.size).toBe(70);
    for (let i = 0; i < 70; i++)
      expect(rows.get(`${BASE}/p${i}`)).toEqual({ ...revisit(i), httpStatus: i === 5 ? 203 : 200 });
    expect(rows.has(`${BASE}/plain`)).toBe(false);
    expect(rows.has(`${BASE}/missing`)).toBe(false);

    // One URL alone reads the same row as in a batch.
    const alone = await reader.revisits([`${BASE}/p5`]);
    expect([...alone]).toEqual([[`${BASE}/p5`, rows.get(`${BASE}/p5`)]]);
    expect((await reader.revisits([`${BASE}/missing`])).size).toBe(0);
    expect((await reader.revisits([])).size).toBe(0);
  });
});
