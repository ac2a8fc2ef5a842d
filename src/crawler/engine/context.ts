// What every part of one crawl shares, made once per crawl and handed to each part explicitly: the caller's
// options, the fetcher, parser, sink and reader, the abort signal, the counters, the targets' runs, the links
// decided so far, and the state of link checks, fragments and (when workers share the crawl) the frontier.
import { setMaxListeners } from 'node:events';
import type { Logger } from '../../lib/log.js';
import type { TargetConfig } from '../../model/config.js';
import { mergeLinkRules, type LinkRules } from '../../model/link-rules.js';
import type { SharedCrawl } from '../../model/shared-crawl.js';
import type { CrawlMode, CrawlProgress } from '../../model/types.js';
import { Fetcher, type FetcherOptions } from '../fetcher.js';
import { ParsePool } from '../parse-pool.js';
import { revisitKey } from '../revisit.js';
import type { CrawlReader, CrawlSink } from '../sink.js';
import { FragmentLinks } from './fragments.js';
import { LinkCheckQueue } from './link-checks.js';
import { RevisitReads } from './revisit-reads.js';
import { SharedFrontier } from './shared-frontier.js';
import { TargetRun } from './target.js';
import { UrlSet } from './url-set.js';

export interface CrawlEngineOptions {
  /** Where pages and outcomes go. The engine closes it when the crawl ends. */
  sink: CrawlSink;
  reader: CrawlReader;
  crawlId: number;
  mode: CrawlMode;
  targets: TargetConfig[];
  /** manual: the URLs to crawl, each already checked to be a full URL on a target. */
  urls?: string[];
  logger: Logger;
  signal?: AbortSignal;
  fetcher?: FetcherOptions;
  onProgress?: (p: CrawlProgress) => void;
  progressIntervalMs?: number;
  /** Link checks (HEAD/GET) in flight across all hosts. */
  linkCheckConcurrency?: number;
  /** Parse on worker threads when the compiled script exists (default true). */
  threads?: boolean;
  /**
   * A crawl several worker processes run together: the frontier, the hosts' politeness and the stats are shared
   * through it. Never with check_fragments (a fragment's outcome needs every page's ids in one process).
   */
  shared?: SharedCrawl;
  /** Pages of a target in flight in this process, at most (default: the target's concurrency). */
  pageConcurrency?: number;
}

/** This process's counts, the crawl's stats once summed (a shared crawl's lead adds the other workers'). */
export interface CrawlCounts {
  /** Pages fetched (or given up on) by the page loops. */
  pagesDone: number;
  pagesStored: number;
  linksChecked: number;
  errors: number;
  /** Stored pages kept as they were: the site answered 304, or the same body again. */
  notModified: number;
  unchanged: number;
}

export class CrawlContext {
  readonly options: CrawlEngineOptions;
  readonly logger: Logger;
  readonly writer: CrawlSink;
  readonly reader: CrawlReader;
  /** The stored revisit rows of queued pages, read a batch at a time. */
  readonly revisits: RevisitReads;
  readonly fetcher: Fetcher;
  readonly parser: ParsePool;
  /** Aborted by the caller's signal (a stop) or by a fatal error (e.g. the store cannot be written). */
  readonly signal: AbortSignal;
  private readonly aborter = new AbortController();
  /** The first failure of the crawl itself (a page's own problems are outcomes): what the crawl throws. */
  fatal: unknown = null;
  readonly started = Date.now();
  readonly counts: CrawlCounts = {
    pagesDone: 0,
    pagesStored: 0,
    linksChecked: 0,
    errors: 0,
    notModified: 0,
    unchanged: 0,
  };
  /** Per target, in config order. */
  readonly runs: TargetRun[];
  /**
   * Link URLs whose outcome this crawl has recorded or will record (once per crawl), but for the pages this process
   * queued alone: their fetch records it, and their target's `seen` already says so.
   */
  readonly decided = new UrlSet();
  /** Some target checks fragments: pages keep their ids, outcomes of target URLs are remembered (else null). */
  readonly fragments: FragmentLinks | null;
  readonly checks: LinkCheckQueue;
  /** A crawl run together with other workers (null: this process alone). */
  readonly shared: SharedFrontier | null;
  /** The rules of links no target owns: every target's together, in target order. */
  private readonly externalRules: LinkRules;

  constructor(options: CrawlEngineOptions) {
    const checksFragments = options.targets.some((target) => target.check_fragments);
    if (options.shared && checksFragments)
      throw new Error('a crawl that checks fragments cannot be shared by several workers');
    this.options = options;
    this.logger = options.logger;
    this.writer = options.sink;
    this.reader = options.reader;
    this.revisits = new RevisitReads(options.reader);
    this.signal = this.aborter.signal;
    if (options.signal?.aborted) this.aborter.abort();
    else options.signal?.addEventListener('abort', () => this.aborter.abort(), { once: true });
    // Every request in flight listens to it.
    setMaxListeners(0, this.signal);
    this.fetcher = new Fetcher(options.fetcher);
    this.runs = options.targets.map((target) => new TargetRun(target, options.pageConcurrency));
    const origins = this.runs.map((run) => [run.origin, run.config.walk_query_strings] as const);
    for (const run of this.runs) run.revisitKey = revisitKey(run.config, origins, checksFragments);
    this.fragments = checksFragments ? new FragmentLinks() : null;
    this.parser = new ParsePool(options.threads === false ? 0 : undefined);
    this.checks = new LinkCheckQueue(options.linkCheckConcurrency ?? 32, this.signal);
    this.shared = options.shared ? new SharedFrontier(options.shared) : null;
    this.externalRules = mergeLinkRules(this.runs.map((run) => run.rules));
  }

  /** The remap, accept and retries that hold for a URL: its target's, else every target's together. */
  rulesFor(url: string): LinkRules {
    return this.targetFor(url)?.rules ?? this.externalRules;
  }

  /** Stops the crawl for a failure of the crawl itself; the first one is what the crawl throws. */
  fail(err: unknown): void {
    this.fatal ??= err;
    this.aborter.abort();
  }

  /** The target a URL belongs to. */
  targetFor(url: string): TargetRun | undefined {
    for (const run of this.runs) if (run.owns(url)) return run;
    return undefined;
  }
}
