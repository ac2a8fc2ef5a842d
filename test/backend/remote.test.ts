// The remote backend against a scripted upstream on loopback: timeouts, bounded retries, error mapping; and the
// facade in front of a remote backend passing upstream errors through with their status.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadApp } from '../../src/app/open-app.js';
import { createApiKey } from '../../src/auth/keys.js';
import { BackendError } from '../../src/model/errors.js';
import { RemoteBackend, type RemoteBackendOptions } from '../../src/backend/remote.js';
import { parseConfig } from '../../src/cli/load-config.js';
import { silentLogger } from '../../src/lib/log.js';
import { HOST_A, makeApp, startFacade, tempDir, TOKEN } from '../support/app.js';
import { seedSmallSite } from '../support/writes.js';

type Respond = (req: IncomingMessage, res: ServerResponse, n: number) => void;

const REPORT = {
  notFound: { count: 0, pages: [] },
  forbidden: { count: 0, pages: [] },
  serverError: { count: 0, pages: [] },
  redirect: { count: 0, pages: [] },
  unknown: { count: 0, pages: [] },
  targets: [],
  truncated: false,
  lastFullCrawl: null,
};
// What the backend makes of REPORT, an older service's answer: ready, with counts from the sections and no top links.
const none = { problemLinks: 0, occurrences: 0 };
const REPORT_AS_READ = {
  ...REPORT,
  status: 'ready',
  counts: {
    pages: 0,
    problemLinks: 0,
    occurrences: 0,
    reasons: { not_found: none, forbidden: none, server_error: none, redirect: none, unknown: none },
  },
  topLinks: [],
};
const CRAWL = {
  id: 7,
  mode: 'full',
  status: 'queued',
  startedAt: '2026-01-01T00:00:00.000Z',
  finishedAt: null,
  stats: { pages: 0, links: 0, errors: 0 },
};

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json' }).end(text);
}
const fail = (status: number, code: string, message: string) => (_q: IncomingMessage, res: ServerResponse) =>
  send(res, status, { error: { code, message } });

describe('RemoteBackend', () => {
  let upstream: Server;
  let base: string;
  let respond: Respond;
  let seen: { method: string; url: string; authorization?: string; body: string }[];
  const open: RemoteBackend[] = [];

  const client = (over: Partial<RemoteBackendOptions> = {}) => {
    const b = new RemoteBackend({
      baseUrl: `${base}/api/`,
      apiKey: 'svc_key_test',
      publicToken: TOKEN,
      logger: silentLogger,
      backoffMs: 5,
      timeoutMs: 2000,
      ...over,
    });
    open.push(b);
    return b;
  };

  async function caught(p: Promise<unknown>): Promise<BackendError> {
    try {
      await p;
    } catch (err) {
      expect(err).toBeInstanceOf(BackendError);
      return err as BackendError;
    }
    throw new Error('expected a BackendError');
  }

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization, body });
        respond(req, res, seen.length);
      });
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    seen = [];
    await Promise.all(open.splice(0).map((b) => b.close()));
  });
  afterAll(async () => {
    upstream.closeAllConnections();
    await new Promise((r) => upstream.close(r));
  });
  seen = [];

  it('calls <base>/v1/projects/<token>/… with the API key, query and JSON body', async () => {
    respond = (req, res) => send(res, req.method === 'POST' ? 202 : 200, req.method === 'POST' ? CRAWL : REPORT);
    const b = client();
    // An older service sends no status: ready, as it had no other answer.
    expect(await b.linkReport({ limit: 5, target: 'a.example' })).toEqual(REPORT_AS_READ);
    // An older service sends no trigger: the record says `request`.
    expect(await b.startCrawl({ mode: 'manual', urls: ['https://a.example/x'] })).toEqual({
      ...CRAWL,
      trigger: 'request',
    });
    expect(seen[0]).toMatchObject({
      method: 'GET',
      url: `/api/v1/projects/${encodeURIComponent(TOKEN)}/link-report?target=a.example&limit=5`,
      authorization: 'Bearer svc_key_test',
    });
    expect(seen[1]).toMatchObject({
      method: 'POST',
      url: `/api/v1/projects/${encodeURIComponent(TOKEN)}/crawls`,
      body: '{"mode":"manual","urls":["https://a.example/x"]}',
    });
  });

  it('retries a GET on 502/503/504 with backoff, then answers', async () => {
    const statuses = [503, 502, 200];
    respond = (_q, res, n) =>
      statuses[n - 1] === 200
        ? send(res, 200, { ...REPORT, status: 'ready', next_cursor: 'c1' })
        : send(res, statuses[n - 1]!, { error: { code: 'busy', message: 'try later' } });
    // A current service sends status and next_cursor: both come through as sent.
    expect(await client().linkReport({ limit: 1 })).toEqual({ ...REPORT_AS_READ, next_cursor: 'c1' });
    expect(seen).toHaveLength(3);
  });

  it('gives up after the bounded attempts, keeping the upstream status and message', async () => {
    respond = fail(504, 'gateway_timeout', 'the gateway gave up');
    const err = await caught(client({ attempts: 4 }).listCrawls({ limit: 5, offset: 0 }));
    expect(seen).toHaveLength(4);
    expect(err).toMatchObject({ code: 'upstream_error', status: 502, upstreamStatus: 504 });
    expect(err.message).toContain('the gateway gave up');
  });

  it('never retries a crawl start or a deletion', async () => {
    respond = fail(503, 'busy', 'try later');
    expect(await caught(client().startCrawl({ mode: 'full' }))).toMatchObject({
      code: 'upstream_error',
      upstreamStatus: 503,
    });
    expect(await caught(client().deletePages(['https://a.example/x']))).toMatchObject({
      code: 'upstream_error',
      upstreamStatus: 503,
    });
    expect(seen).toHaveLength(2);
  });

  it('retries a GET when the connection is reset, and when nothing listens gives up with upstream_error', async () => {
    respond = (req, res, n) => (n === 1 ? req.socket.destroy() : send(res, 200, { crawls: [], limit: 5, offset: 0 }));
    expect(await client().listCrawls({ limit: 5, offset: 0 })).toEqual([]);
    expect(seen).toHaveLength(2);

    const dead = createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
    const port = (dead.address() as AddressInfo).port;
    await new Promise((r) => dead.close(r));
    const b = new RemoteBackend({
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: 'k',
      publicToken: TOKEN,
      logger: silentLogger,
      backoffMs: 5,
    });
    open.push(b);
    const err = await caught(b.linkReport({ limit: 1 }));
    expect(err).toMatchObject({ code: 'upstream_error', status: 502, upstreamStatus: undefined });
    expect(err.message).toMatch(/could not be reached .*ECONNREFUSED/);
  });

  it('times out a call that gets no answer', async () => {
    respond = () => {}; // never answers
    const t = Date.now();
    const err = await caught(client({ timeoutMs: 300, attempts: 1 }).linkReport({ limit: 1 }));
    expect(err).toMatchObject({ code: 'upstream_error' });
    expect(err.message).toMatch(/no answer within 300 ms/);
    expect(Date.now() - t).toBeLessThan(5000);
  });

  it('maps upstream 4xx to the matching code and keeps the message', async () => {
    const b = client();
    respond = fail(400, 'invalid_input', 'limit: must be an integer from 1 to 5000');
    expect(await caught(b.linkReport({ limit: 9999 }))).toMatchObject({
      code: 'invalid_input',
      status: 400,
      upstreamStatus: 400,
      message: 'limit: must be an integer from 1 to 5000',
    });
    respond = fail(409, 'conflict', 'a crawl is already running');
    expect(await caught(b.startCrawl({ mode: 'full' }))).toMatchObject({
      code: 'conflict',
      status: 409,
      upstreamStatus: 409,
      message: 'a crawl is already running',
    });
    respond = fail(404, 'not_found', 'unknown project');
    expect(await caught(b.getCrawl(3))).toMatchObject({ code: 'not_found', status: 404, message: 'unknown project' });
    respond = fail(404, 'crawl_not_found', 'no crawl 3 in this project');
    expect(await b.getCrawl(3)).toBeNull();
    respond = fail(501, 'not_implemented', 'search is not implemented yet');
    expect(await caught(b.search('x', {}))).toMatchObject({
      code: 'not_implemented',
      status: 501,
      message: 'search is not implemented yet',
    });
  });

  it('a refused key, a 500, a non-JSON or a malformed answer are upstream errors', async () => {
    const b = client({ attempts: 1 });
    respond = fail(401, 'unauthorized', 'the API key is not valid');
    const refused = await caught(b.linkReport({ limit: 1 }));
    expect(refused).toMatchObject({ code: 'upstream_error', status: 502, upstreamStatus: 401 });
    expect(refused.message).toMatch(/refused the API key/);
    respond = fail(500, 'internal', 'internal error');
    expect(await caught(b.linkReport({ limit: 1 }))).toMatchObject({
      code: 'upstream_error',
      upstreamStatus: 500,
      message: expect.stringContaining('answered 500: internal error'),
    });
    respond = (_q, res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<html>bad gateway</html>');
    const html = await caught(b.linkReport({ limit: 1 }));
    expect(html).toMatchObject({ code: 'upstream_error', upstreamStatus: 502 });
    expect(html.message).not.toContain('<html>');
    respond = (_q, res) => send(res, 200, 'not json at all');
    expect(await caught(b.linkReport({ limit: 1 }))).toMatchObject({
      code: 'upstream_error',
      message: expect.stringContaining('not JSON'),
    });
    respond = (_q, res) => send(res, 200, { ...REPORT, truncated: 'maybe' });
    expect(await caught(b.linkReport({ limit: 1 }))).toMatchObject({
      code: 'upstream_error',
      message: expect.stringContaining('truncated'),
    });
  });

  it('onCrawlEnded never fires for remote crawls (documented), and unsubscribes cleanly', () => {
    const off = client().onCrawlEnded(() => {
      throw new Error('must not be called');
    });
    off();
  });

  it('behind the /v1 facade, upstream errors keep their status: 409 stays 409, a 503 becomes 502', async () => {
    const app = await loadApp(
      parseConfig({
        project: { public_token: 'local001:eu-north-1' },
        data_dir: tempDir(),
        api: { base_url: base, api_key: 'svc_key_test', public_token: TOKEN },
        log_level: 'silent',
      }),
      { logger: silentLogger },
    );
    expect(app.backend.kind).toBe('remote');
    const f = await startFacade(app);
    try {
      const key = (await createApiKey(app.store.sql, TOKEN, 'local')).key;
      const post = () =>
        fetch(`${f.api}/crawls`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: '{"mode":"full"}',
        });
      respond = fail(409, 'conflict', 'a crawl of this project is already running');
      const conflict = await post();
      expect(conflict.status).toBe(409);
      expect(await conflict.json()).toEqual({
        error: { code: 'conflict', message: 'a crawl of this project is already running' },
      });
      respond = (_q, res) => send(res, 202, CRAWL);
      const ok = await post();
      expect(ok.status).toBe(202);
      expect(ok.headers.get('location')).toBe(`/v1/projects/${encodeURIComponent(TOKEN)}/crawls/7`);
      respond = fail(503, 'busy', 'try later');
      const down = await post();
      expect(down.status).toBe(502);
      expect(await down.json()).toEqual({
        error: { code: 'upstream_error', message: expect.stringContaining('answered 503: try later') },
      });
    } finally {
      await f.close();
      await app.close();
    }
  });

  it('against a real /v1 facade: page index state and the reasons filter answer as the embedded backend does', async () => {
    const app = await makeApp();
    await seedSmallSite(app);
    const f = await startFacade(app);
    const b = new RemoteBackend({ baseUrl: f.baseUrl, apiKey: f.key, publicToken: TOKEN, logger: silentLogger });
    try {
      for (const url of [`https://${HOST_A}/`, `https://${HOST_A}/b#part`, `https://${HOST_A}/never`]) {
        expect(await b.pageIndexState(url), url).toEqual(await app.backend.pageIndexState(url));
      }
      expect((await b.pageIndexState(`https://${HOST_A}/`)).indexed).toBe(true);
      const query = { limit: 2, reasons: ['redirect', 'forbidden'] as const };
      const remote = await b.linkReport({ ...query, reasons: [...query.reasons] });
      expect(remote).toEqual(await app.backend.linkReport({ ...query, reasons: [...query.reasons] }));
      expect(remote.notFound.count).toBe(0);
      expect(remote.forbidden.count).toBe(1);
    } finally {
      await b.close();
      await f.close();
      await app.close();
    }
  });
});
