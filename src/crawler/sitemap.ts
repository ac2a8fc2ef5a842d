// Sitemaps and sitemap indexes (XML, gzipped XML, or plain text), with lastmod. Parsing is pure and
// streaming; loadSitemaps follows indexes breadth-first with caps on files, URLs and bytes. Malformed input
// yields whatever entries could be read.
import { TextDecoder } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { Parser } from 'htmlparser2';
import type { Fetcher } from './fetcher.js';
import type { BodySink } from './response-body.js';

export interface SitemapEntry {
  url: string;
  lastmod: string | null;
}

export interface SitemapContent {
  /** Page URLs (<urlset>). */
  urls: SitemapEntry[];
  /** Child sitemaps (<sitemapindex>). */
  sitemaps: SitemapEntry[];
}

/** W3C datetime → ISO 8601 when it parses (so equal instants compare equal), else the trimmed text. */
export function normalizeLastmod(value: string | null | undefined): string | null {
  const v = (value ?? '').trim();
  if (!v) return null;
  // A bare date is a day, not midnight somewhere: keep it as written.
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) return v;
  const t = Date.parse(v);
  return Number.isNaN(t) ? v.slice(0, 64) : new Date(t).toISOString();
}

/** Streaming parser for one sitemap document; caps the entries it keeps. */
export class SitemapParser {
  private readonly parser: Parser;
  private readonly out: SitemapContent = { urls: [], sitemaps: [] };
  private stack: string[] = [];
  private loc = '';
  private lastmod = '';
  private field: 'loc' | 'lastmod' | null = null;
  private sawTag = false;
  private plain = '';
  private count = 0;

  constructor(private readonly maxEntries = 50_000) {
    this.parser = new Parser(
      {
        onopentag: (rawName) => {
          this.sawTag = true;
          const name = localName(rawName);
          this.stack.push(name);
          if (name === 'url' || name === 'sitemap') {
            this.loc = '';
            this.lastmod = '';
          } else if (name === 'loc' || name === 'lastmod') this.field = name;
        },
        onclosetag: (rawName) => {
          const name = localName(rawName);
          this.stack.pop();
          if (name === 'loc' || name === 'lastmod') this.field = null;
          else if ((name === 'url' || name === 'sitemap') && this.loc.trim() && this.count < this.maxEntries) {
            this.count++;
            const entry = { url: this.loc.trim(), lastmod: normalizeLastmod(this.lastmod) };
            (name === 'url' ? this.out.urls : this.out.sitemaps).push(entry);
          }
        },
        ontext: (data) => {
          if (this.field === 'loc' && this.loc.length < 4096) this.loc += data;
          else if (this.field === 'lastmod' && this.lastmod.length < 64) this.lastmod += data;
          else if (!this.sawTag && this.plain.length < 64 * 1024 * 1024) this.plain += data;
        },
      },
      { xmlMode: true, decodeEntities: true },
    );
  }

  write(chunk: string): void {
    this.parser.write(chunk);
  }

  end(): SitemapContent {
    this.parser.end();
    if (!this.sawTag && this.plain) {
      // A text sitemap: one URL per line.
      for (const line of this.plain.split(/\r?\n/)) {
        const u = line.trim();
        if (/^https?:\/\//i.test(u) && this.out.urls.length < this.maxEntries)
          this.out.urls.push({ url: u, lastmod: null });
      }
    }
    return this.out;
  }
}

function localName(name: string): string {
  const i = name.indexOf(':');
  return (i >= 0 ? name.slice(i + 1) : name).toLowerCase();
}

export function parseSitemap(text: string, maxEntries?: number): SitemapContent {
  const p = new SitemapParser(maxEntries);
  p.write(text);
  return p.end();
}

/** A body sink that parses as bytes arrive, or collects and gunzips a .gz sitemap first. */
class SitemapSink implements BodySink {
  private readonly parser: SitemapParser;
  private readonly decoder = new TextDecoder('utf-8');
  private gz: Buffer[] | null = null;
  private first = true;
  result: SitemapContent | null = null;

  constructor(
    maxEntries: number,
    private readonly maxBytes: number,
  ) {
    this.parser = new SitemapParser(maxEntries);
  }

  write(chunk: Buffer): void {
    if (this.first) {
      this.first = false;
      if (chunk.length >= 2 && chunk[0] === 0x1f && chunk[1] === 0x8b) this.gz = [];
    }
    if (this.gz) this.gz.push(chunk);
    else this.parser.write(this.decoder.decode(chunk, { stream: true }));
  }

  end(): void {
    if (this.gz) {
      try {
        // maxOutputLength: a gzip bomb stops at the cap instead of filling memory.
        this.parser.write(gunzipSync(Buffer.concat(this.gz), { maxOutputLength: this.maxBytes }).toString('utf8'));
      } catch {
        // corrupt or too big: whatever was parsed stands (nothing)
      }
    } else this.parser.write(this.decoder.decode());
    this.result = this.parser.end();
  }
}

export interface LoadSitemapsOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Canonical URL of an entry when it belongs to the target, else null (entries elsewhere are ignored). */
  accept: (url: string) => string | null;
  /** Page URLs kept in all (the rest is ignored and reported as capped). */
  maxUrls?: number;
  /** Sitemap files read at most. */
  maxSitemaps?: number;
  /** Decoded bytes per sitemap file. */
  maxBytes?: number;
}

export interface LoadedSitemaps {
  /** canonical page URL → lastmod, in sitemap order. */
  entries: Map<string, string | null>;
  /** Sitemap files that answered 2xx. */
  read: number;
  /** Some entries or files were left out by the caps. */
  capped: boolean;
}

/** Reads sitemaps breadth-first from `start`, following sitemap indexes. */
export async function loadSitemaps(
  fetcher: Fetcher,
  start: string[],
  opts: LoadSitemapsOptions,
): Promise<LoadedSitemaps> {
  const maxUrls = opts.maxUrls ?? 100_000;
  const maxSitemaps = opts.maxSitemaps ?? 200;
  const maxBytes = opts.maxBytes ?? 50 * 1024 * 1024;
  const entries = new Map<string, string | null>();
  const queue = [...start];
  const visited = new Set<string>(start);
  let read = 0;
  let fetched = 0;
  let capped = false;
  while (queue.length) {
    if (opts.signal?.aborted) break;
    if (fetched >= maxSitemaps) {
      capped = true;
      break;
    }
    const url = queue.shift()!;
    fetched++;
    let sink: SitemapSink | null = null;
    const res = await fetcher.fetch(url, {
      timeoutMs: opts.timeoutMs,
      signal: opts.signal,
      maxBodyBytes: maxBytes,
      onResponse: (r) => {
        if (r.status < 200 || r.status >= 300) return undefined;
        sink = new SitemapSink(maxUrls, maxBytes);
        return sink;
      },
    });
    const content = (sink as SitemapSink | null)?.result;
    if (!res.ok || !content) continue;
    read++;
    for (const s of content.sitemaps) {
      try {
        const child = new URL(s.url, res.finalUrl);
        child.hash = '';
        if ((child.protocol === 'http:' || child.protocol === 'https:') && !visited.has(child.href)) {
          visited.add(child.href);
          queue.push(child.href);
        }
      } catch {
        // not a URL
      }
    }
    for (const e of content.urls) {
      const canonical = opts.accept(e.url);
      if (!canonical || entries.has(canonical)) continue;
      if (entries.size >= maxUrls) {
        capped = true;
        break;
      }
      entries.set(canonical, e.lastmod);
    }
  }
  return { entries, read, capped };
}
