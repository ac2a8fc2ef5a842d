// A crawl sink and reader in memory, so crawler tests need no SQLite: pages and outcomes land in maps, and the
// reader answers from them as the store would (anchors of stored pages, the external link cache).
import type { CrawlReader, CrawlSink } from '../../src/crawler/sink.js';
import type { OutcomeWrite, PageWrite, StoredRevisit } from '../../src/model/crawl-writes.js';

interface StoredOutcome extends OutcomeWrite {
  checkedAt: string;
}

export class MemoryStore {
  readonly pages = new Map<string, PageWrite>();
  readonly outcomes = new Map<string, StoredOutcome>();
  /** Pages the crawls asked to remove, in order. */
  readonly removed: string[] = [];
  /** Pages the crawls kept as they were (304 or the same body), in order. */
  readonly kept: string[] = [];
  /** Pages written (parsed and stored), in order, over all crawls. */
  readonly written: string[] = [];
  /** The URLs of each revisit read, in order (a crawl reads them for its next queued pages at once). */
  readonly revisitReads: string[][] = [];
  /** Sinks closed so far (the engine closes its sink when the crawl ends). */
  closed = 0;

  /** A fresh sink for one crawl (the engine closes it when the crawl ends). */
  sink(): CrawlSink {
    return {
      page: (p) => {
        this.written.push(p.url);
        this.pages.set(p.url, p);
      },
      outcome: (o) => {
        if (o.onlyIfNew && this.outcomes.has(o.url)) return;
        this.outcomes.set(o.url, { ...o, checkedAt: new Date().toISOString() });
      },
      touch: () => {},
      keep: (k) => {
        this.kept.push(k.url);
        const p = this.pages.get(k.url);
        if (!p) return;
        p.crawlId = k.crawlId;
        p.sitemapLastmod = k.sitemapLastmod ?? p.sitemapLastmod;
        if (p.revisit) p.revisit = { ...p.revisit, etag: k.etag, lastModified: k.lastModified };
      },
      remove: (url) => {
        this.removed.push(url);
        this.pages.delete(url);
      },
      stats: () => {},
      flush: () => {},
      settle: async () => {},
      drain: async () => {},
      close: async () => {
        this.closed++;
      },
    };
  }

  reader(): CrawlReader {
    return {
      sitemapLastmods: async (host) =>
        new Map([...this.pages.values()].filter((p) => p.host === host).map((p) => [p.url, p.sitemapLastmod])),
      pageAnchors: async (url) => this.pages.get(url)?.anchors ?? null,
      okCheckedSince: async (url, since) => {
        const o = this.outcomes.get(url);
        return o !== undefined && o.reason === 'ok' && o.checkedAt >= since;
      },
      revisits: async (urls) => {
        this.revisitReads.push([...urls]);
        const found = new Map<string, StoredRevisit>();
        for (const url of urls) {
          const p = this.pages.get(url);
          if (p?.revisit) found.set(url, { ...p.revisit, httpStatus: p.httpStatus });
        }
        return found;
      },
    };
  }

  /** The links stored with a page, by URL. */
  linksOf(pageUrl: string): Map<string, { element: string; text: string }> {
    return new Map((this.pages.get(pageUrl)?.links ?? []).map((l) => [l.url, { element: l.element, text: l.text }]));
  }
}
