// The crawl engine's lifecycle: modes full / partial / manual as the README describes them, link tracking,
// max_pages. It sets the hosts' politeness up, runs the crawl alone or shared with other workers, waits for the
// link checks, decides what was left and the fragments, and closes everything it opened. The jobs themselves
// live beside it (seeds, pages, links, link checks, fragments, the shared run), all on one CrawlContext.
// What a full crawl clears is the backend's decision.
import type { HostLimits } from '../../model/host-pace.js';
import type { CrawlProgress, CrawlStats } from '../../model/types.js';
import { SharedHostGate } from '../shared-host-gate.js';
import type { TargetResult } from '../sink.js';
import { CrawlContext, type CrawlEngineOptions } from './context.js';
import { recordLeftovers, runTarget } from './local-run.js';
import { endShared, runShared } from './shared-run.js';
import { crawlProgress, crawlStats } from './stats.js';

export interface CrawlResult {
  stats: CrawlStats;
  /** The signal stopped it before the end. */
  stopped: boolean;
  /** Per target, in config order. */
  targets: TargetResult[];
}

export class CrawlEngine {
  private readonly ctx: CrawlContext;

  constructor(options: CrawlEngineOptions) {
    this.ctx = new CrawlContext(options);
  }

  async run(): Promise<CrawlResult> {
    const ctx = this.ctx;
    const { options, writer } = ctx;
    const shared = ctx.shared;
    const tick = setInterval(() => {
      // Live stats reach the store through the writer (its thread, its transaction), never from here. A worker that
      // joined a shared crawl reports to the lead instead: the crawl record's stats are the lead's sum.
      try {
        if (shared?.crawl.role !== 'join') writer.stats(this.stats());
        writer.flush();
      } catch (err) {
        // The writer failed (a batch did not commit): the crawl ends with that error. Thrown from a timer it would
        // end the whole process instead (svc serve, with every other crawl and request it has).
        ctx.fail(err);
      }
      this.emitProgress();
    }, options.progressIntervalMs ?? 500);
    try {
      for (const run of ctx.runs) {
        const gate = shared
          ? (limits: HostLimits) => new SharedHostGate(run.host, limits, shared.crawl.hosts, ctx.logger)
          : undefined;
        ctx.fetcher.configureHost(
          run.host,
          {
            concurrency: run.config.concurrency,
            delayMs: run.config.crawl_delay_ms,
            headers: run.config.request_headers,
          },
          gate,
        );
      }
      const fail = (err: unknown) => ctx.fail(err);
      if (shared) await runShared(ctx, shared).catch(fail);
      else await Promise.all(ctx.runs.map((run) => runTarget(ctx, run).catch(fail)));
      await ctx.checks.drained();
      if (ctx.fatal) throw ctx.fatal;
      const stopped = ctx.signal.aborted;
      if (shared) await endShared(ctx, shared, stopped);
      else recordLeftovers(ctx);
      await writer.drain();
      if (ctx.fragments?.size) {
        // The pages' ids are in the store now (this crawl's and earlier ones').
        await ctx.fragments.decide(ctx);
        await writer.drain();
      }
      return { stats: this.stats(), stopped, targets: ctx.runs.map((run) => run.result(stopped)) };
    } finally {
      clearInterval(tick);
      await Promise.all([ctx.fetcher.close(), writer.close(), ctx.parser.close()]);
      this.emitProgress();
    }
  }

  stats(): CrawlStats {
    return crawlStats(this.ctx);
  }

  progress(): CrawlProgress {
    return crawlProgress(this.ctx);
  }

  private emitProgress(): void {
    this.ctx.options.onProgress?.(this.progress());
  }
}

/** Runs one crawl to its end (or until the signal stops it). */
export function runCrawl(options: CrawlEngineOptions): Promise<CrawlResult> {
  return new CrawlEngine(options).run();
}
