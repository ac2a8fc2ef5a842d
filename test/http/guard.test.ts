// One guard for every route: a DNS-rebinding page (foreign Host or Origin) gets nothing from /v1, the ability
// routes, /mcp or /healthz; two Authorization headers or a repeated query parameter are refused everywhere. SQLite
// only: the guard and the input checks answer before the store is asked for anything but a user.
import { request } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/open-app.js';
import { openAbilityHost, type AbilityHost } from '../../src/app/ability-host.js';
import { addUser } from '../../src/auth/users.js';
import { createAbilityRoutesHandler } from '../../src/http/ability-routes.js';
import { createMcpHttpHandler } from '../../src/http/mcp.js';
import { createHttpServer } from '../../src/http/http-server.js';
import { createV1Handler } from '../../src/http/v1.js';
import { silentLogger } from '../../src/lib/log.js';
import { makeApp, TOKEN } from '../support/app.js';
import { httpDeps } from '../../src/app/http.js';

let app: App;
let host: AbilityHost;
let server: Server;
let port: number;
let anonymousToken: string;

beforeAll(async () => {
  app = await makeApp();
  host = await openAbilityHost(app);
  anonymousToken = await addUser(app.store.sql, 'reader', 'subscriber');
  const deps = httpDeps(app);
  server = createHttpServer({
    logger: silentLogger,
    handlers: [createV1Handler(deps), createAbilityRoutesHandler(deps, host), createMcpHttpHandler(deps, host)],
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  server.close();
  host.close();
  await app.close();
});

/** A raw request, so the test controls every header (Host included) as a browser or attacker would send it. */
function send(
  method: string,
  path: string,
  headers: [string, string][],
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const flat = headers.flat();
    const req = request(
      { host: '127.0.0.1', port, method, path, headers: flat as unknown as Record<string, string>, setHost: false },
      (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (data += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: data }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const search = `/v1/projects/${encodeURIComponent(TOKEN)}/search`;
const json: [string, string] = ['content-type', 'application/json'];

describe('the Host/Origin guard on every route', () => {
  const routes: [string, string, string | undefined][] = [
    ['POST', search, '{"terms":"x"}'],
    ['GET', '/wp-json/abilities/v1/abilities', undefined],
    ['GET', `/v1/projects/${encodeURIComponent(TOKEN)}/link-report`, undefined],
    ['POST', '/mcp', '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'],
    ['GET', '/healthz', undefined],
  ];

  it.each(routes)('%s %s: 403 for a foreign Host or Origin, the loopback name passes', async (method, path, body) => {
    const evil = await send(method, path, [['host', 'evil.example'], ['origin', 'http://evil.example'], json], body);
    expect(evil.status).toBe(403);
    const rebound = await send(
      method,
      path,
      [['host', `127.0.0.1:${port}`], ['origin', 'http://evil.example'], json],
      body,
    );
    expect(rebound.status).toBe(403);
    const own = await send(
      method,
      path,
      [['host', `127.0.0.1:${port}`], json, ['accept', 'application/json, text/event-stream']],
      body,
    );
    expect(own.status).not.toBe(403);
  });
});

describe('ambiguous requests', () => {
  it('two Authorization headers: 400 on every route', async () => {
    for (const [method, path, body] of [
      ['POST', search, '{"terms":"x"}'],
      ['GET', '/wp-json/abilities/v1/abilities', undefined],
      ['POST', '/mcp', '{}'],
    ] as const) {
      const r = await send(
        method,
        path,
        [
          ['host', `127.0.0.1:${port}`],
          ['authorization', `Bearer ${anonymousToken}`],
          ['authorization', 'Bearer other'],
          json,
        ],
        body,
      );
      expect(r.status, path).toBe(400);
      expect(r.body).toMatch(/Authorization: send the header once/);
    }
  });

  it('a repeated query parameter: 400 naming it, on every route', async () => {
    for (const path of [
      `/v1/projects/${encodeURIComponent(TOKEN)}/link-report?limit=1&limit=2`,
      '/wp-json/abilities/v1/abilities?page=1&page=2',
      '/healthz?a=1&a=2',
    ]) {
      const r = await send('GET', path, [['host', `127.0.0.1:${port}`]]);
      expect(r.status, path).toBe(400);
      expect(r.body, path).toMatch(/(limit|page|a): must be given at most once/);
    }
  });
});

describe('a caller without the capability', () => {
  it('learns no configured target from a validation error', async () => {
    const run = (user: Parameters<NonNullable<ReturnType<typeof host.registry.get>>['execute']>[1]['user']) =>
      host.registry
        .get('svc/link-report')!
        .execute({ target: 'nope.example' }, { user })
        .then(
          () => '',
          (e: Error) => e.message,
        );
    const anonymous = await run(null);
    expect(anonymous).toMatch(/"nope\.example" is not a configured target/);
    expect(anonymous).not.toMatch(/a\.example|b\.example/);
    const admin = await run({ login: 'root', role: 'administrator' });
    expect(admin).toMatch(/a\.example/);
    const manual = await host.registry
      .get('svc/manual-crawl')!
      .execute({ urls: ['https://elsewhere.example/x'] }, { user: null })
      .then(
        () => '',
        (e: Error) => e.message,
      );
    expect(manual).toMatch(/host elsewhere\.example is not a configured target/);
    expect(manual).not.toMatch(/a\.example/);
  });
});
