// A real app for in-process tests (SQLite in a temp dir, or PostgreSQL through makeAppOn; the embedded backend),
// the /v1 facade over it on loopback, a host with a clock the test moves, users of every role and posts.
import { mkdtempSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadApp, type App, type OpenAppOptions } from '../../src/app/open-app.js';
import { openAbilityHost, type AbilityHost } from '../../src/app/ability-host.js';
import { httpDeps } from '../../src/app/http.js';
import { createApiKey } from '../../src/auth/keys.js';
import type { PasswordCost } from '../../src/auth/passwords.js';
import { addUser } from '../../src/auth/users.js';
import { parseConfig } from '../../src/cli/load-config.js';
import { createV1Handler } from '../../src/http/v1.js';
import { createHttpServer } from '../../src/http/http-server.js';
import { silentLogger } from '../../src/lib/log.js';
import { BackendError } from '../../src/model/errors.js';
import type { Config, ConfigInput } from '../../src/model/config.js';
import { PostSchema, type PostInput } from '../../src/model/posts.js';
import { ROLES, type Role, type User } from '../../src/model/users.js';
import { importPosts } from '../../src/store/posts.js';
import type { StoreKit } from './stores.js';

export const TOKEN = 'proj1234:eu-north-1';
export const OTHER_TOKEN = 'other999:us-east-1';
export const HOST_A = 'a.example';
export const HOST_B = 'b.example:8080';

/** The /v1 and report tests' project: TOKEN, HOST_A over https tracking every link, HOST_B over http tracking PDFs. */
export const TWO_HOSTS: Partial<ConfigInput> = {
  project: { public_token: TOKEN },
  targets: [
    { host: HOST_A, scheme: 'https', track_links: 'all' },
    { host: HOST_B, scheme: 'http', track_links: 'pdf', use_sitemap: false },
  ],
};

export const TARGET_HOST = '127.0.0.1:18123';
export const SITE = `http://${TARGET_HOST}`;

/** The ability tests' project: the default token, one http target tracking every link. */
export const ONE_HOST: Partial<ConfigInput> = { targets: [{ host: TARGET_HOST, scheme: 'http', track_links: 'all' }] };

export function tempDir(prefix = 'svc-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * scrypt's cost for the passwords of in-process apps: 2^10, a thousandth of OWASP's, since what these tests check is
 * who signs in, not how slow a guess is (test/auth/passwords.test.ts checks the hashing at the real cost).
 */
export const TEST_PASSWORD_COST: PasswordCost = { N: 1024, r: 8, p: 1 };

/** loadApp as a command calls it, silent, with TEST_PASSWORD_COST. */
export function openApp(config: Config, opts: OpenAppOptions = {}): Promise<App> {
  return loadApp(config, { logger: silentLogger, passwordCost: TEST_PASSWORD_COST, ...opts });
}

/** An app on a new data_dir: `base` (TWO_HOSTS unless told), then `over` field by field; `opts` as openApp's. */
export function makeApp(
  over: Partial<ConfigInput> = {},
  base: Partial<ConfigInput> = TWO_HOSTS,
  opts: OpenAppOptions = {},
): Promise<App> {
  return openApp(parseConfig({ data_dir: tempDir(), log_level: 'silent', ...base, ...over }), opts);
}

/** makeApp on a new, empty database of the kit's dialect (PostgreSQL: database_url; SQLite: the file in data_dir). */
export async function makeAppOn(
  kit: StoreKit,
  over: Partial<ConfigInput> = {},
  base: Partial<ConfigInput> = TWO_HOSTS,
  opts: OpenAppOptions = {},
): Promise<App> {
  return makeApp({ ...over, database_url: await kit.databaseUrl() }, base, opts);
}

/**
 * Records in the history the end of every crawl a test ended straight in the store, as another process would end
 * one. The engine does that on its next sweep, about once a second, so a report read right after would have
 * firstSeen or not depending on how long the test took; recorded now (crawlChanges records pending ends first),
 * every problem is first seen at the end of the first of them. Answers that end.
 */
/**
 * Ends a crawl of `app` a test has seen all it needs of: stopped if it still runs (waiting out its pages would be most
 * of the test), then waited for.
 */
export async function endCrawl(app: App, id: number): Promise<void> {
  await app.backend.stopCrawl(id).catch((err: unknown) => {
    // Already ended (a loaded machine): nothing to stop.
    if (!(err instanceof BackendError && err.code === 'conflict')) throw err;
  });
  await app.backend.waitForCrawl(id);
}

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

/** The app's /v1 routes on loopback, with an API key of its project. */
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

/** One user per role, login = role name; tokens by login. */
export async function addRoleUsers(app: App): Promise<Record<Role, { user: User; token: string }>> {
  const out = {} as Record<Role, { user: User; token: string }>;
  for (const role of ROLES)
    out[role] = { user: { login: role, role }, token: await addUser(app.store.sql, role, role) };
  return out;
}

export const POSTS: PostInput[] = [
  {
    id: 1,
    url: `${SITE}/hello`,
    title: 'Hello world',
    status: 'publish',
    author: 'author',
    terms: { category: ['news'] },
    language: 'en',
    created: '2026-05-01T09:00:00Z',
    modified: '2026-05-02T09:00:00Z',
  },
  { id: 2, url: `${SITE}/private-by-author`, title: 'Private of author', status: 'private', author: 'author' },
  { id: 3, url: `${SITE}/draft-by-contributor`, title: 'Draft of contributor', status: 'draft', author: 'contributor' },
  { id: 4, url: `${SITE}/private-by-admin`, title: 'Private of admin', status: 'private', author: 'administrator' },
];

export async function seedPosts(app: App, posts: PostInput[] = POSTS): Promise<void> {
  await importPosts(
    app.store.sql,
    posts.map((p) => PostSchema.parse(p)),
  );
}

/** A host over the app, with a clock the test moves. */
export async function makeHost(app: App): Promise<{ host: AbilityHost; clock: { t: number } }> {
  const clock = { t: 1_000_000 };
  return { host: await openAbilityHost(app, { now: () => clock.t }), clock };
}
