// The pure decisions of crawl tasks: the status a crawl gives its task, the one line that goes with it, when a task
// may go, and the form of its id.
import { describe, expect, it } from 'vitest';
import {
  crawlTaskExpiry,
  crawlTaskStatus,
  crawlTaskStatusMessage,
  isCrawlTaskId,
  newCrawlTaskId,
} from '../../src/backend/crawl-tasks.js';
import type { CrawlRecord, CrawlStatus } from '../../src/model/types.js';

const crawl = (status: CrawlStatus, over: Partial<CrawlRecord> = {}): CrawlRecord => ({
  id: 7,
  mode: 'full',
  status,
  startedAt: '2026-11-25T10:00:00.000Z',
  finishedAt: ['completed', 'stopped', 'failed'].includes(status) ? '2026-11-25T10:05:00.000Z' : null,
  stats: { pages: 12, links: 40, errors: 3 },
  ...over,
});

describe('crawl task status', () => {
  it('follows the crawl: queued and running work, completed completes, stopped and failed fail, a gone crawl failed', () => {
    expect(crawlTaskStatus(crawl('queued'), false)).toBe('working');
    expect(crawlTaskStatus(crawl('running'), false)).toBe('working');
    expect(crawlTaskStatus(crawl('completed'), false)).toBe('completed');
    expect(crawlTaskStatus(crawl('stopped'), false)).toBe('failed');
    expect(crawlTaskStatus(crawl('failed'), false)).toBe('failed');
    expect(crawlTaskStatus(null, false)).toBe('failed');
  });

  it('an accepted cancel is final, whatever the crawl did after it', () => {
    for (const s of ['running', 'stopped', 'completed'] as const)
      expect(crawlTaskStatus(crawl(s), true)).toBe('cancelled');
  });

  it('says the counts while working and how it ended after', () => {
    expect(crawlTaskStatusMessage(7, crawl('running'), 'working')).toBe(
      'crawl 7 is running: 12 pages, 40 links (3 broken) so far',
    );
    expect(crawlTaskStatusMessage(7, crawl('queued'), 'working')).toBe('crawl 7 is queued');
    expect(crawlTaskStatusMessage(7, crawl('completed'), 'completed')).toBe(
      'crawl 7 completed: 12 pages, 40 links (3 broken)',
    );
    expect(crawlTaskStatusMessage(7, crawl('failed', { error: 'disk full' }), 'failed')).toBe(
      'crawl 7 failed after 12 pages, 40 links (3 broken): disk full',
    );
    expect(crawlTaskStatusMessage(7, crawl('stopped', { error: 'server stopping' }), 'failed')).toBe(
      'crawl 7 was stopped after 12 pages, 40 links (3 broken): server stopping',
    );
    expect(crawlTaskStatusMessage(7, crawl('running'), 'cancelled')).toBe(
      'cancelled: crawl 7 is stopping after 12 pages, 40 links (3 broken)',
    );
    expect(crawlTaskStatusMessage(7, crawl('stopped'), 'cancelled')).toBe(
      'cancelled: crawl 7 ended (stopped) after 12 pages, 40 links (3 broken)',
    );
    expect(crawlTaskStatusMessage(7, null, 'failed')).toBe('crawl 7 no longer exists');
  });
});

describe('crawl task expiry', () => {
  it('none while the crawl runs; its end + ttl once it ended; now + ttl when the crawl is gone', () => {
    expect(crawlTaskExpiry(crawl('running'), 1000, 0)).toBeNull();
    expect(crawlTaskExpiry(crawl('queued'), 1000, 0)).toBeNull();
    expect(crawlTaskExpiry(crawl('completed'), 60_000, 0)).toBe('2026-11-25T10:06:00.000Z');
    expect(crawlTaskExpiry(null, 60_000, Date.parse('2026-11-25T12:00:00.000Z'))).toBe('2026-11-25T12:01:00.000Z');
  });
});

describe('crawl task ids', () => {
  it('are 22 URL-safe characters, different each time; nothing else passes as one', () => {
    const a = newCrawlTaskId();
    expect(a).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(newCrawlTaskId()).not.toBe(a);
    expect(isCrawlTaskId(a)).toBe(true);
    for (const bad of ['', 'x', `${a}a`, `${a.slice(0, 21)}/`, 42, null]) expect(isCrawlTaskId(bad)).toBe(false);
  });
});
