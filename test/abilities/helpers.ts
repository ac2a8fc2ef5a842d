// Shared fixtures: a real app (SQLite in a temp dir, or PostgreSQL through makeAppOn; the embedded backend) with
// users, posts and seeded pages.
import type { CrawlChanges } from '../../src/model/history.js';
import type { WebhookDelivery } from '../../src/model/webhooks.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openApp, type App } from '../../src/app/open-app.js';
import { addUser } from '../../src/auth/users.js';
import type { Backend } from '../../src/backend/backend.js';
import { BackendError } from '../../src/model/errors.js';
import type { CrawlRecord, CrawlRequest, DeletePagesResult, LinkReport, LinkReportQuery, PageIndexState, SearchParams, SearchResults } from '../../src/model/types.js';
import { parseConfig } from '../../src/cli/load-config.js';
import type { ConfigInput } from '../../src/model/config.js';
import { ROLES, type Role, type User } from '../../src/model/users.js';
import { createHost } from '../../src/app/host.js';
import { type Host } from '../../src/abilities/runtime.js';
import { importPosts } from '../../src/store/posts.js';
import { PostSchema, type PostInput } from '../../src/model/posts.js';
import type { ScheduleInfo } from '../../src/model/schedule.js';
import type { StoreKit } from '../support/stores.js';

export const SITE = 'http://127.0.0.1:18123';
export const TARGET_HOST = '127.0.0.1:18123';

export function tempDir(prefix = 'svc-abilities-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function makeApp(over: Partial<ConfigInput> = {}): App {
  return openApp(
    parseConfig({
      data_dir: tempDir(),
      log_level: 'silent',
      targets: [{ host: TARGET_HOST, scheme: 'http', track_links: 'all' }],
      ...over,
    }),
  );
}

/** makeApp on a new, empty database of the kit's dialect (PostgreSQL: database_url; SQLite: the file in data_dir). */
export async function makeAppOn(kit: StoreKit, over: Partial<ConfigInput> = {}): Promise<App> {
  return makeApp({ ...over, database_url: await kit.databaseUrl() });
}

/** One user per role, login = role name; tokens by login. */
export async function addRoleUsers(app: App): Promise<Record<Role, { user: User; token: string }>> {
  const out = {} as Record<Role, { user: User; token: string }>;
  for (const role of ROLES) out[role] = { user: { login: role, role }, token: await addUser(app.store.sql, role, role) };
  return out;
}

export const POSTS: PostInput[] = [
  { id: 1, url: `${SITE}/hello`, title: 'Hello world', status: 'publish', author: 'author', terms: { category: ['news'] }, language: 'en', created: '2026-05-01T09:00:00Z', modified: '2026-05-02T09:00:00Z' },
  { id: 2, url: `${SITE}/private-by-author`, title: 'Private of author', status: 'private', author: 'author' },
  { id: 3, url: `${SITE}/draft-by-contributor`, title: 'Draft of contributor', status: 'draft', author: 'contributor' },
  { id: 4, url: `${SITE}/private-by-admin`, title: 'Private of admin', status: 'private', author: 'administrator' },
];

export async function seedPosts(app: App, posts: PostInput[] = POSTS): Promise<void> {
  await importPosts(app.store.sql, posts.map((p) => PostSchema.parse(p)));
}

/** A host over the app, with a clock the test moves. */
export async function makeHost(app: App): Promise<{ host: Host; clock: { t: number } }> {
  const clock = { t: 1_000_000 };
  return { host: await createHost(app, { now: () => clock.t }), clock };
}


/** An empty REST-form report over the configured target. */
export function emptyReport(over: Partial<LinkReport> = {}): LinkReport {
  const section = () => ({ count: 0, pages: [] });
  return {
    notFound: section(), forbidden: section(), serverError: section(), redirect: section(), unknown: section(),
    targets: [{ host: TARGET_HOST, linkTracking: 'all', walkLinks: true, lastCrawlError: null }], truncated: false, lastFullCrawl: null,
    ...over,
  };
}

/**
 * A stand-in for an upstream /v1 service: answers with fixed data, records every call, and can be told to fail.
 * Used where a test needs to see whether the backend was reached at all, or needs a failure.
 */
export class FakeBackend implements Backend {
  readonly kind = 'remote' as const;
  readonly calls: { method: string; args: unknown[] }[] = [];
  readonly publicToken: string;
  failWith: BackendError | null = null;
  report: LinkReport = emptyReport();
  private nextId = 1;
  private listeners = new Set<(r: CrawlRecord) => void>();

  constructor(publicToken = 'demo1234:eu-north-1') {
    this.publicToken = publicToken;
  }

  private hit(method: string, args: unknown[]): void {
    this.calls.push({ method, args });
    if (this.failWith) throw this.failWith;
  }

  count(method: string): number {
    return this.calls.filter((c) => c.method === method).length;
  }

  async startCrawl(req: CrawlRequest): Promise<CrawlRecord> {
    this.hit('startCrawl', [req]);
    return { id: this.nextId++, mode: req.mode, status: 'queued', ...(req.urls ? { urls: req.urls } : {}), startedAt: null, finishedAt: null, stats: { pages: 0, links: 0, errors: 0 } };
  }
  async queueCrawl(req: CrawlRequest, trigger: string): Promise<CrawlRecord> {
    this.hit('queueCrawl', [req, trigger]);
    return this.startCrawl(req);
  }
  async schedule(): Promise<ScheduleInfo> {
    return { full: null, partial: null };
  }
  async getCrawl(): Promise<CrawlRecord | null> {
    return null;
  }
  async waitForCrawl(id: number): Promise<CrawlRecord> {
    this.hit('waitForCrawl', [id]);
    throw new BackendError('not_found', `crawl ${id} not found`);
  }
  async stopCrawl(id: number): Promise<CrawlRecord> {
    this.hit('stopCrawl', [id]);
    throw new BackendError('not_found', `crawl ${id} not found`);
  }
  async listCrawls(): Promise<CrawlRecord[]> {
    return [];
  }
  async reportVersion(): Promise<string | null> {
    return null;
  }
  async linkReport(query: LinkReportQuery): Promise<LinkReport> {
    this.hit('linkReport', [query]);
    return structuredClone(this.report);
  }
  async crawlChanges(id: number): Promise<CrawlChanges> {
    this.hit('crawlChanges', [id]);
    throw new BackendError('not_found', `crawl ${id} not found`);
  }
  async listWebhookDeliveries(): Promise<WebhookDelivery[]> {
    return [];
  }
  async search(terms: string, params: SearchParams): Promise<SearchResults> {
    this.hit('search', [terms, params]);
    return { total: 1, duration: 1, hits: [{ score: 1, title: 'Hello world', url: `${SITE}/hello`, language: 'en', highlight: '<em>Hello</em> world', tags: ['public'], created: null, modified: null, customFields: {} }] };
  }
  async deletePages(urls: string[]): Promise<DeletePagesResult> {
    this.hit('deletePages', [urls]);
    return { deleted: urls.slice(0, 1), notFound: urls.slice(1) };
  }
  async pageIndexState(url: string): Promise<PageIndexState> {
    this.hit('pageIndexState', [url]);
    return { indexed: false, inSearch: false, lastCrawled: null };
  }
  onCrawlEnded(listener: (record: CrawlRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  /** As if a crawl started by this process ended. */
  endCrawl(record: Partial<CrawlRecord> = {}): void {
    const r: CrawlRecord = { id: 99, mode: 'full', status: 'completed', startedAt: null, finishedAt: null, stats: { pages: 0, links: 0, errors: 0 }, ...record };
    for (const l of this.listeners) l(r);
  }
  async close(): Promise<void> {}
}

/** An app whose backend is a FakeBackend (the store stays real). */
export function makeFakeApp(over: Partial<ConfigInput> = {}): { app: App; backend: FakeBackend } {
  const app = makeApp(over);
  const backend = new FakeBackend(app.config.project.public_token);
  const real = app.backend;
  app.backend = backend;
  const close = app.close.bind(app);
  app.close = async () => {
    app.backend = real;
    await close();
  };
  return { app, backend };
}
