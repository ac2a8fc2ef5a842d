// A test site on 127.0.0.1 (port 0) with routes the test defines, counting every request it answers; the pages
// and answers its routes give; a crawl target on it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TargetConfig } from '../../src/model/config.js';
import { TargetSchema } from '../../src/model/config.js';

export type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => void | Promise<void>;

export interface TestSite {
  origin: string;
  host: string;
  port: number;
  /** The absolute URL of a path on the site. */
  url(path: string): string;
  /** "METHOD /path?query" → times requested. */
  hits: Map<string, number>;
  /** Every request in order, "METHOD /path?query". */
  log: string[];
  /** Request headers of the last request per path. */
  headers: Map<string, Record<string, string | string[] | undefined>>;
  routes: Map<string, Handler>;
  route(path: string, h: Handler): void;
  hitCount(path: string, method?: string): number;
  close(): Promise<void>;
}

export async function startSite(routes: Record<string, Handler> = {}, fallback?: Handler): Promise<TestSite> {
  const map = new Map(Object.entries(routes));
  const hits = new Map<string, number>();
  const log: string[] = [];
  const headers = new Map<string, Record<string, string | string[] | undefined>>();
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const key = `${req.method} ${url.pathname}${url.search}`;
    hits.set(key, (hits.get(key) ?? 0) + 1);
    log.push(key);
    headers.set(url.pathname, req.headers);
    const h = map.get(url.pathname) ?? fallback;
    if (!h) {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>not found</h1>');
      return;
    }
    Promise.resolve(h(req, res, url)).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(err));
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const host = `127.0.0.1:${port}`;
  return {
    origin: `http://${host}`,
    host,
    port,
    url: (p) => `http://${host}${p}`,
    hits,
    log,
    headers,
    routes: map,
    route: (p, h) => void map.set(p, h),
    hitCount(path, method) {
      let n = 0;
      for (const [k, v] of hits) {
        const [m, p] = k.split(' ') as [string, string];
        if ((p === path || p.split('?')[0] === path) && (!method || m === method)) n += v;
      }
      return n;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/** A port nothing listens on (bound, then closed). */
export async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** An HTML page around `body`. */
export function page(body: string, opts: { title?: string; head?: string; lang?: string } = {}): string {
  return `<!doctype html><html${opts.lang ? ` lang="${opts.lang}"` : ''}><head><meta charset="utf-8"><title>${opts.title ?? 'Page'}</title>${opts.head ?? ''}</head><body>${body}</body></html>`;
}

/** An English page with a heading, one paragraph and links (inside <main> when asked). */
export function article(title: string, text: string, links: string[] = [], opts: { main?: boolean } = {}): string {
  const body = `<h1>${title}</h1><p>${text}</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}`;
  return page(opts.main ? `<main>${body}</main>` : body, { title, lang: 'en' });
}

export const send =
  (status: number, body = '', headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers }).end(body);
  };

export const html = (body: string, opts?: Parameters<typeof page>[1], headers: Record<string, string> = {}): Handler =>
  send(200, page(body, opts), headers);

export const redirect =
  (status: number, location: string): Handler =>
  (_req, res) => {
    res.writeHead(status, { location }).end();
  };

/** Never answers (until the socket is destroyed at close). */
export const hang: Handler = () => new Promise<void>(() => {});

export function target(over: Partial<Record<keyof TargetConfig, unknown>> & { host: string }): TargetConfig {
  return TargetSchema.parse({ scheme: 'http', track_links: 'all', request_timeout_ms: 500, concurrency: 4, ...over });
}

export function writeJson(dir: string, name: string, value: unknown): string {
  const p = join(dir, name);
  writeFileSync(p, JSON.stringify(value));
  return p;
}
