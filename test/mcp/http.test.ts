// `svc serve` at /mcp: stateless Streamable HTTP driven by the SDK's real Client, plus the HTTP rules
// (Host/Origin, bearer tokens, methods, body size) checked with plain requests.
import { LoggingMessageNotificationSchema, type LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  httpClient,
  makeFixture,
  startServe,
  stdioClient,
  type Fixture,
  type McpServe as ServeProcess,
} from '../support/mcp.js';
import { call, toolCallSuite, type Clients } from '../support/mcp-tool-suite.js';

let fx: Fixture;
let serve: ServeProcess;
let clients: Clients;

beforeAll(async () => {
  fx = await makeFixture({
    siteDelayMs: 250,
    server: { allowed_hosts: ['svc.test'], allowed_origins: ['https://app.example.test'] },
  });
  serve = await startServe(fx);
  const [admin, sub, alice, none] = await Promise.all([
    httpClient(serve.mcpUrl, fx.tokens.admin),
    httpClient(serve.mcpUrl, fx.tokens.sub),
    httpClient(serve.mcpUrl, fx.tokens.alice),
    httpClient(serve.mcpUrl),
  ]);
  clients = { admin, sub, alice, none };
});

afterAll(async () => {
  await Promise.all(Object.values(clients ?? {}).map((c) => c.close()));
  await serve?.stop();
  await fx?.cleanup();
});

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/** A raw POST to /mcp (fetch cannot set Host, so the Host header goes through undici's own request). */
async function post(
  headers: Record<string, string>,
  body: unknown = INIT,
): Promise<{ status: number; headers: Headers; text: string }> {
  const { request } = await import('undici');
  const res = await request(serve.mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.body.text();
  const h = new Headers();
  for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') h.set(k, v);
  return { status: res.statusCode, headers: h, text };
}

describe('svc serve /mcp (Streamable HTTP)', () => {
  toolCallSuite(() => ({ clients, fx, signIn: /Authorization: Bearer <user token>/ }));

  it('publishes the same tool definitions as stdio', async () => {
    const { client } = await stdioClient(fx, undefined);
    expect((await clients.none.listTools()).tools).toEqual((await client.listTools()).tools);
    await client.close();
  });

  it('answers with an SSE stream and no session id (stateless)', async () => {
    const r = await post({});
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/text\/event-stream/);
    expect(r.headers.get('mcp-session-id')).toBeNull();
    expect(r.text).toMatch(/"serverInfo":\{"name":"svc"/);
  });

  it('answers plain JSON to a client that accepts only JSON', async () => {
    for (const accept of ['application/json', '*/*']) {
      const r = await post({ accept });
      expect(r.status, accept).toBe(200);
      expect(r.headers.get('content-type'), accept).toMatch(/application\/json/);
      expect(JSON.parse(r.text)).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'svc' } } });
    }
    expect((await post({ accept: 'text/html' })).status).toBe(406);
  });

  it('refuses a foreign Host or Origin with 403', async () => {
    const refused: Record<string, string>[] = [
      { host: 'evil.example.com' },
      { host: `evil.example.com:${new URL(serve.baseUrl).port}` },
      { origin: 'http://evil.example.com' },
      { origin: 'null' },
    ];
    for (const headers of refused) {
      const r = await post(headers);
      expect(r.status, JSON.stringify(headers)).toBe(403);
      expect(JSON.parse(r.text)).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: null });
    }
  });

  it('accepts loopback names with any port, and the configured host and origin', async () => {
    const accepted: Record<string, string>[] = [
      { host: 'localhost:1' },
      { host: '[::1]:9' },
      { host: 'svc.test' },
      { host: 'svc.test:8443' },
      { origin: 'http://localhost:5173' },
      { origin: 'https://app.example.test' },
    ];
    for (const headers of accepted) {
      const r = await post(headers);
      expect(r.status, JSON.stringify(headers)).toBe(200);
    }
    const cors = await post({ origin: 'https://app.example.test' });
    expect(cors.headers.get('access-control-allow-origin')).toBe('https://app.example.test');
    const preflight = await fetch(serve.mcpUrl, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.test', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/authorization/);
  });

  it('answers a wrong or malformed token with 401 and WWW-Authenticate: Bearer', async () => {
    for (const authorization of ['Bearer svc_user_wrong', 'Bearer nope', 'Basic YTpi', 'Bearer']) {
      const r = await post({ authorization });
      expect(r.status, authorization).toBe(401);
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
  });

  it('answers GET and DELETE with 405 (stateless: no stream, no session)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(serve.mcpUrl, { method, headers: { accept: 'text/event-stream' } });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toMatch(/POST/);
    }
  });

  it('refuses a JSON-RPC batch with -32600, on either leg and either answer form', async () => {
    const search = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'svc-search', arguments: { search_params: { query: 'anything' } } },
    });
    for (const accept of ['application/json, text/event-stream', 'application/json']) {
      for (const batch of [
        [INIT, search(2)],
        [search(1), search(2), search(3)],
      ]) {
        const r = await post({ accept, authorization: `Bearer ${fx.tokens.sub}` }, batch);
        expect(r.status, r.text).toBe(400);
        const body = JSON.parse(r.text) as { error: { code: number; message: string }; id: null };
        expect(body.error.code).toBe(-32600);
        expect(body.error.message).toMatch(/batch/i);
        expect(body.id).toBeNull();
      }
    }
    // Whitespace before the array is still a batch.
    expect((await post({}, `  \n[${JSON.stringify(INIT)}]`)).status).toBe(400);
  });

  it('limits the request body (413)', async () => {
    const big = JSON.stringify({
      ...INIT,
      params: { ...INIT.params, clientInfo: { name: 'x'.repeat(70_000), version: '1' } },
    });
    const r = await post({}, big);
    expect(r.status).toBe(413);
  });

  it('sends warning notifications on the request stream and accepts logging/setLevel', async () => {
    const seen: LoggingMessageNotification['params'][] = [];
    clients.sub.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void seen.push(n.params));
    expect(await clients.sub.setLoggingLevel('debug')).toEqual({});
    const tools = (await clients.sub.listTools()).tools;
    await call(clients.sub, tools, 'svc-link-report', {});
    await new Promise((r) => setTimeout(r, 50));
    expect(seen.some((s) => s.level === 'warning' && (s.data as { tool?: string }).tool === 'svc-link-report')).toBe(
      true,
    );
  });
});
