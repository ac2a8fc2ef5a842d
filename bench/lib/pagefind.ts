// Pagefind, what static documentation sites ship, as a bench:relevance engine: the npm package's indexer builds its
// index of the same HTML files, and its search runs where it runs for a reader, in a browser (Debian's headless
// Chromium through playwright-core, as the browser tests start it), its files served from loopback.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import * as pagefind from 'pagefind';
import type { BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../../test/support/chromium.js';

export interface PagefindEngine {
  /** The paths (relative to the site's root) of the first `k` results, best first. */
  search(query: string, k: number): Promise<string[]>;
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
};

/** A static file server of `root` on loopback (the page that loads Pagefind, and Pagefind's own files). */
function serve(root: string): Promise<Server> {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)).replace(
      /^(\.\.[/\\])+/,
      '',
    );
    const file = path === '/' ? 'index.html' : path;
    try {
      const body = readFileSync(join(root, file));
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Indexes the HTML files `paths` under `root` (the pages the other engines read) and opens its search in Chromium. */
export async function pagefindEngine(root: string, paths: readonly string[]): Promise<PagefindEngine> {
  const site = mkdtempSync(join(tmpdir(), 'svc-pagefind-'));
  const { index, errors } = await pagefind.createIndex({ keepIndexUrl: true });
  if (!index) throw new Error(`pagefind: ${errors.join('; ')}`);
  for (const path of paths) {
    const added = await index.addHTMLFile({ url: `/${path}`, content: readFileSync(join(root, path), 'utf8') });
    if (added.errors.length) throw new Error(`pagefind: ${path}: ${added.errors.join('; ')}`);
  }
  const written = await index.writeFiles({ outputPath: join(site, 'pagefind') });
  if (written.errors.length) throw new Error(`pagefind: ${written.errors.join('; ')}`);
  await pagefind.close();
  writeFileSync(
    join(site, 'index.html'),
    `<!doctype html><meta charset="utf-8"><script type="module">
       window.pagefind = await import('/pagefind/pagefind.js');
       await window.pagefind.init();
       window.ready = true;
     </script>`,
  );
  const server = await serve(site);
  let context: BrowserContext | null = null;
  try {
    context = await launchChromium(join(site, 'profile'));
    const page: Page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    await page.waitForFunction(() => (globalThis as unknown as { ready?: boolean }).ready === true);
    const browser = context;
    return {
      search: (query, k) =>
        page.evaluate(
          async ({ query, k }) => {
            type Result = { data(): Promise<{ url: string }> };
            const pf = (globalThis as unknown as { pagefind: { search(q: string): Promise<{ results: Result[] }> } })
              .pagefind;
            const found = await pf.search(query);
            const data = await Promise.all(found.results.slice(0, k).map((r) => r.data()));
            return data.map((d) => d.url.replace(/^\//, ''));
          },
          { query, k },
        ),
      close: async () => {
        await browser.close();
        server.close();
        rmSync(site, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await context?.close();
    server.close();
    rmSync(site, { recursive: true, force: true });
    throw err;
  }
}
