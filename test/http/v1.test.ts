// The /v1 facade over the embedded backend: every endpoint, the auth table, and every error answer; on SQLite and on
// PostgreSQL (the app on database_url).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/open-app.js';
import { createApiKey } from '../../src/auth/keys.js';
import { createCrawl, setCrawlStatus, updateCrawlStats } from '../../src/store/crawls.js';
import { DIALECTS, storeKit, writeThrough } from '../support/stores.js';
import { HOST_A, HOST_B, makeAppOn, OTHER_TOKEN, startFacade, TOKEN, type Facade } from '../support/app.js';
import { outcome, linkingPage as page, seedMany, seedSmallSite } from '../support/writes.js';

const SECTIONS = ['notFound', 'forbidden', 'serverError', 'redirect', 'unknown'] as const;

interface Answer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

async function call(url: string, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body, text };
}

function linksIn(report: any): number {
  return SECTIONS.reduce((n, s) => n + report[s].pages.reduce((m: number, p: any) => m + p.links.length, 0), 0);
}

/** Every error answer: JSON {error: {code, message}}, nothing internal. */
function expectError(a: Answer, status: number, code: string, message?: RegExp): void {
  expect(a.status, a.text).toBe(status);
  expect(a.headers.get('content-type')).toMatch(/^application\/json/);
  expect(a.body).toEqual({ error: { code, message: expect.any(String) } });
  if (message) expect(a.body.error.message).toMatch(message);
  expect(a.text).not.toMatch(/SqliteError|DatabaseError|SELECT |relation "|\n\s+at /);
}

describe.each(DIALECTS)('/v1 facade (embedded) on %s', (dialect) => {
  const kit = storeKit(dialect);
  let app: App;
  let f: Facade;
  let auth: Record<string, string>;
  const json = { 'content-type': 'application/json' };

  beforeAll(async () => {
    app = await makeAppOn(kit, { server: { max_body_bytes: 2048 } });
    f = await startFacade(app);
    auth = { authorization: `Bearer ${f.key}` };
    await seedSmallSite(app);
  });
  afterAll(async () => {
    await f?.close();
    await app?.close();
    await kit.stop();
  });

  describe('auth', () => {
    const cases: [string, Record<string, string>, RegExp][] = [
      ['no header', {}, /missing API key/],
      ['Basic scheme', { authorization: 'Basic dXNlcjpwYXNz' }, /must be "Bearer <API_KEY>"/],
      ['no scheme', { authorization: 'svc_key_abc' }, /must be "Bearer <API_KEY>"/],
      ['empty header', { authorization: '' }, /must be "Bearer <API_KEY>"|missing API key/],
      ['Bearer without a key', { authorization: 'Bearer ' }, /must be "Bearer <API_KEY>"/],
      ['wrong key', { authorization: 'Bearer svc_key_not-a-real-key' }, /not valid/],
    ];
    for (const [name, headers, message] of cases) {
      it(`401 with WWW-Authenticate: Bearer — ${name}`, async () => {
        const a = await call(`${f.api}/link-report`, { headers });
        expectError(a, 401, 'unauthorized', message);
        expect(a.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
      });
    }

    it('a wrong key is named invalid_token in the challenge', async () => {
      const a = await call(`${f.api}/link-report`, { headers: { authorization: 'Bearer wrong' } });
      expect(a.headers.get('www-authenticate')).toContain('error="invalid_token"');
    });

    it('every keyed endpoint needs the key', async () => {
      for (const [method, path] of [
        ['GET', '/crawls'],
        ['POST', '/crawls'],
        ['GET', '/crawls/1'],
        ['GET', '/link-report'],
        ['GET', '/pages?url=https%3A%2F%2Fa.example%2F'],
        ['POST', '/pages/delete'],
      ] as const) {
        const a = await call(`${f.api}${path}`, { method, headers: json, body: method === 'POST' ? '{}' : undefined });
        expectError(a, 401, 'unauthorized');
      }
    });

    it('a valid key of another project and an unknown token both answer the same 404', async () => {
      const other = (await createApiKey(app.store.sql, OTHER_TOKEN, 'other')).key;
      const otherKey = await call(`${f.api}/link-report`, { headers: { authorization: `Bearer ${other}` } });
      const otherProject = await call(`${f.baseUrl}/v1/projects/${encodeURIComponent(OTHER_TOKEN)}/link-report`, {
        headers: { authorization: `Bearer ${other}` },
      });
      const unknown = await call(`${f.baseUrl}/v1/projects/nobody00:eu-west-1/link-report`, { headers: auth });
      expectError(otherKey, 404, 'not_found');
      expectError(otherProject, 404, 'not_found');
      expectError(unknown, 404, 'not_found');
      expect(otherKey.text).toBe(unknown.text);
      expect(otherProject.text).toBe(unknown.text);
    });

    for (const bad of [
      'proj1234',
      'proj1234:eu-north-1:x',
      'proj1234:EU',
      'a%ZZb:eu',
      '%20proj1234:eu-north-1',
      ':eu-north-1',
    ]) {
      it(`malformed public token "${bad}" → 404`, async () => {
        expectError(await call(`${f.baseUrl}/v1/projects/${bad}/link-report`, { headers: auth }), 404, 'not_found');
      });
    }

    it('accepts the token with its colon percent-encoded or not', async () => {
      expect((await call(`${f.baseUrl}/v1/projects/${TOKEN}/link-report`, { headers: auth })).status).toBe(200);
      expect(
        (await call(`${f.baseUrl}/v1/projects/${encodeURIComponent(TOKEN)}/link-report`, { headers: auth })).status,
      ).toBe(200);
    });
  });

  describe('link-report', () => {
    it('answers the REST form', async () => {
      const a = await call(`${f.api}/link-report`, { headers: auth });
      expect(a.status).toBe(200);
      expect(Object.keys(a.body).sort()).toEqual([
        'counts',
        'forbidden',
        'lastFullCrawl',
        'next_cursor',
        'notFound',
        'redirect',
        'serverError',
        'status',
        'targets',
        'topLinks',
        'truncated',
        'unknown',
      ]);
      expect(a.body.notFound.count).toBe(3);
      expect(a.body.redirect.pages[0].links[0]).toEqual({
        url: `https://${HOST_A}/old`,
        httpStatus: 301,
        message: 'redirect message',
        redirectsTo: `https://${HOST_A}/new`,
        element: 'a',
        text: '',
      });
      expect(a.body.targets).toEqual([
        { host: HOST_A, linkTracking: 'all', walkLinks: true, lastCrawlError: null, pages: expect.any(Number) },
        { host: HOST_B, linkTracking: 'pdf', walkLinks: true, lastCrawlError: null, pages: expect.any(Number) },
      ]);
      expect(a.body.truncated).toBe(false);
    });

    it('HEAD answers like GET without a body', async () => {
      const res = await fetch(`${f.api}/link-report`, { method: 'HEAD', headers: auth });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('');
    });

    it('target limits to one host; an unknown host is a 400 naming target', async () => {
      const a = await call(`${f.api}/link-report?target=${encodeURIComponent(HOST_B)}`, { headers: auth });
      expect(a.status).toBe(200);
      expect(linksIn(a.body)).toBe(1);
      expect(a.body.targets.map((t: any) => t.host)).toEqual([HOST_B]);
      expectError(
        await call(`${f.api}/link-report?target=evil.example`, { headers: auth }),
        400,
        'invalid_input',
        /^target: "evil.example"/,
      );
      expectError(await call(`${f.api}/link-report?target=`, { headers: auth }), 400, 'invalid_input', /^target:/);
    });

    for (const bad of ['0', '-1', '5001', '1.5', 'abc', '', '1e3', ' 5']) {
      it(`limit=${JSON.stringify(bad)} → 400 naming limit`, async () => {
        expectError(
          await call(`${f.api}/link-report?limit=${encodeURIComponent(bad)}`, { headers: auth }),
          400,
          'invalid_input',
          /^limit: must be an integer from 1 to 5000$/,
        );
      });
    }

    it('limit given twice, or an unknown parameter → 400 naming it', async () => {
      expectError(
        await call(`${f.api}/link-report?limit=1&limit=2`, { headers: auth }),
        400,
        'invalid_input',
        /^limit: /,
      );
      expectError(
        await call(`${f.api}/link-report?limt=2`, { headers: auth }),
        400,
        'invalid_input',
        /unknown query parameter "limt"/,
      );
    });

    it('limit edges 1 and 5000 on a report larger than the default limit', async () => {
      const big = await makeAppOn(kit);
      const bf = await startFacade(big);
      try {
        const counts = await seedMany(big, 120, 12); // 1440 problem links
        const h = { authorization: `Bearer ${bf.key}` };
        const one = await call(`${bf.api}/link-report?limit=1`, { headers: h });
        expect(one.status).toBe(200);
        expect(linksIn(one.body)).toBe(1);
        expect(one.body.truncated).toBe(true);
        expect(one.body.notFound.pages[0].url).toBe(`https://${HOST_A}/p/0000`);
        const dflt = await call(`${bf.api}/link-report`, { headers: h });
        expect(linksIn(dflt.body)).toBe(1000);
        expect(dflt.body.truncated).toBe(true);
        const max = await call(`${bf.api}/link-report?limit=5000`, { headers: h });
        expect(linksIn(max.body)).toBe(1440);
        expect(max.body.truncated).toBe(false);
        for (const r of [one.body, dflt.body, max.body]) {
          expect(SECTIONS.map((s) => r[s].count)).toEqual([
            counts.not_found,
            counts.forbidden,
            counts.server_error,
            counts.redirect,
            counts.unknown,
          ]);
        }
      } finally {
        await bf.close();
        await big.close();
      }
    });

    it('wrong method → 405 with Allow', async () => {
      const a = await call(`${f.api}/link-report`, { method: 'POST', headers: { ...auth, ...json }, body: '{}' });
      expectError(a, 405, 'method_not_allowed');
      expect(a.headers.get('allow')).toBe('GET, HEAD');
    });
  });

  describe('crawls', () => {
    it('POST validates the body: content type, JSON, object, mode, urls', async () => {
      const post = (body: string, headers: Record<string, string> = json) =>
        call(`${f.api}/crawls`, { method: 'POST', headers: { ...auth, ...headers }, body });
      expectError(
        await post('{"mode":"full"}', { 'content-type': 'text/plain' }),
        400,
        'invalid_content_type',
        /Content-Type/,
      );
      expectError(await post('{"mode":"full"}', {}), 400, 'invalid_content_type');
      expectError(await post('{"mode":'), 400, 'invalid_json');
      expectError(await post(''), 400, 'invalid_input', /body must be a JSON object/);
      expectError(await post('[]'), 400, 'invalid_input', /body must be a JSON object/);
      expectError(await post('{}'), 400, 'invalid_input', /^mode: is required/);
      expectError(
        await post('{"mode":"everything"}'),
        400,
        'invalid_input',
        /^mode: must be one of full, partial, manual$/,
      );
      expectError(await post('{"mode":"manual"}'), 400, 'invalid_input', /^urls: is required when mode is manual$/);
      expectError(
        await post('{"mode":"manual","urls":"https://a.example/"}'),
        400,
        'invalid_input',
        /^urls: must be an array/,
      );
      expectError(await post('{"mode":"manual","urls":[]}'), 400, 'invalid_input', /^urls: must list at least one URL/);
      expectError(
        await post('{"mode":"manual","urls":["/relative"]}'),
        400,
        'invalid_input',
        /^urls\[0\]: must be a full http\(s\) URL/,
      );
      expectError(
        await post('{"mode":"full","urls":["https://a.example/"]}'),
        400,
        'invalid_input',
        /^urls: is only allowed with mode manual/,
      );
      expectError(await post('{"mode":"full","force":true}'), 400, 'invalid_input', /unknown field "force"/);
    });

    it('a body over server.max_body_bytes → 413', async () => {
      const body = JSON.stringify({
        mode: 'manual',
        urls: Array.from({ length: 100 }, (_, i) => `https://${HOST_A}/page-${i}`),
      });
      expect(body.length).toBeGreaterThan(2048);
      expectError(
        await call(`${f.api}/crawls`, { method: 'POST', headers: { ...auth, ...json }, body }),
        413,
        'payload_too_large',
      );
    });

    it('wrong method → 405', async () => {
      const a = await call(`${f.api}/crawls`, { method: 'DELETE', headers: auth });
      expectError(a, 405, 'method_not_allowed');
      expect(a.headers.get('allow')).toBe('POST, GET, HEAD');
    });

    it('GET lists records newest first, paged; GET /crawls/<id> shows one with its stats', async () => {
      const ids: number[] = [];
      for (const mode of ['full', 'partial', 'manual'] as const) {
        const rec = (await createCrawl(
          app.store.sql,
          TOKEN,
          mode,
          mode === 'manual' ? [`https://${HOST_A}/`] : undefined,
        ))!;
        await updateCrawlStats(app.store.sql, rec.id, { pages: 3, links: 9, errors: 1 });
        await setCrawlStatus(app.store.sql, rec.id, 'completed');
        ids.push(rec.id);
      }
      const list = await call(`${f.api}/crawls`, { headers: auth });
      expect(list.status).toBe(200);
      expect(list.body.crawls.map((c: any) => c.id)).toEqual([...ids].reverse());
      expect(list.body).toMatchObject({ limit: 20, offset: 0 });
      const paged = await call(`${f.api}/crawls?limit=1&offset=1`, { headers: auth });
      expect(paged.body.crawls.map((c: any) => c.id)).toEqual([ids[1]]);
      const one = await call(`${f.api}/crawls/${ids[2]}`, { headers: auth });
      expect(one.status).toBe(200);
      expect(one.body).toMatchObject({
        id: ids[2],
        mode: 'manual',
        status: 'completed',
        urls: [`https://${HOST_A}/`],
        stats: { pages: 3, links: 9, errors: 1 },
      });
      expect(one.body.finishedAt).toEqual(expect.any(String));
      expectError(await call(`${f.api}/crawls/999999`, { headers: auth }), 404, 'crawl_not_found');
      expectError(
        await call(`${f.api}/crawls/abc`, { headers: auth }),
        400,
        'invalid_input',
        /^id: must be a positive integer/,
      );
      expectError(
        await call(`${f.api}/crawls?limit=0`, { headers: auth }),
        400,
        'invalid_input',
        /^limit: must be an integer from 1 to 100/,
      );
      expectError(await call(`${f.api}/crawls?offset=-1`, { headers: auth }), 400, 'invalid_input', /^offset: /);
    });
  });

  describe('search (public) and pages/delete', () => {
    it('search needs no key, validates its body, and still checks the project', async () => {
      await writeThrough(app.store, {
        pages: [page(`https://${HOST_A}/hello`, [], { title: 'Hello zebra', content: 'a zebra crossing' })],
      });
      const a = await call(`${f.api}/search`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ terms: 'zebra' }),
      });
      expect(a.status, a.text).toBe(200);
      expect(a.body.hits.map((h: any) => h.url)).toEqual([`https://${HOST_A}/hello`]);
      // Any Authorization header, even a wrong one, is ignored on the public route.
      expect(
        (
          await call(`${f.api}/search`, {
            method: 'POST',
            headers: { ...json, authorization: 'Bearer wrong' },
            body: JSON.stringify({ terms: 'zebra' }),
          })
        ).status,
      ).toBe(200);
      expectError(
        await call(`${f.api}/search`, { method: 'POST', headers: json, body: '{}' }),
        400,
        'invalid_input',
        /^terms: must be a string/,
      );
      expectError(
        await call(`${f.api}/search`, { method: 'POST', headers: json, body: '{"terms":"x","params":{"size":0}}' }),
        400,
        'invalid_input',
        /^params\.size: /,
      );
      expectError(
        await call(`${f.api}/search`, { method: 'POST', headers: json, body: '{"terms":"x","params":{"colour":1}}' }),
        400,
        'invalid_input',
        /colour/,
      );
      expectError(
        await call(`${f.baseUrl}/v1/projects/nobody00:eu-west-1/search`, {
          method: 'POST',
          headers: json,
          body: '{"terms":"x"}',
        }),
        404,
        'not_found',
      );
      expectError(await call(`${f.api}/search`, { headers: json }), 405, 'method_not_allowed');
    });

    it("search takes search_params (the ability's name) as well as params, not both", async () => {
      await writeThrough(app.store, {
        pages: [
          page(`https://${HOST_A}/zebra-1`, [], { title: 'Zebra one', content: 'zebra' }),
          page(`https://${HOST_A}/zebra-2`, [], { title: 'Zebra two', content: 'zebra' }),
        ],
      });
      const post = (body: unknown) =>
        call(`${f.api}/search`, { method: 'POST', headers: json, body: JSON.stringify(body) });
      const a = await post({ terms: 'zebra', search_params: { size: 1 } });
      expect(a.status, a.text).toBe(200);
      expect(a.body.hits).toHaveLength(1);
      expect(a.body.total).toBeGreaterThanOrEqual(2);
      expect((await post({ terms: 'zebra', params: { size: 1 } })).body.hits).toHaveLength(1);
      expectError(
        await post({ terms: 'zebra', search_params: { size: 0 } }),
        400,
        'invalid_input',
        /^search_params\.size: /,
      );
      expectError(
        await post({ terms: 'zebra', params: {}, search_params: {} }),
        400,
        'invalid_input',
        /search_params: give params or search_params, not both/,
      );
    });

    it('GET /pages?url= answers what the index holds of one URL', async () => {
      await writeThrough(app.store, {
        pages: [
          page(`https://${HOST_A}/state`, []),
          page(`https://${HOST_A}/hidden-state`, [], { showInSearch: false }),
        ],
      });
      const get = (u: string) => call(`${f.api}/pages?url=${encodeURIComponent(u)}`, { headers: auth });
      const a = await get(`https://${HOST_A}/state`);
      expect(a.status, a.text).toBe(200);
      expect(a.body).toEqual({ indexed: true, inSearch: true, lastCrawled: expect.stringMatching(/^\d{4}-/) });
      expect((await get(`https://${HOST_A}/hidden-state`)).body).toMatchObject({ indexed: true, inSearch: false });
      expect((await get(`https://${HOST_A}/never-crawled`)).body).toEqual({
        indexed: false,
        inSearch: false,
        lastCrawled: null,
      });
      // Without url, the route lists the stored pages instead (GET …/pages?prefix=).
      expect((await call(`${f.api}/pages`, { headers: auth })).body).toMatchObject({
        prefix: '/',
        total: expect.any(Number),
      });
      expectError(await get('not a url'), 400, 'invalid_input', /^url: must be a full http\(s\) URL/);
    });

    it('link-report reasons: only those sections, filtered before the limit; a bad reason is a 400', async () => {
      const a = await call(`${f.api}/link-report?reasons=redirect,server_error&limit=1`, { headers: auth });
      expect(a.status, a.text).toBe(200);
      expect([a.body.notFound.count, a.body.forbidden.count, a.body.unknown.count]).toEqual([0, 0, 0]);
      expect(a.body.serverError.pages[0].links[0].url).toBe(`https://${HOST_A}/fail`);
      expect(a.body.redirect.count).toBeGreaterThanOrEqual(1);
      expect(a.body.truncated).toBe(true);
      expectError(
        await call(`${f.api}/link-report?reasons=broken`, { headers: auth }),
        400,
        'invalid_input',
        /^reasons: must be a comma-separated list/,
      );
    });

    it('pages/delete validates 1 to 50 urls and answers which were deleted', async () => {
      const post = (body: unknown) =>
        call(`${f.api}/pages/delete`, { method: 'POST', headers: { ...auth, ...json }, body: JSON.stringify(body) });
      expectError(await post({}), 400, 'invalid_input', /^urls: is required/);
      expectError(await post({ urls: 'https://a.example/' }), 400, 'invalid_input', /^urls: must be an array/);
      expectError(await post({ urls: [] }), 400, 'invalid_input', /^urls: must list 1 to 50 URLs/);
      expectError(
        await post({ urls: Array.from({ length: 51 }, (_, i) => `https://${HOST_A}/${i}`) }),
        400,
        'invalid_input',
        /^urls: must list 1 to 50 URLs/,
      );
      expectError(await post({ urls: [42] }), 400, 'invalid_input', /^urls\[0\]: must be a string/);
      await writeThrough(app.store, { pages: [page(`https://${HOST_A}/to-delete`, [])] });
      const a = await post({ urls: [`https://${HOST_A}/to-delete`, `https://${HOST_A}/never-there`] });
      expect(a.status, a.text).toBe(200);
      expect(a.body).toEqual({ deleted: [`https://${HOST_A}/to-delete`], notFound: [`https://${HOST_A}/never-there`] });
    });
  });

  describe('openapi and routing', () => {
    it('GET /v1/openapi.json is an OpenAPI 3.1 document of every endpoint, built from the request schemas', async () => {
      const a = await call(`${f.baseUrl}/v1/openapi.json`);
      expect(a.status).toBe(200);
      expect(a.body.openapi).toBe('3.1.0');
      expect(Object.keys(a.body.paths).sort()).toEqual([
        '/v1/openapi.json',
        '/v1/projects/{publicToken}/crawls',
        '/v1/projects/{publicToken}/crawls/{id}',
        '/v1/projects/{publicToken}/crawls/{id}/changes',
        '/v1/projects/{publicToken}/link-report',
        '/v1/projects/{publicToken}/pages',
        '/v1/projects/{publicToken}/pages/content',
        '/v1/projects/{publicToken}/pages/delete',
        '/v1/projects/{publicToken}/schedule',
        '/v1/projects/{publicToken}/search',
        '/v1/projects/{publicToken}/search-stats',
        '/v1/projects/{publicToken}/webhook-deliveries',
      ]);
      const crawlBody =
        a.body.paths['/v1/projects/{publicToken}/crawls'].post.requestBody.content['application/json'].schema;
      expect(crawlBody.properties.mode.enum).toEqual(['full', 'partial', 'manual']);
      const limit = a.body.paths['/v1/projects/{publicToken}/link-report'].get.parameters.find(
        (p: any) => p.name === 'limit',
      );
      expect(limit).toMatchObject({
        in: 'query',
        required: false,
        schema: { type: 'integer', minimum: 1, maximum: 5000, default: 1000 },
      });
      const del =
        a.body.paths['/v1/projects/{publicToken}/pages/delete'].post.requestBody.content['application/json'].schema;
      expect(del.properties.urls).toMatchObject({ minItems: 1, maxItems: 50 });
      expect(a.body.paths['/v1/projects/{publicToken}/search'].post.security).toEqual([]);
      expect(a.body.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
      expectError(await call(`${f.baseUrl}/v1/openapi.json`, { method: 'POST' }), 405, 'method_not_allowed');
    });

    it('unknown /v1 paths → 404 JSON; other paths are left to the next handler', async () => {
      expectError(await call(`${f.baseUrl}/v1`), 404, 'not_found');
      expectError(await call(`${f.baseUrl}/v1/nothing`), 404, 'not_found');
      expectError(await call(`${f.api}/nothing`, { headers: auth }), 404, 'not_found');
      expectError(await call(`${f.api}/crawls/1/extra`, { headers: auth }), 404, 'not_found');
      expect((await call(`${f.baseUrl}/healthz`)).body).toEqual({ status: 'ok' });
    });
  });

  it('the report is read from the store only: the crawled site is down and gets no request', async () => {
    let hits = 0;
    const site = createServer((_req, res) => {
      hits++;
      res.end('ok');
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    const host = `127.0.0.1:${(site.address() as AddressInfo).port}`;
    const siteApp = await makeAppOn(kit, { targets: [{ host, scheme: 'http', track_links: 'all' }] });
    const sf = await startFacade(siteApp);
    try {
      await writeThrough(siteApp.store, {
        pages: [page(`http://${host}/`, [`http://${host}/missing`, `http://${host}/moved`])],
        outcomes: [outcome(`http://${host}/missing`, 'not_found'), outcome(`http://${host}/moved`, 'redirect')],
      });
      site.closeAllConnections();
      await new Promise<void>((r) => site.close(() => r()));
      const a = await call(`${sf.api}/link-report?target=${host}`, { headers: { authorization: `Bearer ${sf.key}` } });
      expect(a.status).toBe(200);
      expect(a.body.notFound.pages).toEqual([
        {
          url: `http://${host}/`,
          links: [
            { url: `http://${host}/missing`, httpStatus: 404, message: 'not_found message', element: 'a', text: '' },
          ],
        },
      ]);
      expect(a.body.redirect.count).toBe(1);
      expect(hits).toBe(0);
    } finally {
      await sf.close();
      await siteApp.close();
    }
  });

  it('an internal failure answers 500 with a generic message: no stack, no SQL', async () => {
    const broken = await makeAppOn(kit);
    const bf = await startFacade(broken);
    try {
      await broken.store.sql.exec('DROP TABLE report_links');
      const a = await call(`${bf.api}/link-report`, { headers: { authorization: `Bearer ${bf.key}` } });
      expectError(a, 500, 'internal', /^internal error$/);
    } finally {
      await bf.close();
      await broken.close();
    }
  });

  describe('with the crawl runner, against a slow site on loopback', () => {
    it('POST answers 202 at once; a second POST while it runs is 409; the finished report needs no request to the site', async () => {
      let hits = 0;
      const site = createServer((req, res) => {
        hits++;
        const send = (status: number, body: string) => res.writeHead(status, { 'content-type': 'text/html' }).end(body);
        if (req.url === '/')
          setTimeout(
            () => send(200, '<html><body><a href="/missing">gone</a> <a href="/page">page</a></body></html>'),
            800,
          );
        else if (req.url === '/page') send(200, '<html><body>a page</body></html>');
        else send(404, 'not here');
      });
      await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
      const host = `127.0.0.1:${(site.address() as AddressInfo).port}`;
      const siteApp = await makeAppOn(kit, { targets: [{ host, scheme: 'http', track_links: 'all' }] }); // no sitemap.xml: walks links
      const sf = await startFacade(siteApp);
      const h = { authorization: `Bearer ${sf.key}`, 'content-type': 'application/json' };
      try {
        const first = await call(`${sf.api}/crawls`, { method: 'POST', headers: h, body: '{"mode":"full"}' });
        expect(first.status, first.text).toBe(202);
        expect(first.body).toMatchObject({
          id: expect.any(Number),
          mode: 'full',
          status: expect.stringMatching(/^(queued|running)$/),
        });
        expect(first.headers.get('location')).toBe(`/v1/projects/${encodeURIComponent(TOKEN)}/crawls/${first.body.id}`);
        const second = await call(`${sf.api}/crawls`, { method: 'POST', headers: h, body: '{"mode":"partial"}' });
        expectError(second, 409, 'conflict');
        const offTarget = await call(`${sf.api}/crawls`, {
          method: 'POST',
          headers: h,
          body: '{"mode":"manual","urls":["https://elsewhere.example/x"]}',
        });
        expectError(offTarget, 400, 'invalid_input', /urls\[0\]/);
        let rec = first.body;
        for (let i = 0; i < 200 && (rec.status === 'queued' || rec.status === 'running'); i++) {
          await new Promise((r) => setTimeout(r, 50));
          rec = (await call(`${sf.api}/crawls/${first.body.id}`, { headers: h })).body;
        }
        expect(rec).toMatchObject({ status: 'completed', finishedAt: expect.any(String) });
        expect(rec.stats.pages).toBeGreaterThanOrEqual(2);
        expect(rec.stats.targets[host]).toMatchObject({ walkLinks: true, cutByMaxPages: false });

        const before = hits;
        const live = await call(`${sf.api}/link-report`, { headers: h });
        expect(hits).toBe(before);
        site.closeAllConnections();
        await new Promise<void>((r) => site.close(() => r()));
        const down = await call(`${sf.api}/link-report`, { headers: h });
        expect(down.status).toBe(200);
        expect(down.body).toEqual(live.body);
        expect(down.body.notFound.pages).toEqual([
          {
            url: `http://${host}/`,
            links: [expect.objectContaining({ url: `http://${host}/missing`, httpStatus: 404 })],
          },
        ]);
        expect(down.body.lastFullCrawl).toBe(rec.finishedAt);
        expect(down.body.targets).toEqual([
          { host, linkTracking: 'all', walkLinks: true, lastCrawlError: null, pages: expect.any(Number) },
        ]);
      } finally {
        site.closeAllConnections();
        site.close();
        await sf.close();
        await siteApp.close();
      }
    });
  });
});
