import { afterEach, describe, expect, it } from 'vitest';
import type { TargetConfig } from '../../src/model/config.js';
import { TargetSchema } from '../../src/model/config.js';
import { searchPages } from '../../src/store/search-index/search.js';
import { BASE, HOST, searchPage as page } from '../support/writes.js';
import { integrityCheck, tempStore, type TempStore } from '../support/stored.js';
import { invalid } from '../support/search-input.js';
import { deletePages } from '../../src/backend/delete-pages.js';

/** invalid() for a function that rejects instead of throwing. */
async function rejectedInvalid(fn: () => Promise<unknown>): Promise<string> {
  let caught: unknown = null;
  try {
    await fn();
  } catch (err) {
    caught = err;
  }
  return invalid(() => {
    if (caught) throw caught;
  });
}

const targets: TargetConfig[] = [
  TargetSchema.parse({ host: HOST, scheme: 'http' }),
  TargetSchema.parse({ host: 'example.org' }),
];

let t: TempStore;
afterEach(() => t?.close());

describe('deletePages', () => {
  it('removes pages by exact URL from the store and the index, and says which were not there', async () => {
    t = tempStore([
      page('/a', { title: 'Alpha', content: 'zebra one', links: [{ url: `${BASE}/x`, element: 'a', text: 'x' }] }),
      page('/b', { title: 'Beta', content: 'zebra two' }),
      page('/b/child', { title: 'Beta child', content: 'zebra three' }),
    ]);
    expect(searchPages(t.store, 'zebra', {}).total).toBe(3);
    const r = await deletePages(t.store.sql, targets, [
      `${BASE}/a`,
      `${BASE}/b`,
      `${BASE}/nope`,
      'https://example.org/other',
    ]);
    expect(r).toEqual({ deleted: [`${BASE}/a`, `${BASE}/b`], notFound: [`${BASE}/nope`, 'https://example.org/other'] });
    // Exact URLs only: /b/child stays.
    expect(searchPages(t.store, 'zebra', {}).hits.map((h) => h.url)).toEqual([`${BASE}/b/child`]);
    expect(t.store.db.prepare('SELECT url FROM pages').pluck().all()).toEqual([`${BASE}/b/child`]);
    expect(t.store.db.prepare('SELECT count(*) FROM links').pluck().get()).toBe(0);
    expect(
      t.store.db.prepare('SELECT count(*) FROM page_tags WHERE page_id NOT IN (SELECT id FROM pages)').pluck().get(),
    ).toBe(0);
    integrityCheck(t.store);
  });

  it('reports a URL given twice once, and a second deletion as not found', async () => {
    t = tempStore([page('/a', { content: 'x' })]);
    expect(await deletePages(t.store.sql, targets, [`${BASE}/a`, `${BASE}/a`])).toEqual({
      deleted: [`${BASE}/a`],
      notFound: [],
    });
    expect(await deletePages(t.store.sql, targets, [`${BASE}/a`])).toEqual({ deleted: [], notFound: [`${BASE}/a`] });
  });

  it('matches the normalized form of a URL too (host case, empty path)', async () => {
    t = tempStore([page('/', { content: 'home' })]);
    const given = `http://${HOST.toUpperCase()}`;
    expect(await deletePages(t.store.sql, targets, [given])).toEqual({ deleted: [given], notFound: [] });
  });

  it('deletes hidden and noindex pages too (they are stored, only not searchable)', async () => {
    t = tempStore([page('/h', { showInSearch: false }), page('/n', { indexed: false })]);
    expect((await deletePages(t.store.sql, targets, [`${BASE}/h`, `${BASE}/n`])).deleted).toHaveLength(2);
    integrityCheck(t.store);
  });

  it('refuses anything but 1 to 50 full http(s) URLs on a configured target, naming each bad one', async () => {
    t = tempStore([page('/a')]);
    expect(await rejectedInvalid(() => deletePages(t.store.sql, targets, []))).toBe(
      'urls: must hold 1 to 50 URLs (got 0)',
    );
    const fiftyOne = Array.from({ length: 51 }, (_, i) => `${BASE}/p${i}`);
    expect(await rejectedInvalid(() => deletePages(t.store.sql, targets, fiftyOne))).toBe(
      'urls: must hold 1 to 50 URLs (got 51)',
    );
    expect((await deletePages(t.store.sql, targets, fiftyOne.slice(0, 50))).notFound).toHaveLength(50);
    expect(await rejectedInvalid(() => deletePages(t.store.sql, targets, 'x' as unknown as string[]))).toBe(
      'urls: must be an array of URLs',
    );
    const msg = await rejectedInvalid(() =>
      deletePages(t.store.sql, targets, [
        `${BASE}/a`,
        '/relative',
        'ftp://example.org/f',
        'https://evil.test/x',
        7 as unknown as string,
      ]),
    );
    expect(msg).toContain('urls[1]: "/relative" is not a full URL');
    expect(msg).toContain('urls[2]: must be an http or https URL');
    expect(msg).toContain('urls[3]: host evil.test is not a configured target');
    expect(msg).toContain('urls[4]: must be a full URL string');
    expect(msg).not.toContain('urls[0]');
    // Nothing was deleted by a refused call.
    expect(t.store.db.prepare('SELECT count(*) FROM pages').pluck().get()).toBe(1);
  });

  it('accepts a URL with the default port of its target written out', async () => {
    t = tempStore([]);
    expect(await deletePages(t.store.sql, targets, ['https://example.org:443/x'])).toEqual({
      deleted: [],
      notFound: ['https://example.org:443/x'],
    });
    expect(await rejectedInvalid(() => deletePages(t.store.sql, targets, ['https://example.org:8443/x']))).toMatch(
      /^urls\[0\]: host example.org:8443 is not a configured target/,
    );
  });
});
