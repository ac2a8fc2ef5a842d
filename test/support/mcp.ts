// What the MCP tests run against: a config in a temp dir, a tiny loopback site the test serves itself, users added
// with `svc users add` (in this process), and a posts file; `svc serve` over HTTP in this process (startServe) or
// as the built binary (spawnServe: two servers on one database), and the built `svc mcp` over stdio.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { hereOutput, serveHere, serveSvc, type RunningServe, type ServeProcess } from './cli.js';
import { SERVER_JS } from './paths.js';
import { article, startSite, type TestSite } from './site.js';

/**
 * The MCP tests' site: a home page linking to good, missing, forbidden, failing and redirecting pages. `delayMs`:
 * every answer but robots.txt and the sitemap waits this long, so a crawl lasts long enough to be followed.
 */
export async function startQuokkaSite(delayMs = 0): Promise<TestSite> {
  let origin = '';
  const pages: Record<string, string> = {
    '/': article(
      'Quokka home',
      'The quokka sanctuary welcomes visitors every weekend.',
      ['/about', '/news/one', '/missing', '/secret', '/broken', '/old'],
      { main: true },
    ),
    '/about': article('About the sanctuary', 'Volunteers feed the marsupials and count wombats.', ['/'], {
      main: true,
    }),
    '/news/one': article('Wombat census results', 'This year the wombat census found forty burrows.', ['/', '/gone'], {
      main: true,
    }),
  };
  const site = await startSite({}, (req, res, url) => {
    const path = url.pathname;
    const slow = delayMs > 0 && path !== '/robots.txt' && path !== '/sitemap.xml';
    const send = (status: number, type: string, body: string, headers: Record<string, string> = {}) => {
      const answer = () => {
        if (res.destroyed) return;
        res.writeHead(status, { 'content-type': type, ...headers });
        res.end(req.method === 'HEAD' ? undefined : body);
      };
      if (slow) setTimeout(answer, delayMs);
      else answer();
    };
    if (path === '/robots.txt')
      return send(200, 'text/plain', `User-agent: *\nAllow: /\nSitemap: ${origin}/sitemap.xml\n`);
    if (path === '/sitemap.xml') {
      const urls = Object.keys(pages).map((p) => `<url><loc>${origin}${p}</loc><lastmod>2026-10-01</lastmod></url>`);
      return send(
        200,
        'application/xml',
        `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.join('')}</urlset>`,
      );
    }
    if (pages[path]) return send(200, 'text/html; charset=utf-8', pages[path]);
    if (path === '/secret') return send(403, 'text/plain', 'forbidden');
    if (path === '/broken') return send(500, 'text/plain', 'boom');
    if (path === '/old') return send(301, 'text/plain', 'moved', { location: `${origin}/about` });
    return send(404, 'text/plain', 'not found');
  });
  origin = site.origin;
  return site;
}

export interface Fixture {
  dir: string;
  configPath: string;
  site: TestSite;
  /** Bearer tokens by login: admin (administrator), sub (subscriber), alice (author of post 102). */
  tokens: Record<'admin' | 'sub' | 'alice', string>;
  cleanup(): Promise<void>;
}

export interface FixtureOptions {
  hostVersion?: string;
  /** Delay of the site's pages (ms); see startQuokkaSite. */
  siteDelayMs?: number;
  server?: Record<string, unknown>;
  /** A PostgreSQL database for the store instead of SQLite in the data directory. */
  databaseUrl?: string;
  /** More top-level sections of the config (metrics, rate_limits, …). */
  config?: Record<string, unknown>;
}

export async function makeFixture(opts: FixtureOptions = {}): Promise<Fixture> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-mcp-'));
  const site = await startQuokkaSite(opts.siteDelayMs);
  const postsPath = join(dir, 'posts.json');
  writeFileSync(
    postsPath,
    JSON.stringify([
      {
        id: 101,
        url: site.url('/about'),
        title: 'About the sanctuary',
        status: 'publish',
        author: 'admin',
        language: 'en',
        terms: { category: ['about'] },
      },
      { id: 102, url: site.url('/news/draft'), title: 'Draft about otters', status: 'draft', author: 'alice' },
    ]),
  );
  const configPath = join(dir, 'config.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      data_dir: join(dir, 'data'),
      ...(opts.databaseUrl && { database_url: opts.databaseUrl }),
      targets: [{ host: site.host, scheme: 'http', track_links: 'all', concurrency: 2, request_timeout_ms: 3000 }],
      host: { version: opts.hostVersion ?? '6.9', posts_file: postsPath },
      // The anonymous-client cases of the suite need /mcp to let a request without a token through (as no user).
      server: { host: '127.0.0.1', port: 0, max_body_bytes: 65536, mcp_auth: 'optional', ...opts.server },
      log_level: 'warn',
      ...opts.config,
    }),
  );
  const add = async (login: string, role: string) =>
    (await hereOutput(['users', 'add', login, '--role', role, '--config', configPath])).trim();
  const tokens = {
    admin: await add('admin', 'administrator'),
    sub: await add('sub', 'subscriber'),
    alice: await add('alice', 'author'),
  };
  return {
    dir,
    configPath,
    site,
    tokens,
    async cleanup() {
      await site.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A client of `svc mcp` (stdio) as the login in SVC_USER (none when undefined). */
export async function stdioClient(
  fx: Fixture,
  login: string | undefined,
  name = 'test',
): Promise<{ client: Client; stderr: () => string }> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', SVC_LOG_LEVEL: 'warn' };
  if (login !== undefined) env.SVC_USER = login;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER_JS, 'mcp', '--config', fx.configPath],
    env,
    stderr: 'pipe',
    cwd: fx.dir,
  });
  let err = '';
  transport.stderr?.on('data', (c: Buffer) => (err += c.toString()));
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => err };
}

export interface McpServe extends RunningServe {
  mcpUrl: string;
}

/**
 * `svc serve --port 0` on loopback in this process (serveHere): for the suites about what MCP over HTTP answers.
 * Its passwords are at the tests' cost.
 */
export async function startServe(fx: Fixture): Promise<McpServe> {
  const p = await serveHere(fx.configPath, { env: { SVC_LOG_LEVEL: 'info' } });
  return { ...p, mcpUrl: `${p.baseUrl}/mcp` };
}

/**
 * The built `svc serve --port 0` as a process, in the fixture's directory: where separate processes are the
 * subject (two servers on one database) or what is read is the process's own (its metrics).
 */
export async function spawnServe(fx: Fixture, env: Record<string, string> = {}): Promise<McpServe & ServeProcess> {
  const p = await serveSvc(fx.configPath, { cwd: fx.dir, env: { SVC_LOG_LEVEL: 'info', ...env } });
  return { ...p, mcpUrl: `${p.baseUrl}/mcp` };
}

export async function httpClient(mcpUrl: string, token?: string, name = 'test'): Promise<Client> {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers } }));
  return client;
}

/** The text of a tool result's first content block (a result of either SDK line's client). */
export function textOf(result: Pick<CallToolResult, 'content'> | { content: { type: string }[] }): string {
  const first = result.content[0] as { type: string; text?: string } | undefined;
  return first?.type === 'text' ? (first.text ?? '') : '';
}
