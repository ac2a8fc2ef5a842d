// This worker's side of a crawl several workers share: the URLs it found, buffered until they go into the
// frontier in one transaction, the claims it finished, and what it knows of the others. The protocol that uses
// it is shared-run.ts; pages and links reach it only through found().
import { CHECK_LANE, type SharedCrawl, type SharedUrl, type WorkerReport } from '../../model/shared-crawl.js';

/** How a link check's URL starts in the frontier (in its own lane, beside the targets' pages). */
export const CHECK_PREFIX = 'check:';

/** What a link check carries in its frontier note. */
export interface CheckNote {
  /** request_timeout_ms */
  timeoutMs: number;
  /** The external link cache's age in ms (0: none). */
  cacheMs: number;
}

/** What a page carries in its frontier note. */
export interface PageNote {
  /** One of its target's seeds. */
  seed: boolean;
  /** Its sitemap lastmod (the lead read the sitemaps). */
  lastmod: string | null;
}

/** The frontier URL of a link check of url, with its note (short keys: the note is stored with every link). */
export function checkEntry(url: string, note: CheckNote): SharedUrl {
  return {
    url: `${CHECK_PREFIX}${url}`,
    target: CHECK_LANE,
    info: JSON.stringify({ t: note.timeoutMs, c: note.cacheMs }),
  };
}

/** The link a frontier URL of a link check names. */
export function checkedUrl(frontierUrl: string): string {
  return frontierUrl.slice(CHECK_PREFIX.length);
}

export function decodeCheckNote(info: string | null): CheckNote {
  const wire = JSON.parse(info ?? '{}') as { t: number; c: number };
  return { timeoutMs: wire.t, cacheMs: wire.c };
}

/** The frontier note of a seed (other pages carry none). */
export function encodeSeedNote(lastmod: string | null): string {
  return JSON.stringify({ seed: 1, lastmod });
}

export function decodePageNote(info: string | null): PageNote {
  const wire = info ? (JSON.parse(info) as { seed?: number; lastmod?: string | null }) : null;
  return { seed: Boolean(wire?.seed), lastmod: wire?.lastmod ?? null };
}

export class SharedFrontier {
  /** URLs found, to add to the frontier after the page that found them. */
  private pendingAdds: SharedUrl[] = [];
  /** Every flush of found URLs so far, one after the other. */
  private addChain: Promise<void> = Promise.resolve();
  /** Settles when pendingAdds (as they are now) are in the frontier. */
  private addsFlushed: { promise: Promise<void>; resolve: () => void; reject: (e: unknown) => void } | null = null;
  /** Claims handled here whose writes are not yet known to be in the store. */
  private doneIds: number[] = [];
  /** The sitemap lastmod of claimed URLs (the lead read the sitemaps). */
  readonly claimedLastmods = new Map<string, string>();
  /** The frontier has finished (or closed): nothing more to claim. */
  finished = false;
  /** The lead: the other workers' last reports, added to its stats. */
  others: WorkerReport[] = [];
  /** A claim per target (or lane) in flight, so this process asks once at a time. */
  readonly refills = new Map<string, Promise<void>>();

  constructor(readonly crawl: SharedCrawl) {}

  /** A URL found: it goes into the frontier with the next flush. */
  found(url: SharedUrl): void {
    this.pendingAdds.push(url);
  }

  /** Settles once the URLs found so far are in the frontier. */
  afterAdds(): Promise<void> {
    if (!this.pendingAdds.length) return this.addChain;
    if (!this.addsFlushed) {
      let resolve!: () => void;
      let reject!: (e: unknown) => void;
      const promise = new Promise<void>((onResolve, onReject) => {
        resolve = onResolve;
        reject = onReject;
      });
      this.addsFlushed = { promise, resolve, reject };
    }
    return this.addsFlushed.promise;
  }

  /**
   * The URLs found since the last call go into the frontier, in one transaction however many pages found them, one
   * flush after the other. Settles when every flush so far is in.
   */
  flushAdds(): Promise<void> {
    if (!this.pendingAdds.length) return this.addChain;
    const adds = this.pendingAdds;
    const flushed = this.addsFlushed;
    this.pendingAdds = [];
    this.addsFlushed = null;
    this.addChain = this.addChain
      .then(() => this.crawl.add(adds))
      .then(
        () => flushed?.resolve(),
        (err: unknown) => {
          flushed?.reject(err);
          throw err;
        },
      );
    return this.addChain;
  }

  /** A claim handled here: marked done with the next flush of done claims. */
  done(id: number): void {
    this.doneIds.push(id);
  }

  /** The claims to mark done now (none left to mark afterwards). */
  takeDone(): number[] {
    const ids = this.doneIds;
    this.doneIds = [];
    return ids;
  }
}
