// The link report's 15-minute cache is dropped as soon as a newer crawl has ended in the database, whichever
// process ran it (here: a second app on the same database, as `svc crawl` next to `svc serve` would be); on SQLite
// and on PostgreSQL.
import { afterAll, describe, expect, it } from 'vitest';
import { loadApp } from '../../src/app/open-app.js';
import { silentLogger } from '../../src/lib/log.js';
import { createCrawl, setCrawlStatus } from '../../src/store/crawls.js';
import { outcome, linkingPage as page } from '../support/writes.js';
import { DIALECTS, storeKit, writeThrough } from '../support/stores.js';
import { addRoleUsers, makeAppOn, ONE_HOST, makeHost, SITE } from '../support/app.js';

describe.each(DIALECTS)('on %s', (dialect) => {
  const kit = storeKit(dialect);
  afterAll(() => kit.stop());

  it('a crawl that ended in another process makes the cached report stale', async () => {
    const app = await makeAppOn(kit, {}, ONE_HOST);
    const { host } = await makeHost(app);
    const admin = (await addRoleUsers(app)).administrator.user;
    try {
      const report = () =>
        host.registry.get('svc/link-report')!.execute({}, { user: admin }) as Promise<{
          summary: { not_found: number };
        }>;
      expect((await report()).summary.not_found).toBe(0);

      const other = await loadApp(app.config, { logger: silentLogger });
      await writeThrough(other.store, {
        pages: [page(`${SITE}/`, [`${SITE}/gone`])],
        outcomes: [outcome(`${SITE}/gone`, 'not_found')],
      });
      // Without a crawl ending, the cache still answers (the report only changes when the site is crawled).
      expect((await report()).summary.not_found).toBe(0);
      const rec = (await createCrawl(other.store.sql, app.config.project.public_token, 'manual', [`${SITE}/`]))!;
      await setCrawlStatus(other.store.sql, rec.id, 'completed');
      await other.close();

      expect((await report()).summary.not_found).toBe(1);
    } finally {
      host.close();
      await app.close();
    }
  });
});
