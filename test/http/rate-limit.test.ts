// The request rate limit of `svc serve` (the handlers serveHandlers gives, on loopback): a burst over a group's limit
// gets 429 with Retry-After in the error shape of its surface, the next window lets the client in again, a valid
// key or user token counts apart from the address and a made-up one does not, /healthz is never counted, and the
// limit can be turned off. On PostgreSQL two services on one database count together. The clock is the test's.
import type { Server } from 'node:http';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadApp, type App } from '../../src/app/open-app.js';
import { openAbilityHost, type AbilityHost } from '../../src/app/ability-host.js';
import { httpDeps, serveHandlers } from '../../src/app/http.js';
import { createApiKey } from '../../src/auth/keys.js';
import { addUser } from '../../src/auth/users.js';
import { parseConfig } from '../../src/cli/load-config.js';
import { ConsoleSessions } from '../../src/auth/console-sessions.js';
import { getUser } from '../../src/store/users.js';
import type { HttpDeps } from '../../src/http/deps.js';
import type { HttpHandler } from '../../src/http/io.js';
import { createHttpServer } from '../../src/http/http-server.js';
import { silentLogger } from '../../src/lib/log.js';
import type { ConfigInput } from '../../src/model/config.js';
import { DIALECTS, storeKit } from '../support/stores.js';
import { tempDir, TOKEN } from '../support/app.js';

const HOUR = 3_600_000;

interface Served {
  app: App;
  host: AbilityHost;
  deps: HttpDeps;
  base: string;
  /** The test's clock (ms): every request is counted at this time. */
  clock: { now: number };
  close(): Promise<void>;
}

async function serve(over: Partial<ConfigInput>, opts: { app?: App } = {}): Promise<Served> {
  const app =
    opts.app ??
    (await loadApp(
      parseConfig({
        project: { public_token: TOKEN },
        data_dir: tempDir('svc-rate-'),
        log_level: 'silent',
        server: { mcp_auth: 'optional' },
        ...over,
      }),
      {
        logger: silentLogger,
      },
    ));
  const host = await openAbilityHost(app);
  // In the middle of an hour window, so a burst never straddles two windows.
  const clock = { now: 1_800_000_000_000 - (1_800_000_000_000 % HOUR) + HOUR / 2 };
  const handlers: HttpHandler[] = [];
  const server: Server = createHttpServer({ logger: silentLogger, handlers, health: () => app.health() });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // With a public URL, so OAuth is on and its access tokens are valid bearer tokens here.
  const deps = httpDeps(app, { now: () => clock.now, publicUrl: base });
  handlers.push(...serveHandlers(deps, host));
  return {
    app,
    host,
    deps,
    base,
    clock,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      host.close();
      if (!opts.app) await app.close();
    },
  };
}

const searchPath = `/v1/projects/${encodeURIComponent(TOKEN)}/search`;
const json = { 'content-type': 'application/json' };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function search(s: Served, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${s.base}${searchPath}`, {
    method: 'POST',
    headers: { ...json, ...headers },
    body: JSON.stringify({ terms: 'apple' }),
  });
}

/** The statuses of `n` requests made one after the other. */
async function statuses(n: number, send: () => Promise<Response>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = await send();
    await r.arrayBuffer();
    out.push(r.status);
  }
  return out;
}

describe('the rate limit on SQLite (counted in memory)', () => {
  let s: Served;
  beforeAll(async () => {
    s = await serve({ rate_limits: { window: '1h', search: 3, api: 4, mcp: 2 } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('answers a burst of public searches up to the limit, then 429 with Retry-After (seconds to the window end) in the /v1 shape', async () => {
    expect(await statuses(3, () => search(s))).toEqual([200, 200, 200]);
    const r = await search(s);
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe(String(HOUR / 2 / 1000));
    expect(await r.json()).toEqual({
      error: {
        code: 'rate_limited',
        message: expect.stringMatching(/^at most 3 search requests per 1h from one client .*try again in 1800 s$/),
      },
    });
  });

  it('never counts /healthz, and keeps answering it while a client is over its limit', async () => {
    expect(await statuses(10, () => fetch(`${s.base}/healthz`))).toEqual(Array(10).fill(200));
    expect((await search(s)).status).toBe(429);
  });

  it('lets the client in again in the next window', async () => {
    s.clock.now += HOUR / 2;
    expect(await statuses(4, () => search(s))).toEqual([200, 200, 200, 429]);
  });

  it('counts a valid API key or user token apart from the address, and a made-up token on the address', async () => {
    const keyA = (await createApiKey(s.app.store.sql, TOKEN, 'a')).key;
    const keyB = (await createApiKey(s.app.store.sql, TOKEN, 'b')).key;
    const user = await addUser(s.app.store.sql, 'reader', 'subscriber');
    s.clock.now += HOUR;
    const crawls = (key?: string) =>
      fetch(`${s.base}/v1/projects/${encodeURIComponent(TOKEN)}/crawls`, { headers: key ? bearer(key) : {} });
    expect(await statuses(5, () => crawls(keyA))).toEqual([200, 200, 200, 200, 429]);
    // Another key has a count of its own; so has the address (the public OpenAPI document counts as API too).
    expect(await statuses(2, () => crawls(keyB))).toEqual([200, 200]);
    expect(await statuses(2, () => fetch(`${s.base}/v1/openapi.json`))).toEqual([200, 200]);
    // Made-up tokens buy no new requests: they count on the address, whose limit they reach.
    expect(
      await statuses(3, () =>
        fetch(`${s.base}/v1/openapi.json`, { headers: bearer(`svc_key_madeup${Math.random()}`) }),
      ),
    ).toEqual([200, 200, 429]);
    expect((await fetch(`${s.base}/v1/openapi.json`)).status).toBe(429);
    // A user token on a public search is a client of its own as well.
    expect(await statuses(4, () => search(s, bearer(user)))).toEqual([200, 200, 200, 429]);
  });

  it("counts a user's requests together, whatever token or session they come with", async () => {
    s.clock.now += HOUR;
    const server = s.deps.oauth!.server;
    const staticToken = await addUser(s.app.store.sql, 'many', 'subscriber');
    const user = (await getUser(s.app.store.sql, 'many'))!;
    const client = await server.register({ redirect_uris: ['http://127.0.0.1:9/cb'] });
    /** A fresh OAuth access token of the user (as each sign-in or refresh gives one). */
    const accessToken = async () => {
      const verifier = 'v'.repeat(43);
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      const redirect = await server.issueCode(
        {
          client,
          redirectUri: client.redirect_uris[0]!,
          codeChallenge: challenge,
          scopes: ['mcp'],
          resource: server.resource,
        },
        user,
      );
      const code = new URL(redirect).searchParams.get('code')!;
      const t = await server.token({
        client_id: client.client_id,
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
      });
      return t.access_token;
    };
    const tokens = [staticToken, await accessToken(), await accessToken()];
    const openapi = (token: string) => () => fetch(`${s.base}/v1/openapi.json`, { headers: bearer(token) });
    const seen: number[] = [];
    for (let i = 0; i < 6; i++) seen.push(...(await statuses(1, openapi(tokens[i % 3]!))));
    // api: 4 a window for the user, not 4 per token.
    expect(seen).toEqual([200, 200, 200, 200, 429, 429]);
    // The console's pages count for the same user: search in `search`, its posts in `api`.
    const sessions = new ConsoleSessions(s.app.store.sql, { now: () => s.clock.now });
    const cookie = { cookie: `svc_console=${(await sessions.start('many')).secret}` };
    const consoleSearch = () =>
      fetch(`${s.base}/console/p/${encodeURIComponent(TOKEN)}/search?q=apple`, { headers: cookie, redirect: 'manual' });
    expect(await statuses(4, consoleSearch)).toEqual([200, 200, 200, 429]);
    const consolePost = () =>
      fetch(`${s.base}/console/p/${encodeURIComponent(TOKEN)}/crawls`, {
        method: 'POST',
        headers: { ...cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'csrf=forged',
        redirect: 'manual',
      });
    expect((await consolePost()).status).toBe(429);
    // Another session of another user has budgets of its own.
    await addUser(s.app.store.sql, 'other', 'subscriber');
    const other = { cookie: `svc_console=${(await sessions.start('other')).secret}` };
    const otherSearch = await fetch(`${s.base}/console/p/${encodeURIComponent(TOKEN)}/search?q=apple`, {
      headers: other,
    });
    expect(otherSearch.status).toBe(200);
  });

  it('answers 429 on /mcp before the transport, in the JSON-RPC shape', async () => {
    s.clock.now += HOUR;
    const call = () =>
      fetch(`${s.base}/mcp`, {
        method: 'POST',
        headers: { ...json, accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
    const [first, second] = await statuses(2, call);
    expect(first).not.toBe(429);
    expect(second).not.toBe(429);
    const r = await call();
    expect(r.status).toBe(429);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await r.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32000, message: expect.stringMatching(/^Too many requests: at most 2 MCP requests per 1h/) },
      id: null,
    });
  });

  it('answers 429 on the ability routes in their error shape; running svc/search counts as search', async () => {
    s.clock.now += HOUR;
    const user = await addUser(s.app.store.sql, 'searcher', 'subscriber');
    const root = `${s.base}/wp-json/abilities/v1/abilities`;
    const run = () =>
      fetch(`${root}/svc/search/run`, {
        method: 'POST',
        headers: { ...json, ...bearer(user) },
        body: JSON.stringify({ input: { terms: 'apple' } }),
      });
    expect(await statuses(3, run)).toEqual([200, 200, 200]);
    const r = await run();
    expect(r.status).toBe(429);
    expect(await r.json()).toEqual({
      code: 'rest_too_many_requests',
      message: expect.stringMatching(/^at most 3 search requests/),
      data: { status: 429 },
    });
    // The search count is not the API count: listing the abilities still answers.
    expect((await fetch(root, { headers: bearer(user) })).status).toBe(200);
  });
});

describe('the rate limit turned off', () => {
  it('enabled false: no request is ever refused', async () => {
    const s = await serve({ rate_limits: { enabled: false, search: 1, api: 1, mcp: 1 } });
    try {
      expect(await statuses(5, () => search(s))).toEqual(Array(5).fill(200));
    } finally {
      await s.close();
    }
  });

  it('a group set to null has no limit; the others keep theirs', async () => {
    const s = await serve({ rate_limits: { search: null, api: 1 } });
    try {
      expect(await statuses(5, () => search(s))).toEqual(Array(5).fill(200));
      expect(await statuses(2, () => fetch(`${s.base}/v1/openapi.json`))).toEqual([200, 429]);
    } finally {
      await s.close();
    }
  });
});

describe.skipIf(!DIALECTS.includes('pg'))('the rate limit on PostgreSQL (counted in the database)', () => {
  const kit = storeKit('pg');
  let a: Served;
  let b: Served;
  beforeAll(async () => {
    const over = {
      database_url: await kit.databaseUrl(),
      rate_limits: { window: '1h', search: 3 },
    } satisfies Partial<ConfigInput>;
    a = await serve(over);
    b = await serve(over);
    b.clock.now = a.clock.now;
  }, 60_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await kit.stop();
  });

  it("is shared by two services on one database: the second sees the first one's count", async () => {
    expect(await statuses(2, () => search(a))).toEqual([200, 200]);
    expect(await statuses(2, () => search(b))).toEqual([200, 429]);
    expect((await search(a)).status).toBe(429);
    // The next window, for both.
    a.clock.now += 3_600_000;
    b.clock.now += 3_600_000;
    expect(await statuses(2, () => search(b))).toEqual([200, 200]);
    expect(await statuses(2, () => search(a))).toEqual([200, 429]);
    // Rows of ended windows are gone.
    const rows = await a.app.store.sql.all<{ window_start: number }>('SELECT window_start FROM rate_limit_windows');
    expect(rows.map((r) => Number(r.window_start))).toEqual([a.clock.now - (a.clock.now % 3_600_000)]);
  });
});
