// The link report's 15-minute cache is dropped as soon as a newer crawl has ended in the database, whichever
// process ran it (here: a second connection to the same file, as `svc crawl` next to `svc serve` would be).
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createCrawl, setCrawlStatus } from '../../src/store/crawls.js';
import { saveOutcomes, savePages } from '../../src/store/pages.js';
import { Store } from '../../src/store/store.js';
import { outcome, page } from '../http/helpers.js';
import { addRoleUsers, makeApp, makeHost, SITE } from './helpers.js';

const app = makeApp();
const { host } = await makeHost(app);
const admin = (await addRoleUsers(app)).administrator.user;
afterAll(async () => {
  host.close();
  await app.close();
});

it('a crawl that ended in another process makes the cached report stale', async () => {
  const report = () => host.registry.get('svc/link-report')!.execute({}, { user: admin }) as Promise<{ summary: { not_found: number } }>;
  expect((await report()).summary.not_found).toBe(0);

  const other = new Store(join(app.dataDir, 'svc.db'));
  savePages(other, [page(`${SITE}/`, [`${SITE}/gone`])]);
  saveOutcomes(other, [outcome(`${SITE}/gone`, 'not_found')]);
  // Without a crawl ending, the cache still answers (the report only changes when the site is crawled).
  expect((await report()).summary.not_found).toBe(0);
  const rec = (await createCrawl(other.sql, app.config.project.public_token, 'manual', [`${SITE}/`]))!;
  await setCrawlStatus(other.sql, rec.id, 'completed');
  other.close();

  expect((await report()).summary.not_found).toBe(1);
});
