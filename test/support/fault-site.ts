// A hostile site on loopback: every way a crawled server can misbehave, one path each.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGzip } from 'node:zlib';
import { article } from './site.js';

export interface FaultSite {
  server: Server;
  host: string;
  url: (path: string) => string;
  /** How many requests each path received. */
  hits: Map<string, number>;
  /** Which variant of robots.txt / sitemap to answer with. */
  mode: { robots: 'normal' | 'html' | 'huge' | '500'; sitemap: 'none' | 'huge' | 'malformed' };
  close(): Promise<void>;
}

const MB = 1024 * 1024;
// 200 MB of zeros compress to ~200 kB: decompressing it whole would be the bomb. Made by streaming 1 MB at a
// time, when the site starts, so the test site itself never holds 200 MB (its memory is the crawl's process's).
let bomb: Buffer | undefined;
async function makeGzipBomb(): Promise<Buffer> {
  const gz = createGzip({ level: 9 });
  const chunks: Buffer[] = [];
  gz.on('data', (c: Buffer) => chunks.push(c));
  const zeros = Buffer.alloc(MB);
  for (let i = 0; i < 200; i++) if (!gz.write(zeros)) await once(gz, 'drain');
  gz.end();
  await once(gz, 'end');
  return Buffer.concat(chunks);
}
const gzipBomb = () => bomb!;

const LINKED = [
  '/ok',
  '/slow-headers',
  '/slow-body',
  '/reset',
  '/huge',
  '/endless',
  '/gzip-bomb',
  '/loop/a',
  '/chain/30',
  '/storm-retry-after',
  '/storm-plain',
  '/calendar/2026-01',
  '/bad-utf8',
  '/latin1',
];

export async function startFaultSite(): Promise<FaultSite> {
  bomb ??= await makeGzipBomb();
  const hits = new Map<string, number>();
  const mode: FaultSite['mode'] = { robots: 'normal', sitemap: 'none' };
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };
  const html = (res: ServerResponse, body: string, status = 200) => {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
    res.end(body);
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const n = (hits.get(path) ?? 0) + 1;
    hits.set(path, n);
    res.on('error', () => {});
    req.socket.on('error', () => {});
    if (path === '/robots.txt') {
      if (mode.robots === '500') return void res.writeHead(500).end('boom');
      if (mode.robots === 'html')
        return html(res, article('Not robots', 'This is an HTML page where robots.txt should be.', ['/ok']));
      if (mode.robots === 'huge') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const line = 'Disallow: /nothing-here-' + 'x'.repeat(100) + '\n';
        return void res.end('User-agent: *\n' + line.repeat(Math.ceil((20 * MB) / line.length)));
      }
      const sitemap = mode.sitemap === 'none' ? '' : `Sitemap: http://${req.headers.host}/sitemap.xml\n`;
      res.writeHead(200, { 'content-type': 'text/plain' });
      return void res.end(`User-agent: *\nDisallow: /private/\n${sitemap}`);
    }
    if (path === '/sitemap.xml') {
      if (mode.sitemap === 'malformed') {
        res.writeHead(200, { 'content-type': 'application/xml' });
        return void res.end(
          '<?xml version="1.0"?><urlset><url><loc>http://' + req.headers.host + '/ok</loc><url><loc>broken',
        );
      }
      if (mode.sitemap === 'huge') {
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.write(
          '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n',
        );
        for (let i = 0; i < 60_000; i++)
          res.write(`<url><loc>http://${req.headers.host}/calendar/s-${i}</loc><lastmod>2026-01-01</lastmod></url>\n`);
        return void res.end('</urlset>\n');
      }
      return void res.writeHead(404).end();
    }
    if (path === '/') return html(res, article('Fault site', 'Every kind of trouble a crawler meets.', LINKED));
    if (path === '/ok') return html(res, article('Fine page', 'Nothing wrong here.'));
    if (path === '/slow-headers') return later(5_000, () => html(res, article('Late', 'too late')));
    if (path === '/slow-body') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<html><body><p>begins');
      return later(5_000, () => res.end('</p></body></html>'));
    }
    if (path === '/reset') {
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': '100000' });
      res.write('<html><body>' + 'a'.repeat(1000));
      return later(20, () => req.socket.destroy());
    }
    if (path === '/huge') {
      res.writeHead(200, { 'content-type': 'text/html' });
      const chunk = Buffer.from('<p>' + 'lorem ipsum '.repeat(5000) + '</p>\n');
      let sent = 0;
      const pump = () => {
        for (let i = 0; sent < 50 * MB && i < 64; i++) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        if (sent < 50 * MB) setImmediate(pump);
        else if (sent !== Infinity) res.end();
      };
      res.on('close', () => (sent = Infinity));
      return pump();
    }
    if (path === '/endless') {
      res.writeHead(200, { 'content-type': 'text/html' });
      const chunk = Buffer.from('<p>' + 'forever '.repeat(8000) + '</p>\n');
      let open = true;
      res.on('close', () => (open = false));
      // Yield between bursts: a HEAD response swallows writes without back-pressure.
      const pump = () => {
        for (let i = 0; open && i < 64; i++) if (!res.write(chunk)) return void res.once('drain', pump);
        if (open) setImmediate(pump);
      };
      return pump();
    }
    if (path === '/gzip-bomb') {
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
      return void res.end(gzipBomb());
    }
    if (path === '/loop/a') return void res.writeHead(302, { location: '/loop/b' }).end();
    if (path === '/loop/b') return void res.writeHead(302, { location: '/loop/a' }).end();
    const hop = /^\/chain\/(\d+)$/.exec(path);
    if (hop) {
      const left = Number(hop[1]);
      if (left === 0) return html(res, article('End of the chain', 'reached'));
      return void res.writeHead(301, { location: `/chain/${left - 1}` }).end();
    }
    if (path === '/storm-retry-after') {
      if (n <= 3) return void res.writeHead(429, { 'retry-after': '1' }).end('slow down');
      return html(res, article('Patience', 'answered after the storm'));
    }
    if (path === '/storm-plain') {
      if (n <= 2) return void res.writeHead(429).end('slow down');
      return html(res, article('Patience too', 'answered after a storm without Retry-After'));
    }
    const month = /^\/calendar\/(\d{4})-(\d{2})$/.exec(path);
    if (month) {
      const y = Number(month[1]);
      const m = Number(month[2]);
      const next = m === 12 ? `${y + 1}-01` : `${y}-${String(m + 1).padStart(2, '0')}`;
      const prev = m === 1 ? `${y - 1}-12` : `${y}-${String(m - 1).padStart(2, '0')}`;
      return html(res, article(`Calendar ${y}-${month[2]}`, 'No events.', [`/calendar/${next}`, `/calendar/${prev}`]));
    }
    if (path.startsWith('/calendar/s-')) return html(res, article(`Sitemap page ${path}`, 'from the big sitemap'));
    if (path === '/bad-utf8') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return void res.end(
        Buffer.concat([
          Buffer.from('<html><head><title>Broken bytes</title></head><body><p>valid start '),
          Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xa0]),
          Buffer.from(' uniquebrokenword end</p></body></html>'),
        ]),
      );
    }
    if (path === '/latin1') {
      res.writeHead(200, { 'content-type': 'text/html; charset=iso-8859-1' });
      return void res.end(
        Buffer.from(
          '<html><head><title>Latin page</title></head><body><p>Smörgåsbord café naïve</p></body></html>',
          'latin1',
        ),
      );
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  });
  server.keepAliveTimeout = 1000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const host = `127.0.0.1:${port}`;
  return {
    server,
    host,
    url: (p) => `http://${host}${p}`,
    hits,
    mode,
    async close() {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
