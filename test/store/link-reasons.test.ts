// The store's report_reasons table (written by a shipped migration) holds the same reasons and ranks as the one
// table in src/model: a report row's rank is the index of its reason there.
import { expect, it } from 'vitest';
import { LINK_REASONS } from '../../src/model/link-reasons.js';
import { Store } from '../../src/store/sqlite/store.js';

it('report_reasons matches LINK_REASONS, rank for rank', () => {
  const store = new Store(':memory:');
  try {
    const rows = store.db.prepare('SELECT reason, rank FROM report_reasons ORDER BY rank').all();
    expect(rows).toEqual(LINK_REASONS.map((r, rank) => ({ reason: r.reason, rank })));
  } finally {
    store.close();
  }
});
