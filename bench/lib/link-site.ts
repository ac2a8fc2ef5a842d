// The benchmarks' generated site on 127.0.0.1: `pages` HTML pages, each linking to ~10 others (a tree, so every
// page is reachable, plus random links, so pages are found many times over), each answering after `latencyMs`,
// robots.txt and no sitemap, so a crawl walks links. It counts what it is asked: page GETs per path and per crawler
// (the request header `workerHeader` names it), the most requests in flight at once, and the first and last.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { page, startSite, type TestSite } from '../../test/support/site.js';
import { mulberry32 } from './random.js';

export interface LinkSiteOptions {
  pages: number;
  latencyMs: number;
  /** The request header that says which crawler asked (a worker's config sets it). */
  workerHeader: string;
}

export interface SiteCounts {
  /** Page path → GETs. */
  pageGets: Map<string, number>;
  /** Worker header → page GETs. */
  byWorker: Map<string, number>;
  other: number;
  inFlight: number;
  maxInFlight: number;
  firstAt: number;
  lastAt: number;
}

export const pathOf = (i: number) => (i === 0 ? '/' : `/p/${i}`);

/** Page i links to its parent and 3 children (a tree: everything reachable) and to random pages, 10 in all. */
function linksOf(i: number, pages: number): number[] {
  const rnd = mulberry32(i + 1);
  const out = new Set<number>();
  if (i > 0) out.add(Math.floor((i - 1) / 3));
  for (let c = 3 * i + 1; c <= 3 * i + 3 && c < pages; c++) out.add(c);
  while (out.size < Math.min(10, pages - 1)) {
    const j = Math.floor(rnd() * pages);
    if (j !== i) out.add(j);
  }
  return [...out];
}

function body(i: number, pages: number): string {
  const words = ['crawl', 'frontier', 'worker', 'politeness', 'lease', 'queue', 'index', 'search', 'link', 'report'];
  const rnd = mulberry32(1_000_000 + i);
  const text = Array.from({ length: 60 }, () => words[Math.floor(rnd() * words.length)]).join(' ');
  const nav = linksOf(i, pages)
    .map((j) => `<li><a href="${pathOf(j)}">Page ${j}</a></li>`)
    .join('');
  return page(`<h1>Page ${i}</h1><p>${text}</p><ul>${nav}</ul>`, { title: `Bench page ${i}` });
}

/** Starts the site; `counts` fills as it is asked. */
export async function linkSite(o: LinkSiteOptions): Promise<{ site: TestSite; counts: SiteCounts }> {
  const counts: SiteCounts = {
    pageGets: new Map(),
    byWorker: new Map(),
    other: 0,
    inFlight: 0,
    maxInFlight: 0,
    firstAt: 0,
    lastAt: 0,
  };
  const index = new Map<string, number>();
  for (let i = 0; i < o.pages; i++) index.set(pathOf(i), i);
  // Every request goes through this one handler (no routes), so every one is counted in flight.
  const handler = async (req: IncomingMessage, res: ServerResponse, url: URL) => {
    const now = Date.now();
    if (!counts.firstAt) counts.firstAt = now;
    counts.inFlight++;
    counts.maxInFlight = Math.max(counts.maxInFlight, counts.inFlight);
    res.once('close', () => {
      counts.inFlight--;
      counts.lastAt = Date.now();
    });
    await sleep(o.latencyMs);
    const i = index.get(url.pathname);
    if (url.pathname === '/robots.txt') {
      counts.other++;
      res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
    } else if (i !== undefined && !url.search) {
      if (req.method === 'GET') {
        counts.pageGets.set(url.pathname, (counts.pageGets.get(url.pathname) ?? 0) + 1);
        const w = String(req.headers[o.workerHeader] ?? '?');
        counts.byWorker.set(w, (counts.byWorker.get(w) ?? 0) + 1);
      } else {
        counts.other++;
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body(i, o.pages));
    } else {
      counts.other++;
      res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>not found</h1>');
    }
  };
  const site = await startSite({}, handler);
  return { site, counts };
}
