// notifications/progress from an ability's progress: throttled while pages move, kept alive while they do not,
// and always growing, as the protocol asks.
import type { ServerNotification } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { PROGRESS_KEEPALIVE_MS, progressNotifier } from '../../src/tools/index.js';

describe('progressNotifier', () => {
  it('sends pages done with no total when none is known, throttles moves, keeps alive with a growing value', async () => {
    const sent: ServerNotification[] = [];
    let t = 0;
    const notify = progressNotifier(
      'tok',
      async (n) => void sent.push(n),
      () => t,
    );
    notify({ done: 0, total: null, queued: 5, message: 'a' }); // first: sent
    t = 100;
    notify({ done: 1, total: null, queued: 5, message: 'b' }); // moved, but within 250 ms: dropped
    t = 300;
    notify({ done: 2, total: null, queued: 4, message: 'c' }); // moved: sent
    t = 800;
    notify({ done: 2, total: null, queued: 4, message: 'd' }); // still: within the keep-alive: dropped
    t = 300 + PROGRESS_KEEPALIVE_MS;
    notify({ done: 2, total: null, queued: 3, message: 'e' }); // still, keep-alive due: sent, a little higher
    t += 300;
    notify({ done: 3, total: null, queued: 0, message: 'f' });
    const params = sent.map(
      (n) => n.params as { progressToken: string; progress: number; total: number; message: string },
    );
    expect(params.map((p) => p.message)).toEqual(['a', 'c', 'e', 'f']);
    expect(params.map((p) => p.progress)).toEqual([0, 2, 2.001, 3]);
    // A crawl whose size is not known says no total (no "102 of 90").
    expect(params.every((p) => !('total' in p))).toBe(true);
    expect(
      sent.every(
        (n) => n.method === 'notifications/progress' && (n.params as { progressToken: string }).progressToken === 'tok',
      ),
    ).toBe(true);
  });

  it('with a known total, progress never passes it, not even by a keep-alive', async () => {
    const sent: ServerNotification[] = [];
    let t = 0;
    const notify = progressNotifier(
      'tok',
      async (n) => void sent.push(n),
      () => t,
    );
    notify({ done: 1, total: 2, queued: 1, message: 'a' });
    t += 300;
    notify({ done: 5, total: 2, queued: 0, message: 'b' }); // redirects followed: more fetches than URLs
    t += PROGRESS_KEEPALIVE_MS;
    notify({ done: 5, total: 2, queued: 0, message: 'c' }); // a keep-alive would pass the total: not sent
    const params = sent.map((n) => n.params as { progress: number; total: number });
    expect(params).toEqual([
      expect.objectContaining({ progress: 1, total: 2 }),
      expect.objectContaining({ progress: 2, total: 2 }),
    ]);
  });
});
