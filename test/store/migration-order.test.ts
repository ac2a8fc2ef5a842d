// Each dialect's migrations run in list order and a database records the last version it ran: a list out of
// number order would skip a migration on some databases and run one twice on others (branches that each added one
// and were merged side by side did exactly that).
import { describe, expect, it } from 'vitest';
import { PG_MIGRATIONS } from '../../src/store/pg/migrations/index.js';
import { MIGRATIONS } from '../../src/store/sqlite/migrations/index.js';

describe('migration lists', () => {
  it.each([
    ['sqlite', MIGRATIONS.map((m) => m.version)],
    ['pg', PG_MIGRATIONS.map((m) => m.version)],
  ])('%s: strictly ascending version numbers', (_dialect, versions) => {
    expect(versions).toEqual([...new Set(versions)].sort((a, b) => a - b));
  });
});
