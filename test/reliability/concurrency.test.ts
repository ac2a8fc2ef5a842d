// Concurrency: readers never see an error or a torn report while a crawl writes; two crawl starts at once
// (in one process, and from two processes on one data directory) run exactly one crawl.
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadApp, type App } from '../../src/app/open-app.js';
import { createApiKey } from '../../src/auth/keys.js';
import { createV1Handler } from '../../src/http/v1.js';
import type { LinkReport } from '../../src/model/types.js';
import { parseConfig } from '../../src/cli/load-config.js';
import { createHttpServer } from '../../src/http/http-server.js';
import { silentLogger } from '../../src/lib/log.js';
import { endCrawl } from '../support/app.js';
import { runSvc } from '../support/cli.js';
import { httpDeps } from '../../src/app/http.js';

const TOKEN = 'conc0001:eu-north-1';
const PAGES = 400;
/** Seconds the readers run; the full soak is 30 (SVC_SOAK_SECONDS=30). */
const SOAK_SECONDS = Number(process.env.SVC_SOAK_SECONDS ?? 6);
const SECTIONS = ['notFound', 'forbidden', 'serverError', 'redirect', 'unknown'] as const;

let site: Server;
let siteHost: string;
let app: App;
let server: Server;
let base: string;
let key: string;
let configFile: string;

beforeAll(async () => {
  // A site of PAGES pages, each linking onwards and to a missing page and a redirect.
  site = createServer(async (req, res) => {
    // A little latency per answer keeps the crawl writing while the readers run.
    await new Promise((r) => setTimeout(r, 10));
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const m = /^\/p\/(\d+)$/.exec(path);
    if (path === '/' || m) {
      const i = m ? Number(m[1]) : 0;
      const next = [1, 2, 3].map((d) => `<a href="/p/${(i + d) % PAGES}">next ${d}</a>`).join(' ');
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<html><head><title>Page ${i} harbour notes</title></head><body><p>Harbour notes number ${i}.</p>${next}<a href="/gone/${i % 50}">gone</a><a href="/moved/${i % 20}">moved</a></body></html>`,
      );
    } else if (path.startsWith('/moved/')) {
      res.writeHead(301, { location: '/p/0' }).end();
    } else {
      res.writeHead(404).end('missing');
    }
  });
  site.listen(0, '127.0.0.1');
  await once(site, 'listening');
  siteHost = `127.0.0.1:${(site.address() as AddressInfo).port}`;
  const dir = mkdtempSync(join(tmpdir(), 'svc-conc-'));
  const raw = {
    project: { public_token: TOKEN },
    data_dir: join(dir, 'data'),
    targets: [
      {
        host: siteHost,
        scheme: 'http',
        track_links: 'all',
        use_sitemap: false,
        walk_links: true,
        concurrency: 4,
        max_pages: PAGES * 2,
      },
    ],
    log_level: 'silent',
  };
  configFile = join(dir, 'svc.json');
  writeFileSync(configFile, JSON.stringify(raw));
  app = await loadApp(parseConfig(raw), { logger: silentLogger });
  key = (await createApiKey(app.store.sql, TOKEN, 'conc')).key;
  server = createHttpServer({ logger: silentLogger, handlers: [createV1Handler(httpDeps(app))] });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/projects/${encodeURIComponent(TOKEN)}`;
}, 60_000);

afterAll(async () => {
  server?.closeAllConnections();
  server?.close();
  site?.close();
  await app?.close();
});

const auth = () => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });

/** What a report from one consistent snapshot always satisfies. */
function expectWhole(r: LinkReport, limit: number): void {
  let listed = 0;
  let total = 0;
  for (const s of SECTIONS) {
    const n = r[s].pages.reduce((sum, p) => sum + p.links.length, 0);
    expect(n).toBeLessThanOrEqual(r[s].count);
    for (const p of r[s].pages) expect(p.links.length).toBeGreaterThan(0);
    listed += n;
    total += r[s].count;
  }
  expect(listed).toBe(Math.min(limit, total));
  expect(r.truncated).toBe(total > limit);
}

async function waitForEnd(id: number): Promise<string> {
  for (;;) {
    const rec = (await (await fetch(`${base}/crawls/${id}`, { headers: auth() })).json()) as { status: string };
    if (rec.status !== 'queued' && rec.status !== 'running') return rec.status;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('readers while a crawl writes', () => {
  it(`16 clients read the report and search for ${SOAK_SECONDS} s: no errors, no torn reports`, async () => {
    const start = await fetch(`${base}/crawls`, {
      method: 'POST',
      headers: auth(),
      body: JSON.stringify({ mode: 'full' }),
    });
    expect(start.status).toBe(202);
    const { id } = (await start.json()) as { id: number };
    const deadline = Date.now() + SOAK_SECONDS * 1000;
    let answers = 0;
    const errors: string[] = [];
    const client = async (n: number) => {
      while (Date.now() < deadline) {
        const limit = [5, 50, 1000][n % 3]!;
        const res =
          n % 2 === 0
            ? await fetch(`${base}/link-report?limit=${limit}`, { headers: auth() })
            : await fetch(`${base}/search`, {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify({ terms: 'harbour notes' }),
              });
        answers++;
        if (res.status !== 200) {
          errors.push(`${res.status} ${await res.text()}`);
          continue;
        }
        const body = (await res.json()) as LinkReport | { total: number; hits: unknown[] };
        if (n % 2 === 0) expectWhole(body as LinkReport, limit);
        else expect((body as { hits: unknown[] }).hits.length).toBeLessThanOrEqual(10);
        // While the crawl still runs, start it again: one more crawl never sneaks in.
        if (n === 0 && answers % 50 === 0) {
          const again = await fetch(`${base}/crawls`, {
            method: 'POST',
            headers: auth(),
            body: JSON.stringify({ mode: 'partial' }),
          });
          const status = (await again.json()) as { status?: string };
          if (again.status === 202) await waitForEnd((status as { id: number }).id);
          else expect(again.status).toBe(409);
        }
      }
    };
    await Promise.all(Array.from({ length: 16 }, (_, n) => client(n)));
    expect(errors).toEqual([]);
    expect(answers).toBeGreaterThan(16);
    expect(await waitForEnd(id)).toBe('completed');
    const final = (await (await fetch(`${base}/link-report?limit=5000`, { headers: auth() })).json()) as LinkReport;
    expectWhole(final, 5000);
    // Every page and the home page link to one missing and one moved page.
    expect(final.notFound.count).toBe(PAGES + 1);
    expect(final.redirect.count).toBe(PAGES + 1);
  }, 120_000);
});

describe('two crawl starts at once', () => {
  it('in one process: exactly one is accepted', async () => {
    const both = await Promise.all(
      [0, 1].map(() =>
        fetch(`${base}/crawls`, { method: 'POST', headers: auth(), body: JSON.stringify({ mode: 'full' }) }),
      ),
    );
    const statuses = both.map((r) => r.status).sort();
    expect(statuses).toEqual([202, 409]);
    const accepted = (await both.find((r) => r.status === 202)!.json()) as { id: number };
    // Its 400 pages are not what this test is about (the readers' crawl above ran them all).
    await endCrawl(app, accepted.id);
  }, 60_000);

  it('from two processes on one data directory: exactly one runs', async () => {
    const run = async () => {
      const r = await runSvc(['crawl', 'full', '--config', configFile], { env: { SVC_LOG_LEVEL: undefined } });
      return { code: r.status, err: r.stderr };
    };
    const results = await Promise.all([run(), run()]);
    const codes = results.map((r) => r.code).sort();
    expect(codes[0]).toBe(0);
    expect(codes[1]).not.toBe(0);
    expect(results.find((r) => r.code !== 0)!.err).toMatch(/already|running|conflict/i);
  }, 90_000);
});
