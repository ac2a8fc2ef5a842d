// Hostile callers: a table-driven fuzz of every entry point (/v1, the host's ability routes, MCP over HTTP).
// Every answer must be a clean 2xx/4xx with a JSON body (or an MCP isError) — never a 500, a stack trace,
// SQL, a hang, or data from another project or from a post the caller may not read.
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadApp, type App } from '../../src/app/open-app.js';
import { openAbilityHost } from '../../src/app/ability-host.js';
import { createV1Handler } from '../../src/http/v1.js';
import { createApiKey } from '../../src/auth/keys.js';
import { addUser } from '../../src/auth/users.js';
import { parseConfig } from '../../src/cli/load-config.js';
import { parsePostsFile } from '../../src/cms/posts.js';
import { createAbilityRoutesHandler } from '../../src/http/ability-routes.js';
import { createHttpServer } from '../../src/http/http-server.js';
import { silentLogger } from '../../src/lib/log.js';
import { createMcpHttpHandler } from '../../src/http/mcp.js';
import type { AbilityHost } from '../../src/abilities/runtime.js';
import { importPosts } from '../../src/store/posts.js';
import { httpDeps } from '../../src/app/http.js';

const TOKEN = 'fuzz0001:eu-north-1';
const OTHER = 'other001:us-east-1';
const SECRET_TITLE = 'Board minutes: confidential';

/** Deterministic PRNG (mulberry32) so a failing case can be replayed. */
function rng(seed: number) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NASTY_STRINGS = [
  '',
  ' ',
  'a'.repeat(100_000),
  '\u0000',
  'nul\u0000byte',
  '../../../../etc/passwd',
  '..%2F..%2Fetc%2Fpasswd',
  "' OR 1=1 --",
  '"; DROP TABLE pages; --',
  '<script>alert(1)</script>',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 🎉 ñ é ß',
  '\ud800',
  'NEAR(a b)',
  '*',
  'file:///etc/passwd',
  'javascript:alert(1)',
  'http://127.0.0.2:1/elsewhere',
  'http://localhost:1/',
  '__proto__',
  '{"nested": "json"}',
];

function randomValue(r: () => number, depth = 0): unknown {
  const k = Math.floor(r() * 12);
  switch (k) {
    case 0:
      return null;
    case 1:
      return r() < 0.5;
    case 2:
      return [0, -1, 1.5, 99999, -99999, 1e308, Number.MAX_SAFE_INTEGER + 2, 5001, 51][Math.floor(r() * 9)];
    case 3:
    case 4:
      return NASTY_STRINGS[Math.floor(r() * NASTY_STRINGS.length)];
    case 5:
      return depth > 2 ? [] : Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1));
    case 6:
      return Array.from({ length: r() < 0.5 ? 51 : 5000 }, (_, i) => `http://x/${i}`);
    case 7:
    case 8: {
      if (depth > 2) return {};
      const o: Record<string, unknown> = {};
      for (const key of [
        'urls',
        'mode',
        'terms',
        'limit',
        'target',
        'post_id',
        'refresh',
        'search_params',
        'params',
        'extra',
        '__proto__',
        'constructor',
      ]) {
        if (r() < 0.3) o[key] = randomValue(r, depth + 1);
      }
      return o;
    }
    case 9:
      return {
        mode: ['full', 'partial', 'manual', 'FULL', '', 7][Math.floor(r() * 6)],
        urls: randomValue(r, depth + 1),
      };
    case 10:
      return { terms: NASTY_STRINGS[Math.floor(r() * NASTY_STRINGS.length)], params: randomValue(r, depth + 1) };
    default:
      return { post_id: [1, 2, 3, 999, -1, 0, 1.5, '1'][Math.floor(r() * 8)] };
  }
}

const RAW_BODIES = [
  '{',
  '{"mode":',
  'null',
  '[]',
  '"text"',
  '\u0000',
  '{"a":1}{"b":2}',
  '['.repeat(20_000) + ']'.repeat(20_000),
  'x'.repeat(2 * 1024 * 1024),
];

let site: Server;
let app: App;
let host: AbilityHost;
let server: Server;
let base: string;
let keyA: string;
let keyB: string;
let adminToken: string;
let readerToken: string;
let cases = 0;

beforeAll(async () => {
  site = createServer((req, res) => {
    res.writeHead(req.url === '/' ? 200 : 404, { 'content-type': 'text/html' });
    res.end('<html><head><title>Fuzz home</title></head><body><a href="/missing">m</a></body></html>');
  });
  site.listen(0, '127.0.0.1');
  await once(site, 'listening');
  const sitePort = (site.address() as AddressInfo).port;
  const config = parseConfig({
    project: { public_token: TOKEN },
    data_dir: mkdtempSync(join(tmpdir(), 'svc-fuzz-')),
    targets: [
      { host: `127.0.0.1:${sitePort}`, scheme: 'http', track_links: 'all', max_pages: 5, request_timeout_ms: 1000 },
    ],
    // Anonymous MCP clients are part of the fuzz: /mcp lets a request without a token through, as no user.
    server: { max_body_bytes: 1024 * 1024, mcp_auth: 'optional' },
  });
  app = await loadApp(config, { logger: silentLogger });
  keyA = (await createApiKey(app.store.sql, TOKEN, 'a')).key;
  keyB = (await createApiKey(app.store.sql, OTHER, 'b')).key;
  adminToken = await addUser(app.store.sql, 'admin', 'administrator');
  readerToken = await addUser(app.store.sql, 'reader', 'subscriber');
  await importPosts(
    app.store.sql,
    parsePostsFile(
      JSON.stringify([
        {
          id: 1,
          url: `http://127.0.0.1:${sitePort}/`,
          title: 'Fuzz home',
          status: 'publish',
          author: 'admin',
          type: 'page',
        },
        {
          id: 2,
          url: `http://127.0.0.1:${sitePort}/private`,
          title: SECRET_TITLE,
          status: 'private',
          author: 'admin',
          type: 'post',
        },
      ]),
    ),
  );
  host = await openAbilityHost(app);
  server = createHttpServer({
    logger: silentLogger,
    handlers: [
      createV1Handler(httpDeps(app)),
      createAbilityRoutesHandler(httpDeps(app), host),
      createMcpHttpHandler(httpDeps(app), host),
    ],
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  console.log(`fuzz: ${cases} cases tried`);
  server?.closeAllConnections();
  server?.close();
  site?.close();
  host?.close();
  await app?.close();
});

interface Answer {
  status: number;
  text: string;
}

async function call(
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  cases++;
  const res = await fetch(base + path, { method, body, headers, signal: AbortSignal.timeout(15_000) });
  return { status: res.status, text: await res.text() };
}

/** encodeURIComponent that survives lone surrogates (they go through as U+FFFD). */
const enc = (s: string) => encodeURIComponent(s.replace(/\p{Surrogate}/gu, '\ufffd'));

/** The rules every answer of every entry point must keep; `mayReadPrivate` when the caller is the administrator. */
function expectClean(a: Answer, what: string, mayReadPrivate = false): void {
  expect(a.status, `${what} → ${a.status} ${a.text.slice(0, 300)}`).toBeLessThan(500);
  expect(a.text, what).not.toMatch(/\n\s+at |SQLITE|sqlite3|\.ts:\d+|node_modules|SyntaxError|TypeError/);
  if (!mayReadPrivate) expect(a.text, what).not.toContain(SECRET_TITLE);
  if (a.status >= 400) expect(() => JSON.parse(a.text), `${what}: error body is JSON`).not.toThrow();
}

const json = { 'content-type': 'application/json' };
const v1 = `/v1/projects/${encodeURIComponent(TOKEN)}`;

describe('fuzz: /v1', () => {
  it('random and malformed bodies on every endpoint answer cleanly', async () => {
    const r = rng(1);
    const auth = { ...json, authorization: `Bearer ${keyA}` };
    for (let i = 0; i < 120; i++) {
      const body = i < RAW_BODIES.length ? RAW_BODIES[i]! : JSON.stringify(randomValue(r));
      for (const path of ['/crawls', '/search', '/pages/delete']) {
        const a = await call('POST', v1 + path, body, auth);
        expectClean(a, `POST ${path} ${body.slice(0, 80)}`);
      }
    }
  }, 120_000);

  it('hostile query strings and ids answer cleanly', async () => {
    const auth = { authorization: `Bearer ${keyA}` };
    for (const s of NASTY_STRINGS) {
      const q = enc(s.slice(0, 5000));
      for (const path of [
        `/link-report?limit=${q}`,
        `/link-report?target=${q}`,
        `/crawls/${q}`,
        `/crawls?limit=${q}&offset=${q}`,
      ]) {
        expectClean(await call('GET', v1 + path, undefined, auth), `GET ${path.slice(0, 80)}`);
      }
    }
  }, 60_000);

  it('path traversal and foreign tokens never reach another project', async () => {
    const paths = [
      `/v1/projects/..%2F..%2Fetc%2Fpasswd/link-report`,
      `/v1/projects/${encodeURIComponent(TOKEN)}/../../../etc/passwd`,
      `/v1/projects/%00/crawls`,
      `/v1/projects/${encodeURIComponent(OTHER)}/link-report`,
      `/v1/projects/${encodeURIComponent(OTHER)}/crawls`,
      `/v1/projects/${'a'.repeat(5000)}:eu/crawls`,
    ];
    for (const p of paths) {
      for (const key of [keyA, keyB, adminToken, '', 'x'.repeat(10_000)]) {
        const a = await call('GET', p, undefined, { authorization: `Bearer ${key}` });
        expectClean(a, `GET ${p} with a foreign key`);
        expect(a.status, p).toBeGreaterThanOrEqual(400);
      }
    }
    // The other project's key on this project: 404, as if the project did not exist.
    const b = await call('GET', `${v1}/link-report`, undefined, { authorization: `Bearer ${keyB}` });
    expect(b.status).toBe(404);
    // A user's token is not an API key.
    const u = await call('GET', `${v1}/link-report`, undefined, { authorization: `Bearer ${adminToken}` });
    expect(u.status).toBe(401);
  });

  it('keys are stored only as fixed-length digests, so comparison time does not depend on the guess', () => {
    const rows = app.sqlite.db.prepare('SELECT key_hash FROM api_keys').all() as { key_hash: string }[];
    for (const { key_hash } of rows) {
      expect(key_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(key_hash).not.toContain(keyA);
    }
    const tokens = app.sqlite.db.prepare('SELECT token_hash FROM users').all() as { token_hash: string }[];
    for (const { token_hash } of tokens) expect(token_hash).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('fuzz: ability routes', () => {
  const root = '/wp-json/abilities/v1/abilities';
  const names = [
    'svc/search',
    'svc/get-page-meta',
    'svc/link-report',
    'svc/manual-crawl',
    'svc/delete-pages',
    'svc/full-crawl',
    'svc/partial-crawl',
  ];

  it('random inputs as every kind of caller answer cleanly', async () => {
    const r = rng(2);
    for (const name of names) {
      for (let i = 0; i < 30; i++) {
        const input = randomValue(r);
        for (const token of [adminToken, readerToken, null, 'wrong-token']) {
          const headers: Record<string, string> = { ...json };
          if (token) headers.authorization = `Bearer ${token}`;
          const a = await call('POST', `${root}/${encodeURIComponent(name)}/run`, JSON.stringify({ input }), headers);
          expectClean(a, `run ${name} ${JSON.stringify(input)?.slice(0, 80)}`, token === adminToken);
        }
      }
    }
  }, 180_000);

  it('malformed envelopes, names and GET inputs answer cleanly', async () => {
    const auth = { ...json, authorization: `Bearer ${adminToken}` };
    for (const body of RAW_BODIES)
      expectClean(await call('POST', `${root}/svc%2Fsearch/run`, body, auth), `raw ${body.slice(0, 40)}`, true);
    for (const s of NASTY_STRINGS) {
      const e = enc(s.slice(0, 3000));
      expectClean(await call('GET', `${root}/${e}`, undefined, auth), `describe ${s.slice(0, 40)}`, true);
      expectClean(
        await call('GET', `${root}/svc%2Fsearch/run?input=${e}`, undefined, auth),
        `GET input ${s.slice(0, 40)}`,
        true,
      );
      expectClean(await call('POST', `${root}/svc%2F${e}/run`, '{}', auth), `run unknown ${s.slice(0, 40)}`, true);
    }
  }, 60_000);

  it('a private post is never shown to a subscriber, whatever the id looks like', async () => {
    for (const post_id of [2, '2', 2.0, [2], { id: 2 }]) {
      const a = await call('POST', `${root}/svc%2Fget-page-meta/run`, JSON.stringify({ input: { post_id } }), {
        ...json,
        authorization: `Bearer ${readerToken}`,
      });
      expectClean(a, `page meta ${JSON.stringify(post_id)}`);
      expect(a.status).toBeGreaterThanOrEqual(400);
    }
  });
});

describe('fuzz: MCP over HTTP', () => {
  it('random tool arguments give results or isError, never a crash', async () => {
    const r = rng(3);
    for (const token of [adminToken, readerToken, null]) {
      const client = new Client({ name: 'fuzz', version: '1.0.0' });
      const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
      await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } }));
      const { tools } = await client.listTools();
      for (const tool of tools) {
        for (let i = 0; i < 12; i++) {
          const args = randomValue(r);
          cases++;
          const result = await client.callTool({
            name: tool.name,
            arguments: (args && typeof args === 'object' && !Array.isArray(args) ? args : { value: args }) as Record<
              string,
              unknown
            >,
          });
          const text = JSON.stringify(result);
          expect(text).not.toMatch(/\n\s+at |SQLITE|\.ts:\d+/);
          if (token !== adminToken) expect(text).not.toContain(SECRET_TITLE);
          if (result.isError) expect(result.structuredContent).toBeUndefined();
        }
      }
      await client.close();
    }
  }, 180_000);

  it('malformed JSON-RPC answers with a JSON-RPC error, not a 500', async () => {
    const headers = { ...json, accept: 'application/json, text/event-stream', authorization: `Bearer ${adminToken}` };
    const bodies = [
      ...RAW_BODIES,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: '../../etc/passwd', arguments: {} },
      }),
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'svc-search', arguments: 'not an object' },
      }),
      JSON.stringify({ jsonrpc: '1.0', id: {}, method: 7 }),
      JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'ping' }, 5, null]),
    ];
    for (const body of bodies) expectClean(await call('POST', '/mcp', body, headers), `mcp ${body.slice(0, 60)}`);
  });
});
