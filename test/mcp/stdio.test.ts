// `svc mcp` over stdio, the built process driven by the SDK's real Client.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CallToolResultSchema,
  LoggingMessageNotificationSchema,
  type CallToolResult,
  type LoggingMessageNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFixture, stdioClient, type Fixture } from '../support/mcp.js';
import { SERVER_JS } from '../support/paths.js';
import { call, toolCallSuite, type Clients } from '../support/mcp-tool-suite.js';

let fx: Fixture;
let clients: Clients;

beforeAll(async () => {
  fx = await makeFixture({ siteDelayMs: 250 });
  const [admin, sub, alice, none] = await Promise.all([
    stdioClient(fx, 'admin'),
    stdioClient(fx, 'sub'),
    stdioClient(fx, 'alice'),
    stdioClient(fx, undefined),
  ]);
  clients = { admin: admin.client, sub: sub.client, alice: alice.client, none: none.client };
});

afterAll(async () => {
  await Promise.all(Object.values(clients ?? {}).map((c) => c.close()));
  await fx?.cleanup();
});

describe('svc mcp (stdio)', () => {
  toolCallSuite(() => ({ clients, fx, signIn: /SVC_USER=<login>/ }));

  it('writes nothing but JSON-RPC messages on stdout', async () => {
    const child = spawn(process.execPath, [SERVER_JS, 'mcp', '--config', fx.configPath], {
      env: { PATH: process.env.PATH ?? '', SVC_USER: 'admin', SVC_LOG_LEVEL: 'debug' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    send({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'svc-search', arguments: { terms: 'quokka' } },
    });
    send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'svc-search', arguments: { terms: 7 } } });
    while (!out.includes('"id":4')) await new Promise((r) => setTimeout(r, 20));
    child.stdin.end(); // the client going away ends the server
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
    const lines = out.trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(4);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    expect(err).toMatch(/mcp stdio ready/); // logs went to stderr
  });

  it('refuses an unknown SVC_USER with a clear message on stderr', async () => {
    const child = spawn(process.execPath, [SERVER_JS, 'mcp', '--config', fx.configPath], {
      env: { PATH: process.env.PATH ?? '', SVC_USER: 'mallory' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const [code] = await once(child, 'exit');
    expect(code).toBe(2);
    expect(err).toMatch(/SVC_USER: no user with login "mallory"/);
    expect(out).toBe('');
  });

  it('honours logging/setLevel for the notifications it sends', async () => {
    const { client } = await stdioClient(fx, 'sub');
    const seen: LoggingMessageNotification['params'][] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void seen.push(n.params));
    const tools = (await client.listTools()).tools;
    await call(client, tools, 'svc-search', { terms: 'quokka' }); // default level: warning — a success says nothing
    await call(client, tools, 'svc-link-report', {}); // refused: a warning
    await new Promise((r) => setTimeout(r, 50));
    expect(seen.map((s) => s.level)).toEqual(['warning']);
    expect(seen[0]!.data).toMatchObject({ tool: 'svc-link-report' });
    expect(await client.setLoggingLevel('info')).toEqual({});
    await call(client, tools, 'svc-search', { terms: 'quokka' });
    await new Promise((r) => setTimeout(r, 50));
    expect(seen.map((s) => s.level)).toEqual(['warning', 'info']);
    await client.setLoggingLevel('error');
    await call(client, tools, 'svc-link-report', {});
    await new Promise((r) => setTimeout(r, 50));
    expect(seen).toHaveLength(2);
    await client.close();
  });
});

describe('svc mcp below host 6.9', () => {
  let old: Fixture;
  beforeAll(async () => {
    old = await makeFixture({ hostVersion: '6.8' });
  });
  afterAll(async () => old?.cleanup());

  it('lists no tools and says why in its instructions', async () => {
    const { client } = await stdioClient(old, 'admin');
    expect((await client.listTools()).tools).toEqual([]);
    expect(client.getInstructions()).toMatch(/no tools.*6\.8.*6\.9/);
    await expect(client.callTool({ name: 'svc-search', arguments: { terms: 'x' } })).rejects.toThrow(/unknown tool/);
    await client.close();
  });
});

// What a one-shot client does (the Inspector CLI, a script): start `svc mcp`, call, exit. The crawl runs inside
// that process, so it ends with the client unless the client waits for it with svc-get-crawl.
describe('svc mcp with one-shot clients', () => {
  let one: Fixture;
  beforeAll(async () => {
    one = await makeFixture({ siteDelayMs: 250 });
  });
  afterAll(async () => one?.cleanup());

  /** One client process: connect, run `fn`, close (the `svc mcp` process exits with it). */
  async function oneShot<T>(fn: (client: Client) => Promise<T>): Promise<T> {
    const { client } = await stdioClient(one, 'admin', 'one-shot');
    try {
      return await fn(client);
    } finally {
      await client.close();
    }
  }
  const structured = (r: unknown) => (r as CallToolResult).structuredContent as Record<string, unknown>;

  it('a client that exits right after svc-full-crawl stops the crawl (the descriptions say so)', async () => {
    const id = await oneShot(
      async (c) => structured(await c.callTool({ name: 'svc-full-crawl', arguments: {} })).id as number,
    );
    const rec = await oneShot(async (c) => structured(await c.callTool({ name: 'svc-get-crawl', arguments: { id } })));
    expect(rec).toMatchObject({ id, status: 'stopped' });
  });

  it('a client that calls svc-full-crawl, then svc-get-crawl with wait_seconds, then exits sees the crawl complete', async () => {
    const [started, waited] = await oneShot(async (c) => {
      const s = structured(await c.callTool({ name: 'svc-full-crawl', arguments: {} }));
      const w = structured(
        await c.callTool({ name: 'svc-get-crawl', arguments: { id: s.id, wait_seconds: 60 } }, CallToolResultSchema, {
          timeout: 90_000,
        }),
      );
      return [s, w];
    });
    expect(waited).toMatchObject({ id: started.id, status: 'completed' });
    // A new process reads the same record from the database: the crawl really completed, and its findings are there.
    const [rec, report] = await oneShot(async (c) => [
      structured(await c.callTool({ name: 'svc-get-crawl', arguments: {} })),
      structured(await c.callTool({ name: 'svc-link-report', arguments: { reasons: ['forbidden'] } })),
    ]);
    expect(rec).toMatchObject({ id: started.id, status: 'completed', finished_at: expect.any(String) });
    expect(report.last_full_crawl).toBe(rec.finished_at);
    expect(report.links).toEqual([expect.objectContaining({ link: one.site.url('/secret'), reason: 'forbidden' })]);
  });
});
