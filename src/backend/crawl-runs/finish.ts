// How a crawl finishes — the final status and error its record gets — decided from what the engine answered and
// why it was stopped: pure, so the rule is read (and tested) apart from the run that applies it.
import type { CrawlResult } from '../../crawler/engine/index.js';
import type { CrawlMode, CrawlStatus } from '../../model/types.js';

/** Why a crawl was stopped, as its record's error says. */
export const STOP_REASONS = {
  requested: 'stopped: a stop was requested (svc crawl stop, or POST …/crawls/<id>/stop)',
  shutdown: 'stopped: the process running it shut down',
  interrupt: 'stopped: interrupted (Ctrl-C / SIGINT)',
  terminate: 'stopped: terminated (SIGTERM)',
  clientClosed: 'stopped: the MCP stdio client closed (the crawl runs inside `svc mcp`)',
  takenOver: 'left: another process has taken the lead of this shared crawl over',
} as const;

/** A crawl's final status and the error its record shows. */
export interface CrawlFinish {
  status: CrawlStatus;
  error?: string;
}

/** How a crawl finishes: stopped by a signal; failed when every target of a full crawl was unreachable; else completed. */
export function crawlFinish(mode: CrawlMode, result: CrawlResult, signal: AbortSignal): CrawlFinish {
  if (result.stopped)
    return { status: 'stopped', error: typeof signal.reason === 'string' ? signal.reason : 'stopped before the end' };
  const unreachable = result.targets.filter((t) => t.unreachable);
  const lines = unreachable.map((t) => `${t.host} unreachable: ${t.error}`).join('; ');
  if (mode === 'full' && unreachable.length && unreachable.length === result.targets.length)
    return { status: 'failed', error: lines };
  return { status: 'completed', ...(lines ? { error: lines } : {}) };
}
