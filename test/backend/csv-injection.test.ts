// A formula in a crawled page's link text must reach `svc report --format csv` inert: crawled, stored, reported.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CrawlRunner } from '../../src/backend/crawl-runs/runner.js';
import { buildLinkReport } from '../../src/backend/report/link-report.js';
import { formatCsv } from '../../src/backend/report/formats/csv.js';
import { silentLogger } from '../../src/lib/log.js';
import type { Store } from '../../src/store/sqlite/store.js';
import { html, send, startSite, target, type TestSite } from '../support/site.js';
import { tempStore } from '../support/stored.js';

const PROJECT = 'test1234:eu-north-1';

describe('CSV report of a crawled formula', () => {
  let site: TestSite;
  let store: Store;

  beforeAll(async () => {
    site = await startSite({
      '/': html(
        '<a href="/gone">=HYPERLINK("http://x","y")</a> <a href="/minus">-1</a> <a href="/plain">Plain text</a>',
      ),
      '/gone': send(404, 'no'),
      '/minus': send(404, 'no'),
      '/plain': send(404, 'no'),
    });
    ({ store } = tempStore());
  });
  afterAll(async () => {
    await site.close();
    store.close();
  });

  it('prefixes the cell with a quote inside its quotes; ordinary text is quoted as it is', async () => {
    const targets = [target({ host: site.host })];
    const runner = new CrawlRunner({ store, project: PROJECT, targets, logger: silentLogger, addressPolicy: null });
    await runner.wait((await runner.start({ mode: 'full' })).id);
    const csv = formatCsv(await buildLinkReport(store.sql, PROJECT, targets, { limit: 1000 }));
    expect(csv).toContain(
      `"not_found","${site.origin}/","${site.origin}/gone",404,"404 Not Found","","a","'=HYPERLINK(""http://x"",""y"")",,`,
    );
    expect(csv).toContain(`"not_found","${site.origin}/","${site.origin}/minus",404,"404 Not Found","","a","'-1",,`);
    expect(csv).toContain(
      `"not_found","${site.origin}/","${site.origin}/plain",404,"404 Not Found","","a","Plain text",,`,
    );
    expect(csv).not.toMatch(/,=HYPERLINK/);
  });
});
