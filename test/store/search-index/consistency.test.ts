import { afterEach, describe, expect, it } from 'vitest';
import { searchPages } from '../../../src/store/search-index/search.js';
import { removePagesNotSeen } from '../../../src/store/pages.js';
import { savePages } from '../../../src/store/sqlite/writes.js';
import { Store } from '../../../src/store/sqlite/store.js';
import { integrityCheck, tempStore, type TempStore } from '../../support/stored.js';
import { searchPage as page } from '../../support/writes.js';

let t: TempStore;
afterEach(() => t?.close());

const total = (terms: string) => searchPages(t.store, terms, {}).total;

describe('index and store stay in step', () => {
  it('a write that fails half way leaves neither pages nor index changed', () => {
    t = tempStore([page('/kept', { title: 'Kept', content: 'original walrus text' })]);
    const batch = [
      page('/new1', { content: 'fresh narwhal one' }),
      page('/kept', { title: 'Kept', content: 'rewritten narwhal text' }),
      page('/new2', { content: 'fresh narwhal two' }),
      // A later row breaks a constraint (http_status NOT NULL): the whole batch must roll back.
      page('/broken', { content: 'fresh narwhal three', httpStatus: null as unknown as number }),
      page('/new3', { content: 'fresh narwhal four' }),
    ];
    expect(() => savePages(t.store, batch)).toThrow(/NOT NULL/);
    expect(t.store.db.prepare('SELECT url FROM pages').pluck().all()).toEqual([page('/kept').url]);
    expect(total('narwhal')).toBe(0);
    expect(total('walrus')).toBe(1);
    expect(t.store.db.prepare('SELECT count(*) FROM pages_fts_docsize').pluck().get()).toBe(1);
    integrityCheck(t.store);
    // And the next good write goes through as usual.
    savePages(
      t.store,
      batch.filter((p) => !p.url.endsWith('/broken')),
    );
    expect(total('narwhal')).toBe(4);
    expect(total('walrus')).toBe(0);
    integrityCheck(t.store);
  });

  it('a process that dies in the middle of a write leaves the last committed state (reopened file)', () => {
    t = tempStore([page('/a', { content: 'committed okapi' })]);
    const path = `${t.dir}/svc.db`;
    // An open transaction that never commits, as when the process is killed: nothing of it survives.
    t.store.db.exec('BEGIN IMMEDIATE');
    t.store.db.prepare(`UPDATE pages SET content = 'uncommitted okapi tapir' WHERE url = ?`).run(page('/a').url);
    const other = new Store(path, { readonly: true });
    expect(searchPages(other, 'tapir', {}).total).toBe(0);
    expect(searchPages(other, 'okapi', {}).total).toBe(1);
    other.close();
    t.store.db.exec('ROLLBACK');
    integrityCheck(t.store);
  });

  it('hidden, noindex and re-crawled pages move in and out of the index with their row', async () => {
    t = tempStore([page('/p', { content: 'lemur' }), page('/q', { content: 'lemur', indexed: false })]);
    expect(total('lemur')).toBe(1);
    savePages(t.store, [page('/p', { content: 'lemur', showInSearch: false }), page('/q', { content: 'lemur' })]);
    expect(searchPages(t.store, 'lemur', {}).hits.map((h) => h.url)).toEqual([page('/q').url]);
    savePages(t.store, [page('/p', { content: 'lemur gibbon' })]);
    expect(total('lemur')).toBe(2);
    expect(total('gibbon')).toBe(1);
    // Writing a column the index does not hold (crawl_id) leaves the index alone.
    t.store.db.prepare('UPDATE pages SET crawl_id = 7').run();
    integrityCheck(t.store);
    // A full crawl's clean-up removes what it did not see, from the index too.
    await removePagesNotSeen(t.store.sql, page('/p').host, 7);
    expect(total('lemur')).toBe(2);
    await removePagesNotSeen(t.store.sql, page('/p').host, 8);
    expect(total('lemur')).toBe(0);
    integrityCheck(t.store);
  });
});

describe('optimizeIndex', () => {
  it('merges the index without changing any answer', async () => {
    const { optimizeIndex } = await import('../../../src/store/search-index/optimize.js');
    t = tempStore();
    for (let i = 0; i < 5; i++)
      savePages(t.store, [page(`/o${i}`, { title: `Batch ${i}`, content: `capybara number${i}` })]);
    const before = searchPages(t.store, 'capybara', { size: 100 });
    optimizeIndex(t.store);
    const after = searchPages(t.store, 'capybara', { size: 100 });
    expect(after.total).toBe(5);
    expect(after.hits.map((h) => h.url)).toEqual(before.hits.map((h) => h.url));
    integrityCheck(t.store);
  });
});
