// The CMS-style ability routes. Over a FakeBackend (routing, auth, input and error answers: the store holds only the
// users, whose store is tested on both stores in test/abilities/users.test.ts) on SQLite; svc/get-crawl over the real
// embedded backend on SQLite and on PostgreSQL.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/open-app.js';
import { openAbilityHost } from '../../src/app/ability-host.js';
import type { ConfigInput } from '../../src/model/config.js';
import { BackendError } from '../../src/model/errors.js';
import { createAbilityRoutesHandler } from '../../src/http/ability-routes.js';
import { createHttpServer } from '../../src/http/http-server.js';
import type { Role } from '../../src/model/users.js';
import { addRoleUsers, makeAppOn, ONE_HOST, seedPosts, SITE } from '../support/app.js';
import { type FakeBackend, makeFakeApp } from '../support/fake-backend.js';
import { createCrawl, setCrawlStatus } from '../../src/store/crawls.js';
import { httpDeps } from '../../src/app/http.js';
import { DIALECTS, storeKit } from '../support/stores.js';

let app: App;
let backend: FakeBackend;
let server: Server;
let base: string;
let tokens: Record<Role, string>;

afterEach(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await app.close();
});

async function start(over: Partial<ConfigInput> = {}, root = '/wp-json'): Promise<void> {
  ({ app, backend } = await makeFakeApp(over));
  tokens = Object.fromEntries(Object.entries(await addRoleUsers(app)).map(([r, v]) => [r, v.token])) as Record<
    Role,
    string
  >;
  await seedPosts(app);
  const host = await openAbilityHost(app);
  server = createHttpServer({ logger: app.logger, handlers: [createAbilityRoutesHandler(httpDeps(app), host)] });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}${root}/abilities/v1`;
}

interface Call {
  method?: string;
  role?: Role;
  token?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

async function call(path: string, o: Call = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.role) headers.authorization = `Bearer ${tokens[o.role]}`;
  if (o.token !== undefined) headers.authorization = o.token;
  let body: string | undefined = o.rawBody;
  if (o.body !== undefined) {
    body = JSON.stringify(o.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${base}${path}`, {
    method: o.method ?? (body !== undefined ? 'POST' : 'GET'),
    headers,
    body,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}

const runPath = (name: string) => `/abilities/${encodeURIComponent(name)}/run`;

describe('list and describe', () => {
  it('lists the abilities with the host API item shape, paged', async () => {
    await start();
    const all = await call('/abilities');
    expect(all.status).toBe(200);
    expect(all.headers.get('x-wp-total')).toBe('10');
    expect(all.body.map((a: { name: string }) => a.name)).toEqual([
      'svc/search',
      'svc/get-page',
      'svc/list-pages',
      'svc/get-page-meta',
      'svc/link-report',
      'svc/full-crawl',
      'svc/partial-crawl',
      'svc/manual-crawl',
      'svc/delete-pages',
      'svc/get-crawl',
    ]);
    const item = all.body[0];
    expect(Object.keys(item).sort()).toEqual([
      'category',
      'description',
      'input_schema',
      'label',
      'meta',
      'name',
      'output_schema',
    ]);
    expect(item.meta.annotations).toEqual({ readonly: true, destructive: false, idempotent: true });
    expect(item.input_schema).toMatchObject({ type: 'object', required: ['terms'] });

    const page3 = await call('/abilities?per_page=3&page=3');
    expect(page3.body.map((a: { name: string }) => a.name)).toEqual([
      'svc/partial-crawl',
      'svc/manual-crawl',
      'svc/delete-pages',
    ]);
    expect(page3.headers.get('x-wp-totalpages')).toBe('4');
    expect((await call('/abilities?per_page=3&page=9')).body).toEqual([]);
    expect((await call('/abilities?category=svc')).body).toHaveLength(10);
    expect((await call('/abilities?category=other')).body).toEqual([]);
  });

  it.each([
    ['per_page=0', 'per_page'],
    ['per_page=101', 'per_page'],
    ['page=0', 'page'],
    ['page=x', 'page'],
  ])('?%s → 400 naming %s', async (q, field) => {
    await start();
    const r = await call(`/abilities?${q}`);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'rest_invalid_param', data: { status: 400 } });
    expect(r.body.message).toMatch(new RegExp(`^${field}: `));
  });

  it('describes one ability by its name with the slash encoded (upper or lower case) or literal', async () => {
    await start();
    const encoded = await call('/abilities/svc%2Flink-report');
    expect(encoded.status).toBe(200);
    expect(encoded.body).toMatchObject({
      name: 'svc/link-report',
      category: 'svc',
      meta: { annotations: { readonly: true, destructive: false } },
    });
    expect(encoded.body.input_schema.properties.limit).toMatchObject({ maximum: 5000, default: 25 });
    expect((await call('/abilities/svc%2flink-report')).body).toEqual(encoded.body);
    expect((await call('/abilities/svc/link-report')).body).toEqual(encoded.body);
  });

  it('an unknown ability → 404 ability_not_found', async () => {
    await start();
    for (const path of ['/abilities/svc%2Fnope', '/abilities/svc/nope', '/abilities/nope', runPath('svc/nope')]) {
      const r = await call(path, path.endsWith('/run') ? { method: 'POST', role: 'administrator' } : {});
      expect(r.status).toBe(404);
      expect(r.body).toEqual({
        code: 'ability_not_found',
        message: expect.stringContaining('no ability named'),
        data: { status: 404 },
      });
    }
  });

  it('lists the category svc', async () => {
    await start();
    expect((await call('/categories')).body).toEqual([expect.objectContaining({ slug: 'svc' })]);
    expect((await call('/categories/svc')).status).toBe(200);
    expect((await call('/categories/other')).status).toBe(404);
  });

  it('an unknown path under the namespace → 404 rest_no_route; paths outside are left to other handlers', async () => {
    await start();
    expect((await call('/nothing')).body).toMatchObject({ code: 'rest_no_route', data: { status: 404 } });
    for (const bad of ['/abilities/%E0%A4%A', '/abilities/svc%2F%ZZ/run', '/categories/%E0']) {
      const r = await call(bad);
      expect([r.status, r.body.code], bad).toEqual([404, 'rest_no_route']);
    }
    const outside = await fetch(base.replace('/wp-json/abilities/v1', '/elsewhere'));
    expect(await outside.json()).toMatchObject({ error: { code: 'not_found' } });
  });
});

describe('run', () => {
  it('POST {"input": …} answers the ability output itself, encoded or literal slash', async () => {
    await start();
    const enc = await call(runPath('svc/search'), { role: 'subscriber', body: { input: { terms: 'hello' } } });
    expect(enc.status).toBe(200);
    expect(enc.body).toMatchObject({
      success: true,
      results: { total: 1, hits: [expect.objectContaining({ title: 'Hello world' })] },
    });
    const lit = await call('/abilities/svc/search/run', { role: 'subscriber', body: { input: { terms: 'hello' } } });
    expect(lit.body).toEqual(enc.body);
    expect(backend.calls.filter((c) => c.method === 'search').map((c) => c.args[0])).toEqual(['hello', 'hello']);
  });

  it('GET ?input=<JSON> runs a read-only ability', async () => {
    await start();
    const r = await call(
      `${runPath('svc/get-page-meta')}?input=${encodeURIComponent(JSON.stringify({ post_id: 1 }))}`,
      { role: 'subscriber' },
    );
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ title: 'Hello world', customFields: { postId: { value: 1 } } });
    const report = await call(runPath('svc/link-report'), { role: 'administrator' }); // no input: the default
    expect(report.body).toMatchObject({ summary: { not_found: 0 }, links: [], truncated: false });
  });

  it('a bare POST (no body, no Content-Type) runs an ability that takes no input', async () => {
    await start();
    const r = await call(runPath('svc/full-crawl'), { method: 'POST', role: 'administrator' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ mode: 'full', status: 'queued', urls: null, started_at: null });
  });

  it('DELETE ?input= runs the destructive delete-pages', async () => {
    await start();
    const urls = [`${SITE}/a`, `${SITE}/b`];
    const r = await call(`${runPath('svc/delete-pages')}?input=${encodeURIComponent(JSON.stringify({ urls }))}`, {
      method: 'DELETE',
      role: 'administrator',
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ deleted: [`${SITE}/a`], not_found: [`${SITE}/b`] });
  });

  it.each([
    ['GET', 'svc/full-crawl', 'POST'],
    ['GET', 'svc/delete-pages', 'POST, DELETE'],
    ['PUT', 'svc/search', 'GET, POST'],
    ['DELETE', 'svc/search', 'GET, POST'],
    ['PATCH', 'svc/manual-crawl', 'POST'],
  ])('%s on %s/run → 405 with Allow: %s', async (method, name, allow) => {
    await start();
    const r = await call(runPath(name), { method, role: 'administrator' });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe(allow);
    expect(r.body).toMatchObject({ code: 'rest_ability_invalid_method', data: { status: 405 } });
    expect(backend.calls).toEqual([]);
  });

  it('POST on a describe or list route → 405', async () => {
    await start();
    expect((await call('/abilities/svc%2Fsearch', { method: 'POST' })).status).toBe(405);
    expect((await call('/abilities', { method: 'DELETE' })).status).toBe(405);
  });

  it('maps every error to its status: 400, 401, 403, 404, 500, 502 (and 409 for a running crawl)', async () => {
    await start();
    const bad = await call(runPath('svc/link-report'), { role: 'administrator', body: { input: { limit: 99999 } } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({
      code: 'ability_invalid_input',
      message: expect.stringContaining('limit: must be at most 5000'),
      data: { status: 400, issues: [{ path: 'limit' }] },
    });

    const noUser = await call(runPath('svc/search'), { body: { input: { terms: 'x' } } });
    expect(noUser.status).toBe(401);
    expect(noUser.body).toMatchObject({ code: 'ability_invalid_permissions', data: { status: 401 } });
    expect(noUser.body.message).toMatch(/no user is set: send the header "Authorization: Bearer <user token>"/);
    expect(noUser.headers.get('www-authenticate')).toMatch(/^Bearer/);

    const lacking = await call(runPath('svc/link-report'), { role: 'editor', body: { input: {} } });
    expect(lacking.status).toBe(403);
    expect(lacking.body).toMatchObject({ code: 'ability_invalid_permissions', data: { status: 403 } });

    const hidden = await call(runPath('svc/get-page-meta'), { role: 'subscriber', body: { input: { post_id: 4 } } });
    const missing = await call(runPath('svc/get-page-meta'), {
      role: 'subscriber',
      body: { input: { post_id: 4444 } },
    });
    expect([hidden.status, hidden.body.code]).toEqual([404, 'svc_post_not_found']);
    expect([missing.status, missing.body.code, missing.body.data]).toEqual([
      404,
      'svc_post_not_found',
      hidden.body.data,
    ]);

    backend.report = { ...backend.report, truncated: 'maybe' as unknown as boolean };
    const badOut = await call(runPath('svc/link-report'), {
      role: 'administrator',
      body: { input: { refresh: true } },
    });
    expect([badOut.status, badOut.body.code]).toEqual([500, 'ability_invalid_output']);

    backend.failWith = new BackendError('upstream_error', '/v1 answered 503', 503);
    const upstream = await call(runPath('svc/search'), { role: 'subscriber', body: { input: { terms: 'x' } } });
    expect(upstream.status).toBe(502);
    expect(upstream.body).toMatchObject({ code: 'svc_api_error', data: { status: 502, upstream_status: 503 } });

    backend.failWith = new BackendError('conflict', 'a crawl is already running');
    const conflict = await call(runPath('svc/full-crawl'), { role: 'administrator', body: {} });
    expect([conflict.status, conflict.body.code]).toEqual([409, 'svc_api_error']);
  });

  it('a wrong or malformed token is refused with 401 (no silent fallback to no user)', async () => {
    await start();
    for (const token of ['Bearer svc_user_wrong', `Bearer ${'x'.repeat(20)}`, 'Basic abc', 'Bearer']) {
      const r = await call('/abilities', { token });
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({ code: 'ability_invalid_permissions', data: { status: 401 } });
      expect(r.headers.get('www-authenticate')).toMatch(/invalid_token/);
    }
  });

  it('the token picks the current user', async () => {
    await start();
    const asAdmin = await call(runPath('svc/get-page-meta'), {
      role: 'administrator',
      body: { input: { post_id: 4 } },
    });
    expect(asAdmin.status).toBe(200);
    const asAuthor = await call(runPath('svc/get-page-meta'), { role: 'author', body: { input: { post_id: 2 } } });
    expect(asAuthor.status).toBe(200);
    const asContributor = await call(runPath('svc/get-page-meta'), {
      role: 'contributor',
      body: { input: { post_id: 2 } },
    });
    expect(asContributor.status).toBe(404);
  });

  it.each([
    [
      'input sent at the top level',
      { rawBody: '{"terms":"x"}', headers: { 'content-type': 'application/json' } },
      'rest_invalid_param',
      /unknown field\(s\) "terms".*\{"input"/,
    ],
    [
      'a body that is not an object',
      { rawBody: '[1]', headers: { 'content-type': 'application/json' } },
      'rest_invalid_param',
      /JSON object/,
    ],
    [
      'invalid JSON',
      { rawBody: '{"input":', headers: { 'content-type': 'application/json' } },
      'invalid_json',
      /not valid JSON/,
    ],
    [
      'a non-JSON body',
      { rawBody: 'terms=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
      'invalid_content_type',
      /application\/json/,
    ],
  ])('%s → 400', async (_what, o, code, msg) => {
    await start();
    const r = await call(runPath('svc/search'), { method: 'POST', role: 'subscriber', ...o });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code, data: { status: 400 } });
    expect(r.body.message).toMatch(msg);
  });

  it('?input= that is not JSON → 400', async () => {
    await start();
    const r = await call(`${runPath('svc/search')}?input=%7Bterms`, { role: 'subscriber' });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'rest_invalid_param', message: expect.stringMatching(/^input: /) });
  });

  it('a body over the size limit → 413', async () => {
    await start({ server: { max_body_bytes: 1024 } });
    const r = await call(runPath('svc/search'), { role: 'subscriber', body: { input: { terms: 'x'.repeat(5000) } } });
    expect(r.status).toBe(413);
    expect(r.body).toMatchObject({ code: 'payload_too_large', data: { status: 413 } });
  });
});

describe('version gate and rest_root', () => {
  it('host 6.8: the list is empty and every ability is unknown', async () => {
    await start({ host: { version: '6.8' } });
    const list = await call('/abilities');
    expect(list.status).toBe(200);
    expect(list.body).toEqual([]);
    expect(list.headers.get('x-wp-total')).toBe('0');
    const r = await call(runPath('svc/search'), { role: 'administrator', body: { input: { terms: 'x' } } });
    expect(r.status).toBe(404);
    expect(r.body.message).toMatch(/6\.8 is older than 6\.9/);
    expect((await call('/categories')).body).toEqual([]);
  });

  it('host 6.10 has the abilities', async () => {
    await start({ host: { version: '6.10' } });
    expect((await call('/abilities')).body).toHaveLength(10);
  });

  it('honours host.rest_root', async () => {
    await start({ host: { rest_root: '/api' } }, '/api');
    expect((await call('/abilities')).body).toHaveLength(10);
  });
});

describe.each(DIALECTS)('svc/get-crawl over the route (real embedded backend) on %s', (dialect) => {
  const kit = storeKit(dialect);
  afterAll(() => kit.stop());

  it('runs by GET ?input= and POST, answers the record in snake_case, and a missing crawl is a 404 naming what to do', async () => {
    app = await makeAppOn(kit, {}, ONE_HOST);
    tokens = Object.fromEntries(Object.entries(await addRoleUsers(app)).map(([r, v]) => [r, v.token])) as Record<
      Role,
      string
    >;
    const host = await openAbilityHost(app);
    server = createHttpServer({ logger: app.logger, handlers: [createAbilityRoutesHandler(httpDeps(app), host)] });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/wp-json/abilities/v1`;
    const none = await call(runPath('svc/get-crawl'), { role: 'administrator', method: 'GET' });
    expect([none.status, none.body.code]).toEqual([404, 'svc_crawl_not_found']);
    expect(none.body.message).toMatch(/start one with svc\/full-crawl/);
    const crawl = (await createCrawl(app.store.sql, app.config.project.public_token, 'partial'))!;
    await setCrawlStatus(app.store.sql, crawl.id, 'completed');
    const got = await call(
      `${runPath('svc/get-crawl')}?input=${encodeURIComponent(JSON.stringify({ id: crawl.id, wait_seconds: 5 }))}`,
      { role: 'administrator' },
    );
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      id: crawl.id,
      mode: 'partial',
      status: 'completed',
      urls: null,
      error: null,
      finished_at: expect.any(String),
    });
    expect((await call(runPath('svc/get-crawl'), { role: 'administrator', body: { input: {} } })).body).toEqual(
      got.body,
    );
    expect((await call(runPath('svc/get-crawl'), { role: 'subscriber', method: 'GET' })).status).toBe(403);
    host.close();
  });
});
