// Shared by the /v1 tests: a temp app (on either store), the facade on loopback, and store seeding through the
// store's crawl writer (the crawler's own writes).
import { mkdtempSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openApp, type App } from '../../src/app/open-app.js';
import { createApiKey } from '../../src/auth/keys.js';
import { createV1Handler } from '../../src/http/v1.js';
import { parseConfig } from '../../src/cli/load-config.js';
import type { ConfigInput } from '../../src/model/config.js';
import { createHttpServer } from '../../src/http/http-server.js';
import { silentLogger } from '../../src/lib/log.js';
import type { LinkOutcomeReason } from '../../src/model/link-reasons.js';
import { type OutcomeWrite, type PageWrite } from '../../src/model/crawl-writes.js';
import { httpDeps } from '../../src/app/http.js';
import { writeThrough, type StoreKit } from '../support/stores.js';

export const TOKEN = 'proj1234:eu-north-1';
export const OTHER_TOKEN = 'other999:us-east-1';
export const HOST_A = 'a.example';
export const HOST_B = 'b.example:8080';

export function tempDir(prefix = 'svc-rest-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function makeApp(over: Partial<ConfigInput> = {}): App {
  const config = parseConfig({
    project: { public_token: TOKEN },
    data_dir: tempDir(),
    targets: [
      { host: HOST_A, scheme: 'https', track_links: 'all' },
      { host: HOST_B, scheme: 'http', track_links: 'pdf', use_sitemap: false },
    ],
    log_level: 'silent',
    ...over,
  });
  return openApp(config, { logger: silentLogger });
}

/** makeApp on a new, empty database of the kit's dialect (PostgreSQL: database_url; SQLite: the file in data_dir). */
export async function makeAppOn(kit: StoreKit, over: Partial<ConfigInput> = {}): Promise<App> {
  return makeApp({ ...over, database_url: await kit.databaseUrl() });
}

/**
 * Runs the afterCrawl (problem history) of every crawl a test ended straight in the store, as another process would
 * end one. The engine does that on its next sweep, about once a second, so a report read right after would have
 * firstSeen or not depending on how long the test took; run now (crawlChanges runs pending afterCrawls first),
 * every problem is first seen at the end of the first of them. Answers that end.
 */
export async function runPendingAfterCrawls(app: App, firstCrawlId: number): Promise<string> {
  await app.backend.crawlChanges(firstCrawlId);
  return (await app.backend.getCrawl(firstCrawlId))!.finishedAt!;
}

export interface Facade {
  server: Server;
  baseUrl: string;
  /** http://127.0.0.1:port/v1/projects/<TOKEN> */
  api: string;
  key: string;
  close(): Promise<void>;
}

export async function startFacade(app: App): Promise<Facade> {
  const server = createHttpServer({ logger: silentLogger, handlers: [createV1Handler(httpDeps(app))] });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const key = (await createApiKey(app.store.sql, app.backend.publicToken, 'test')).key;
  return {
    server,
    baseUrl,
    api: `${baseUrl}/v1/projects/${encodeURIComponent(app.backend.publicToken)}`,
    key,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function page(url: string, links: string[], over: Partial<PageWrite> = {}): PageWrite {
  return {
    url,
    host: new URL(url).host,
    httpStatus: 200,
    contentType: 'text/html',
    indexed: true,
    showInSearch: true,
    title: `Title of ${url}`,
    language: 'en',
    tags: ['public'],
    superwords: [],
    content: 'some words',
    meta: null,
    created: null,
    modified: null,
    sitemapLastmod: null,
    crawlId: null,
    links: links.map((u) => ({ url: u, element: 'a', text: '' })),
    ...over,
  };
}

const STATUS: Record<LinkOutcomeReason, number> = { ok: 200, skipped: 0, not_found: 404, forbidden: 403, server_error: 500, redirect: 301, unknown: 0 };

export function outcome(url: string, reason: LinkOutcomeReason, over: Partial<OutcomeWrite> = {}): OutcomeWrite {
  return {
    url,
    httpStatus: STATUS[reason],
    reason,
    message: `${reason} message`,
    redirectsTo: reason === 'redirect' ? `${url}-moved` : null,
    crawlId: null,
    ...over,
  };
}

/**
 * A small site with every reason, on two hosts:
 *  a.example/  → /missing (404), /secret (403), /fail (500), /old (301), /later (unknown), /ok (ok), /skip (skipped)
 *  a.example/b → /missing (404), /old (301)
 *  b.example:8080/ → /doc.pdf (404)
 */
export async function seedSmallSite(app: App): Promise<void> {
  await writeThrough(app.store, smallSiteWrites());
}

/** What seedSmallSite writes. */
export function smallSiteWrites(): { pages: PageWrite[]; outcomes: OutcomeWrite[] } {
  const a = `https://${HOST_A}`;
  const b = `http://${HOST_B}`;
  return {
    pages: [
      page(`${a}/`, [`${a}/missing`, `${a}/secret`, `${a}/fail`, `${a}/old`, `${a}/later`, `${a}/ok`, `${a}/skip`]),
      page(`${a}/b`, [`${a}/old`, `${a}/missing`]),
      page(`${b}/`, [`${b}/doc.pdf`]),
    ],
    outcomes: [
      outcome(`${a}/missing`, 'not_found'),
      outcome(`${a}/secret`, 'forbidden'),
      outcome(`${a}/fail`, 'server_error'),
      outcome(`${a}/old`, 'redirect', { redirectsTo: `${a}/new` }),
      outcome(`${a}/later`, 'unknown', { message: 'not fetched: max_pages reached' }),
      outcome(`${a}/ok`, 'ok'),
      outcome(`${a}/skip`, 'skipped'),
      outcome(`${b}/doc.pdf`, 'not_found'),
    ],
  };
}

/** `n` problem links over `pages` pages of HOST_A, reasons in turn; returns per-reason counts. */
export async function seedMany(app: App, pages: number, linksPerPage: number): Promise<Record<string, number>> {
  const w = manyWrites(pages, linksPerPage);
  await writeThrough(app.store, w);
  return w.counts;
}

/** What seedMany writes, and its per-reason counts. */
export function manyWrites(pages: number, linksPerPage: number): { pages: PageWrite[]; outcomes: OutcomeWrite[]; counts: Record<string, number> } {
  const reasons = ['not_found', 'forbidden', 'server_error', 'redirect', 'unknown'] as const;
  const counts: Record<string, number> = { not_found: 0, forbidden: 0, server_error: 0, redirect: 0, unknown: 0 };
  const pw: PageWrite[] = [];
  const ow: OutcomeWrite[] = [];
  for (let p = 0; p < pages; p++) {
    const links: string[] = [];
    for (let l = 0; l < linksPerPage; l++) {
      const url = `https://${HOST_A}/broken/${p}-${l}`;
      const reason = reasons[(p + l) % reasons.length]!;
      counts[reason]!++;
      links.push(url);
      ow.push(outcome(url, reason));
    }
    pw.push(page(`https://${HOST_A}/p/${String(p).padStart(4, '0')}`, links));
  }
  return { pages: pw, outcomes: ow, counts };
}
