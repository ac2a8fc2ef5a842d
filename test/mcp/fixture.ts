// What the MCP tests run against: the BUILT `svc` (dist/src/server.js, rebuilt when a source is newer), a
// config in a temp dir, a tiny loopback site the test serves itself, users added with `svc users add`, and a
// posts file. Processes are real: `svc mcp` over stdio, `svc serve` over HTTP.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

import { ROOT, SERVER_JS } from '../paths.js';

export { ROOT, SERVER_JS };

function newestSourceIsBuilt(): boolean {
  const walk = (dir: string): boolean => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (!walk(p)) return false;
      } else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) {
        const out = join(ROOT, 'dist', relative(ROOT, p)).replace(/\.ts$/, '.js');
        if (!existsSync(out) || statSync(out).mtimeMs < statSync(p).mtimeMs) return false;
      }
    }
    return true;
  };
  return walk(join(ROOT, 'src'));
}

/** Builds dist/ once when any source is newer than its output (test files build in parallel: a lock dir serialises them). */
export async function ensureBuilt(): Promise<void> {
  if (newestSourceIsBuilt()) return;
  const lock = join(ROOT, 'dist', '.mcp-test-build.lock');
  mkdirSync(dirname(lock), { recursive: true });
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`could not take ${lock}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    if (newestSourceIsBuilt()) return;
    // tsc emits even when files owned elsewhere have type errors; what matters is a fresh dist/.
    spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.json')], { stdio: 'ignore' });
    if (!existsSync(SERVER_JS)) throw new Error('build did not produce dist/src/server.js');
  } finally {
    rmdirSync(lock);
  }
}

/** The loopback site: a home page linking to good, missing, forbidden, failing and redirecting pages. */
export interface TestSite {
  origin: string;
  host: string;
  url(path: string): string;
  close(): Promise<void>;
}

const page = (title: string, body: string, links: string[] = []) =>
  `<!doctype html><html lang="en"><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${body}</p>${links
    .map((l) => `<a href="${l}">${l}</a>`)
    .join(' ')}</main></body></html>`;

/** `delayMs`: every answer but robots.txt and the sitemap waits this long, so a crawl lasts long enough to be followed. */
export async function startSite(delayMs = 0): Promise<TestSite> {
  let origin = '';
  const pages: Record<string, string> = {
    '/': page('Quokka home', 'The quokka sanctuary welcomes visitors every weekend.', ['/about', '/news/one', '/missing', '/secret', '/broken', '/old']),
    '/about': page('About the sanctuary', 'Volunteers feed the marsupials and count wombats.', ['/']),
    '/news/one': page('Wombat census results', 'This year the wombat census found forty burrows.', ['/', '/gone']),
  };
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
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
    if (path === '/robots.txt') return send(200, 'text/plain', `User-agent: *\nAllow: /\nSitemap: ${origin}/sitemap.xml\n`);
    if (path === '/sitemap.xml') {
      const urls = Object.keys(pages).map((p) => `<url><loc>${origin}${p}</loc><lastmod>2026-10-01</lastmod></url>`);
      return send(200, 'application/xml', `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.join('')}</urlset>`);
    }
    if (pages[path]) return send(200, 'text/html; charset=utf-8', pages[path]);
    if (path === '/secret') return send(403, 'text/plain', 'forbidden');
    if (path === '/broken') return send(500, 'text/plain', 'boom');
    if (path === '/old') return send(301, 'text/plain', 'moved', { location: `${origin}/about` });
    return send(404, 'text/plain', 'not found');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    host: `127.0.0.1:${port}`,
    url: (p) => `${origin}${p}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
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
  /** Delay of the site's pages (ms); see startSite. */
  siteDelayMs?: number;
  server?: Record<string, unknown>;
}

/** Runs the built `svc` with args; returns stdout (throws with stderr when it fails). */
export function svc(args: string[], env: NodeJS.ProcessEnv = {}): string {
  const r = spawnSync(process.execPath, [SERVER_JS, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
  if (r.status !== 0) throw new Error(`svc ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

export async function makeFixture(opts: FixtureOptions = {}): Promise<Fixture> {
  await ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), 'svc-mcp-'));
  const site = await startSite(opts.siteDelayMs);
  const postsPath = join(dir, 'posts.json');
  writeFileSync(
    postsPath,
    JSON.stringify([
      { id: 101, url: site.url('/about'), title: 'About the sanctuary', status: 'publish', author: 'admin', language: 'en', terms: { category: ['about'] } },
      { id: 102, url: site.url('/news/draft'), title: 'Draft about otters', status: 'draft', author: 'alice' },
    ]),
  );
  const configPath = join(dir, 'config.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      data_dir: join(dir, 'data'),
      targets: [{ host: site.host, scheme: 'http', track_links: 'all', concurrency: 2, request_timeout_ms: 3000 }],
      host: { version: opts.hostVersion ?? '6.9', posts_file: postsPath },
      // The anonymous-client cases of the suite need /mcp to let a request without a token through (as no user).
      server: { host: '127.0.0.1', port: 0, max_body_bytes: 65536, mcp_auth: 'optional', ...opts.server },
      log_level: 'warn',
    }),
  );
  const add = (login: string, role: string) => svc(['users', 'add', login, '--role', role, '--config', configPath]).trim();
  const tokens = { admin: add('admin', 'administrator'), sub: add('sub', 'subscriber'), alice: add('alice', 'author') };
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
export async function stdioClient(fx: Fixture, login: string | undefined, name = 'test'): Promise<{ client: Client; stderr: () => string }> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', SVC_LOG_LEVEL: 'warn' };
  if (login !== undefined) env.SVC_USER = login;
  const transport = new StdioClientTransport({ command: process.execPath, args: [SERVER_JS, 'mcp', '--config', fx.configPath], env, stderr: 'pipe', cwd: fx.dir });
  let err = '';
  transport.stderr?.on('data', (c: Buffer) => (err += c.toString()));
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => err };
}

export interface ServeProcess {
  child: ChildProcess;
  baseUrl: string;
  mcpUrl: string;
  stop(): Promise<void>;
}

/** `svc serve --port 0` on loopback; the port comes from its `base_url` log line on stderr. */
export async function startServe(fx: Fixture): Promise<ServeProcess> {
  const child = spawn(process.execPath, [SERVER_JS, 'serve', '--config', fx.configPath, '--port', '0'], {
    cwd: fx.dir,
    env: { PATH: process.env.PATH ?? '', SVC_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const baseUrl = await new Promise<string>((resolveUrl, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`svc serve did not start:\n${buf}`)), 20_000);
    child.stderr!.on('data', (c: Buffer) => {
      buf += c.toString();
      for (const line of buf.split('\n')) {
        if (!line.startsWith('{')) continue;
        try {
          const rec = JSON.parse(line) as { base_url?: string };
          if (rec.base_url) {
            clearTimeout(timer);
            resolveUrl(rec.base_url);
          }
        } catch {
          // a partial line; wait for the rest
        }
      }
    });
    child.once('exit', (code) => reject(new Error(`svc serve exited ${code}:\n${buf}`)));
  });
  return {
    child,
    baseUrl,
    mcpUrl: `${baseUrl}/mcp`,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

export async function httpClient(mcpUrl: string, token?: string, name = 'test'): Promise<Client> {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers } }));
  return client;
}

/** The text of a tool result's first content block. */
export function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

/** Polls until fn returns a value (not undefined) or the time runs out. */
export async function waitFor<T>(fn: () => Promise<T | undefined>, ms = 20_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}
