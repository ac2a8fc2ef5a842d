// What the service tells its operators about as it works: a crawl ended, a search answered, an MCP tool call
// answered, a request refused by the rate limit. Each is published once, where it happens, on a diagnostics channel
// of its own, and whoever wants them (`svc serve`'s /metrics) subscribes; nothing else changes where they are
// published, and with no subscriber a publication costs one check. The channels are the process's, so an observer
// hears every app of the process.
import { channel } from 'node:diagnostics_channel';
import type { RateGroup } from './rate-limits.js';
import type { CrawlMode, CrawlStatus } from './types.js';

export interface CrawlEnded {
  project: string;
  mode: CrawlMode;
  status: CrawlStatus;
  /** From its start to its end; null when it never started. */
  seconds: number | null;
  /** Pages it fetched. */
  pages: number;
}

export interface SearchAnswered {
  project: string;
  seconds: number;
  /** false: the search failed (bad input, a store error). */
  ok: boolean;
}

/** How a tool call was answered: a result, an error result, a crash below, or a task / confirmation round instead. */
export type McpCallResult = 'ok' | 'error' | 'internal_error' | 'task' | 'input_required';

export interface McpCallAnswered {
  tool: string;
  result: McpCallResult;
}

export interface RateLimited {
  group: RateGroup;
}

interface Observations {
  crawlEnded: CrawlEnded;
  searchAnswered: SearchAnswered;
  mcpCallAnswered: McpCallAnswered;
  rateLimited: RateLimited;
}

export type ObservationName = keyof Observations;

const channels: { [K in ObservationName]: ReturnType<typeof channel> } = {
  crawlEnded: channel('svc:crawl-ended'),
  searchAnswered: channel('svc:search-answered'),
  mcpCallAnswered: channel('svc:mcp-call-answered'),
  rateLimited: channel('svc:rate-limited'),
};

/** Tells the observers, if any. */
export function observe<K extends ObservationName>(name: K, event: Observations[K]): void {
  const ch = channels[name];
  if (ch.hasSubscribers) ch.publish(event);
}

/** Whether anyone hears `name`: what only an observer needs (a read, say) is skipped otherwise. */
export function isObserved(name: ObservationName): boolean {
  return channels[name].hasSubscribers;
}

/** Hears every `name` from now on; the answer stops it. */
export function onObservation<K extends ObservationName>(
  name: K,
  listener: (event: Observations[K]) => void,
): () => void {
  const ch = channels[name];
  const wrapped = (message: unknown) => listener(message as Observations[K]);
  ch.subscribe(wrapped);
  return () => {
    ch.unsubscribe(wrapped);
  };
}
