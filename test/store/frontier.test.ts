// The shared frontier of a crawl, on SQLite (a real file) and PostgreSQL (a throw-away cluster): workers on separate
// connections claim, finish and add URLs at once; each URL is new for one adder, handed to one worker, done once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addUrls,
  claimUrls,
  dropFrontier,
  finishFrontier,
  frontierStatus,
  frontierUrls,
  markDone,
  openFrontier,
  releaseClaims,
  renewClaims,
} from '../../src/store/frontier.js';
import type { Sql } from '../../src/store/sql.js';
import { Store } from '../../src/store/sqlite/store.js';
import { sharedDbs, sqliteFile, workerProcesses } from '../support/shared-db.js';

const T = 'site.test';
const url = (i: number) => `http://${T}/p/${i}`;

/** A worker's loop: claim a few, mark them done, until nothing is left; then try to finish the frontier. */
async function drain(
  sql: Sql,
  crawlId: number,
  worker: string,
  onClaim?: (u: string) => Promise<void>,
): Promise<{ got: string[]; finished: boolean }> {
  const got: string[] = [];
  for (;;) {
    const claims = await claimUrls(sql, { crawlId, target: T, worker, n: 5, leaseMs: 60_000 });
    if (!claims.length) {
      const st = await frontierStatus(sql, crawlId);
      if (st.idle) return { got, finished: await finishFrontier(sql, crawlId, worker) };
      // Another worker still holds claims that may add URLs.
      await new Promise((r) => setTimeout(r, 2));
      continue;
    }
    // The fetches: other workers go on meanwhile.
    await new Promise((r) => setImmediate(r));
    for (const c of claims) {
      got.push(c.url);
      await onClaim?.(c.url);
    }
    const { refused } = await markDone(sql, { crawlId, worker, ids: claims.map((c) => c.id) });
    expect(refused).toEqual([]);
  }
}

for (const db of sharedDbs()) {
  describe.skipIf(db.skip)(`shared frontier on ${db.name}`, () => {
    beforeAll(() => db.setup());
    afterAll(() => db.teardown());

    it(`lets ${db.claimers} claimers on separate connections take every URL once, never the same one twice`, async () => {
      const conns = await db.connections(db.claimers);
      await openFrontier(conns[0]!, 1, [{ target: T, maxPages: 10_000 }]);
      const all = Array.from({ length: 240 }, (_, i) => url(i));
      expect(
        (
          await addUrls(
            conns[0]!,
            1,
            all.map((u) => ({ url: u, target: T })),
          )
        ).added,
      ).toEqual(all);
      const results = await Promise.all(conns.map((c, i) => drain(c, 1, `w${i}`)));
      const got = results.flatMap((r) => r.got);
      expect(got.length).toBe(all.length);
      expect(new Set(got).size).toBe(all.length);
      // Every worker got a share: they ran side by side.
      for (const r of results) expect(r.got.length).toBeGreaterThan(0);
      expect(results.filter((r) => r.finished)).toHaveLength(1);
      const st = await frontierStatus(conns[1]!, 1);
      expect(st).toMatchObject({ pending: 0, claimed: 0, done: 240, cut: 0, idle: true });
      expect(st.targets[T]).toMatchObject({ handed: 240, done: 240 });
    });

    it('makes a URL added by several workers at once new for exactly one of them', async () => {
      const conns = await db.connections(db.claimers);
      await openFrontier(conns[0]!, 2, [{ target: T, maxPages: 10_000 }]);
      const all = Array.from({ length: 150 }, (_, i) => url(i));
      // Each adder adds every URL, in its own order and batches.
      const adds = conns.map(async (c, k) => {
        const mine = [...all].sort(() => Math.random() - 0.5);
        const added: string[] = [];
        for (let i = 0; i < mine.length; i += 7 + k) {
          added.push(
            ...(
              await addUrls(
                c,
                2,
                mine.slice(i, i + 7 + k).map((u) => ({ url: u, target: T })),
              )
            ).added,
          );
        }
        return added;
      });
      const added = (await Promise.all(adds)).flat();
      expect(added.length).toBe(all.length);
      expect(new Set(added)).toEqual(new Set(all));
      // Twice in one call counts once.
      expect(
        await addUrls(conns[0]!, 2, [
          { url: 'http://site.test/twice', target: T },
          { url: 'http://site.test/twice', target: T },
        ]),
      ).toEqual({
        added: ['http://site.test/twice'],
        cut: [],
        closed: false,
      });
      expect((await frontierStatus(conns[0]!, 2)).pending).toBe(151);
    });

    it('crawls a site together: links found by several workers are fetched once, and one worker sees the end', async () => {
      const conns = await db.connections(db.claimers);
      const N = 120;
      await openFrontier(conns[0]!, 3, [{ target: T, maxPages: 10_000 }]);
      const news: string[][] = conns.map(() => []);
      await addUrls(conns[0]!, 3, [{ url: url(0), target: T }]);
      // Page i links to the next three pages, so most links are found by more than one worker.
      const results = await Promise.all(
        conns.map((c, k) =>
          drain(c, 3, `w${k}`, async (u) => {
            const i = Number(u.split('/').pop());
            const links = [1, 2, 3]
              .map((d) => i + d)
              .filter((j) => j < N)
              .map((j) => ({ url: url(j), target: T }));
            news[k]!.push(...(await addUrls(c, 3, links)).added);
          }),
        ),
      );
      const fetched = results.flatMap((r) => r.got).sort();
      expect(fetched).toEqual(Array.from({ length: N }, (_, i) => url(i)).sort());
      expect(news.flat().length).toBe(N - 1);
      expect(results.filter((r) => r.finished)).toHaveLength(1);
    });

    it('hands a claim whose lease ran out to another worker; the old holder marking it done changes nothing', async () => {
      const [a, b] = await db.connections(2);
      const t0 = 1_000_000;
      await openFrontier(a!, 4, [{ target: T, maxPages: 10_000 }]);
      await addUrls(
        a!,
        4,
        [0, 1, 2].map((i) => ({ url: url(i), target: T })),
      );
      const mine = await claimUrls(a!, { crawlId: 4, target: T, worker: 'A', n: 2, leaseMs: 50, now: t0 });
      expect(mine.map((c) => [c.url, c.attempts])).toEqual([
        [url(0), 1],
        [url(1), 1],
      ]);
      // Renewed at t0 + 40 (the heartbeat), A's claims outlive t0 + 60.
      expect(await renewClaims(a!, { crawlId: 4, worker: 'A', leaseMs: 50, now: t0 + 40 })).toBe(2);
      expect(
        (await claimUrls(b!, { crawlId: 4, target: T, worker: 'B', n: 5, leaseMs: 50, now: t0 + 60 })).map(
          (c) => c.url,
        ),
      ).toEqual([url(2)]);
      // A stops beating: after its lease, B takes its URLs again.
      expect((await frontierStatus(b!, 4, t0 + 95)).expired).toBe(2);
      const again = await claimUrls(b!, { crawlId: 4, target: T, worker: 'B', n: 5, leaseMs: 50, now: t0 + 95 });
      expect(again.map((c) => [c.url, c.attempts])).toEqual([
        [url(0), 2],
        [url(1), 2],
      ]);
      expect(await markDone(a!, { crawlId: 4, worker: 'A', ids: mine.map((c) => c.id) })).toEqual({
        done: [],
        refused: mine.map((c) => c.id),
      });
      expect((await frontierStatus(b!, 4, t0 + 96)).claimed).toBe(3);
      expect((await markDone(b!, { crawlId: 4, worker: 'B', ids: again.map((c) => c.id) })).done).toEqual(
        again.map((c) => c.id),
      );
      // Done is done: a second mark is refused.
      expect((await markDone(b!, { crawlId: 4, worker: 'B', ids: [again[0]!.id] })).refused).toEqual([again[0]!.id]);
      // A worker known to be gone gives its claims back at once.
      expect(await releaseClaims(a!, { crawlId: 4, worker: 'B' })).toBe(1);
      const last = await claimUrls(a!, { crawlId: 4, target: T, worker: 'A', n: 5, leaseMs: 50, now: t0 + 97 });
      expect(last.map((c) => c.url)).toEqual([url(2)]);
      // A lease that ran out but was not taken by another is still its holder's to finish.
      expect((await markDone(a!, { crawlId: 4, worker: 'A', ids: [last[0]!.id] })).done).toEqual([last[0]!.id]);
      expect(await frontierStatus(a!, 4, t0 + 500)).toMatchObject({ pending: 0, claimed: 0, done: 3, idle: true });
      expect(await finishFrontier(a!, 4, 'A')).toBe(true);
    });

    it('sees the frontier finished once: not while a claim (even an expired one) is out, then by one caller only', async () => {
      const conns = await db.connections(db.claimers);
      await openFrontier(conns[0]!, 5, [{ target: T, maxPages: 10 }]);
      await addUrls(conns[0]!, 5, [{ url: url(0), target: T }]);
      expect(await finishFrontier(conns[0]!, 5, 'x')).toBe(false);
      const [c] = await claimUrls(conns[0]!, { crawlId: 5, target: T, worker: 'x', n: 1, leaseMs: 1, now: 1 });
      expect(await finishFrontier(conns[1]!, 5, 'y')).toBe(false);
      await markDone(conns[0]!, { crawlId: 5, worker: 'x', ids: [c!.id] });
      const ends = await Promise.all(
        conns.flatMap((s, i) => [finishFrontier(s, 5, `w${i}`), finishFrontier(s, 5, `w${i}`)]),
      );
      expect(ends.filter(Boolean)).toHaveLength(1);
      const st = await frontierStatus(conns[1]!, 5);
      expect(st.finishedBy).toBe(`w${Math.floor(ends.indexOf(true) / 2)}`);
      // Closed: nothing is added or handed out after.
      expect(await addUrls(conns[1]!, 5, [{ url: url(9), target: T }])).toEqual({ added: [], cut: [], closed: true });
      expect(await claimUrls(conns[1]!, { crawlId: 5, target: T, worker: 'y', n: 1, leaseMs: 1000 })).toEqual([]);
      await dropFrontier(conns[0]!, 5);
      await expect(frontierStatus(conns[0]!, 5)).rejects.toThrow('crawl 5 has no frontier: openFrontier first');
    });

    it('hands out at most max_pages URLs of a target, among all workers; the rest are cut', async () => {
      const conns = await db.connections(db.claimers);
      await openFrontier(conns[0]!, 6, [
        { target: T, maxPages: 5 },
        { target: 'other.test', maxPages: 100 },
      ]);
      await addUrls(
        conns[0]!,
        6,
        Array.from({ length: 12 }, (_, i) => ({ url: url(i), target: T })),
      );
      await addUrls(conns[0]!, 6, [{ url: 'http://other.test/', target: 'other.test' }]);
      // All claimers at once, one URL each time, leases short enough to run out.
      const t0 = 5_000_000;
      const claimed = (
        await Promise.all(
          conns.map((c, i) =>
            Promise.all(
              [1, 2, 3].map(() => claimUrls(c, { crawlId: 6, target: T, worker: `w${i}`, n: 1, leaseMs: 10, now: t0 })),
            ),
          ),
        )
      ).flat(2);
      expect(claimed.map((c) => c.url).sort()).toEqual([0, 1, 2, 3, 4].map(url).sort());
      let st = await frontierStatus(conns[0]!, 6, t0);
      expect(st.targets[T]).toMatchObject({ maxPages: 5, handed: 5, claimed: 5, pending: 0, cut: 7 });
      expect(st.targets['other.test']).toMatchObject({ pending: 1, cut: 0 });
      // A URL found later is cut at once; taking an expired claim again does not count against the cap.
      expect(
        await addUrls(conns[1]!, 6, [
          { url: url(50), target: T },
          { url: url(0), target: T },
        ]),
      ).toEqual({ added: [], cut: [url(50)], closed: false });
      const again = await claimUrls(conns[1]!, {
        crawlId: 6,
        target: T,
        worker: 'late',
        n: 10,
        leaseMs: 1000,
        now: t0 + 20,
      });
      expect(again.length).toBe(5);
      st = await frontierStatus(conns[0]!, 6, t0 + 20);
      expect(st.targets[T]).toMatchObject({ handed: 5, claimed: 5, cut: 8 });
      expect((await frontierUrls(conns[0]!, 6, 'cut', { target: T })).map((r) => r.url)).toEqual(
        [5, 6, 7, 8, 9, 10, 11, 50].map(url),
      );
      expect(
        (
          await frontierUrls(conns[0]!, 6, 'cut', {
            limit: 2,
            afterId: (await frontierUrls(conns[0]!, 6, 'cut', { limit: 1 }))[0]!.id,
          })
        ).map((r) => r.url),
      ).toEqual([url(6), url(7)]);
      await expect(addUrls(conns[0]!, 6, [{ url: 'http://nowhere.test/', target: 'nowhere.test' }])).rejects.toThrow(
        /target nowhere.test is not in the frontier of crawl 6/,
      );
    });
  });
}

describe('shared frontier on one SQLite file across processes', () => {
  it('lets 3 worker processes take every URL once, never the same one twice, and one of them finish', async () => {
    const db = sqliteFile();
    const store = new Store(db, { migrate: false });
    const all = Array.from({ length: 600 }, (_, i) => url(i));
    try {
      await openFrontier(store.sql, 1, [{ target: T, maxPages: 10_000 }]);
      await addUrls(
        store.sql,
        1,
        all.map((u) => ({ url: u, target: T })),
      );
    } finally {
      store.close();
    }
    const results = await workerProcesses<{ got: string[]; finished: boolean }>(
      [0, 1, 2].map((i) => ({ kind: 'drain', db, crawlId: 1, target: T, worker: `p${i}`, n: 3 })),
    );
    const got = results.flatMap((r) => r.got);
    expect(got.length).toBe(all.length);
    expect(new Set(got).size).toBe(all.length);
    expect(results.filter((r) => r.got.length > 0).length).toBeGreaterThan(1);
    expect(results.filter((r) => r.finished)).toHaveLength(1);
  });
});
