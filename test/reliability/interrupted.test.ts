// A full crawl that does not complete (stopped here; killed in bench/crash.ts) leaves the last complete report
// and index as they were: the clearing rule takes effect only when a full crawl completes.
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EmbeddedBackend } from '../../src/backend/embedded.js';
import { Store } from '../../src/store/sqlite/store.js';
import { parseConfig } from '../../src/cli/load-config.js';
import { silentLogger } from '../../src/lib/log.js';

let site: Server;
let slow = false;
let moved = true;
let store: Store;
let backend: EmbeddedBackend;

beforeAll(async () => {
  site = createServer(async (req, res) => {
    if (slow) await new Promise((r) => setTimeout(r, 200));
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/old' && moved) return void res.writeHead(301, { location: '/' }).end();
    const m = /^\/p\/(\d+)$/.exec(path);
    if (path === '/' || m || path === '/old') {
      const i = m ? Number(m[1]) : 0;
      res.writeHead(200, { 'content-type': 'text/html' });
      return void res.end(
        `<html><head><title>Quay ${i}</title></head><body>quay ${i} <a href="/old">old</a> <a href="/p/${i + 1}">next</a></body></html>`,
      );
    }
    res.writeHead(404).end();
  });
  site.listen(0, '127.0.0.1');
  await once(site, 'listening');
  const config = parseConfig({
    project: { public_token: 'intr0001:eu-north-1' },
    data_dir: mkdtempSync(join(tmpdir(), 'svc-intr-')),
    targets: [
      {
        host: `127.0.0.1:${(site.address() as AddressInfo).port}`,
        scheme: 'http',
        track_links: 'all',
        use_sitemap: false,
        walk_links: true,
        max_pages: 40,
        concurrency: 2,
      },
    ],
  });
  store = new Store(join(config.data_dir, 'svc.db'));
  backend = new EmbeddedBackend({ config, store, logger: silentLogger });
});

afterAll(async () => {
  await backend.close();
  store.close();
  site.close();
});

it('a stopped full crawl keeps the last complete report; the next completed one decides it', async () => {
  const first = await backend.waitForCrawl((await backend.startCrawl({ mode: 'full' })).id);
  expect(first.status).toBe('completed');
  const before = await backend.linkReport({ limit: 1000 });
  expect(before.redirect.count).toBeGreaterThan(0);
  const hitsBefore = (await backend.search('quay', { size: 100 })).total;

  // The next full crawl is stopped half way: the redirect it has not re-checked yet must not vanish.
  slow = true;
  const second = await backend.startCrawl({ mode: 'full' });
  await new Promise((r) => setTimeout(r, 500));
  await backend.stopCrawl(second.id);
  expect((await backend.waitForCrawl(second.id)).status).toBe('stopped');
  const during = await backend.linkReport({ limit: 1000 });
  expect(during.redirect.count).toBe(before.redirect.count);
  expect(during.lastFullCrawl).toBe(before.lastFullCrawl);
  expect((await backend.search('quay', { size: 100 })).total).toBe(hitsBefore);

  // A completed full crawl that no longer finds the redirect clears it.
  slow = false;
  moved = false;
  const third = await backend.waitForCrawl((await backend.startCrawl({ mode: 'full' })).id);
  expect(third.status).toBe('completed');
  const after = await backend.linkReport({ limit: 1000 });
  expect(after.redirect.count).toBe(0);
  expect(after.lastFullCrawl).not.toBe(before.lastFullCrawl);
}, 60_000);
