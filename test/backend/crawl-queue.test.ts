// The crawl queue against a real database (SQLite, and PostgreSQL where a server is installed) and a loopback site: queued crawls run in order and never conflict, a
// person's crawl still does, claims are atomic, the dead-owner rule leaves waiting crawls alone, live update merges,
// and the scheduler (with an injected clock) queues, skips and catches up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { until } from '../support/wait.js';
import { EmbeddedBackend } from '../../src/backend/embedded.js';
import { mergeQueuedUrls } from '../../src/backend/crawl-runs/request.js';
import { Scheduler } from '../../src/backend/scheduler.js';
import { parseConfig } from '../../src/cli/load-config.js';
import { silentLogger } from '../../src/lib/log.js';
import { BackendError } from '../../src/model/errors.js';
import { crawlEnded, type CrawlRecord } from '../../src/model/types.js';
import {
  claimQueuedCrawl,
  enqueueCrawl,
  failDeadCrawls,
  getCrawl,
  listCrawls,
  sweepDue,
} from '../../src/store/crawls.js';
import { publishPlan } from '../../src/store/crawl-plan.js';
import { openFrontier } from '../../src/store/frontier.js';
import type { ServiceStore } from '../../src/store/service-store.js';
import { html, startSite, type TestSite } from '../support/site.js';
import { DIALECTS, storeKit } from '../support/stores.js';

const PROJECT = 'queue123:eu-north-1';

/** Every page answers after `ms`, so a crawl lasts long enough to overlap with what a test does meanwhile. */
const slow =
  (ms: number, body: string) =>
  async (...args: Parameters<ReturnType<typeof html>>) => {
    await sleep(ms);
    return html(body)(...args);
  };

function backend(store: ServiceStore, site: TestSite, over: Record<string, unknown> = {}): EmbeddedBackend {
  const config = parseConfig({
    project: { public_token: PROJECT },
    targets: [{ host: site.host, scheme: 'http', use_sitemap: false, request_timeout_ms: 2000 }],
    log_level: 'silent',
    ...over,
  });
  return new EmbeddedBackend({ config, store, logger: silentLogger });
}

const ended = (r: CrawlRecord | null) => r && crawlEnded(r.status);

describe.each(DIALECTS)('on %s', (dialect) => {
  const kit = storeKit(dialect);
  afterAll(() => kit.stop());

  describe('the crawl queue', () => {
    let site: TestSite;
    beforeAll(async () => {
      site = await startSite({
        '/': slow(300, '<a href="/a">a</a> <a href="/b">b</a>'),
        '/a': slow(300, 'a'),
        '/b': slow(300, 'b'),
      });
    });
    afterAll(() => site.close());

    it('queued crawls never conflict and run one at a time, oldest first; a person still gets a conflict while one runs', async () => {
      const { store } = await kit.fresh();
      const b = backend(store, site);
      try {
        const person = await b.startCrawl({ mode: 'full' });
        await expect(b.startCrawl({ mode: 'partial' })).rejects.toMatchObject({ code: 'conflict' });
        const q1 = await b.queueCrawl({ mode: 'full' }, 'schedule:full');
        const q2 = await b.queueCrawl({ mode: 'manual', urls: [`${site.origin}/a`] }, 'live_update');
        const q3 = await b.queueCrawl({ mode: 'partial' }, 'schedule:partial');
        for (const [q, trigger] of [
          [q1, 'schedule:full'],
          [q2, 'live_update'],
          [q3, 'schedule:partial'],
        ] as const) {
          expect(q).toMatchObject({ status: 'queued', trigger, startedAt: null });
        }
        // No serving loop yet: nothing claims them, and the person's crawl ends on its own.
        await b.waitForCrawl(person.id);
        expect((await b.getCrawl(q1.id))!.status).toBe('queued');
        b.runUnattended({ queuePollMs: 100 });
        // While the queue runs, a person's crawl gets a conflict, as before.
        await until(
          'the first queued crawl to run',
          async () => (await getCrawl(store.sql, PROJECT, q1.id))?.status === 'running',
        );
        const busy = await b.startCrawl({ mode: 'full' }).catch((e: unknown) => e);
        expect(busy).toBeInstanceOf(BackendError);
        expect((busy as BackendError).message).toMatch(/already running \(crawl \d+, full\)/);
        const recs = await until(
          'all queued crawls to end',
          async () => {
            const r = await Promise.all([q1, q2, q3].map((q) => getCrawl(store.sql, PROJECT, q.id)));
            return r.every(ended) ? (r as CrawlRecord[]) : null;
          },
          30_000,
        );
        expect(recs.map((r) => r.status)).toEqual(['completed', 'completed', 'completed']);
        // In order, never overlapping.
        for (let i = 1; i < recs.length; i++)
          expect(Date.parse(recs[i]!.startedAt!)).toBeGreaterThanOrEqual(Date.parse(recs[i - 1]!.finishedAt!));
        expect(recs.map((r) => r.trigger)).toEqual(['schedule:full', 'live_update', 'schedule:partial']);
      } finally {
        await b.close();
        await store.close();
      }
    }, 60_000);

    it('a queued crawl that nobody has claimed does not block a person, and stopping it means it never runs', async () => {
      const { store } = await kit.fresh();
      const b = backend(store, site);
      try {
        const waiting = await b.queueCrawl({ mode: 'manual', urls: [`${site.origin}/b`] }, 'live_update');
        const person = await b.startCrawl({ mode: 'manual', urls: [`${site.origin}/a`] });
        expect(person.trigger).toBe('request');
        await b.waitForCrawl(person.id);
        const bHits = site.hitCount('/b');
        const heard: CrawlRecord[] = [];
        b.onCrawlEnded((r) => heard.push(r));
        const stopped = await b.stopCrawl(waiting.id);
        // Crawl-ended listeners (webhooks) hear of it as of any crawl that ends.
        expect(heard).toEqual([stopped]);
        expect(stopped).toMatchObject({ id: waiting.id, status: 'stopped', startedAt: null });
        expect(stopped.error).toMatch(/^stopped before it ran: a stop was requested/);
        b.runUnattended({ queuePollMs: 50 });
        await sleep(300);
        expect((await getCrawl(store.sql, PROJECT, waiting.id))!.status).toBe('stopped');
        expect(site.hitCount('/b')).toBe(bHits);
        await expect(b.stopCrawl(waiting.id)).rejects.toMatchObject({ code: 'conflict' });
      } finally {
        await b.close();
        await store.close();
      }
    });

    it('a claim is atomic: of two connections (two owners) on one database, one gets the crawl; the other waits its turn', async () => {
      const { store, reopen } = await kit.fresh();
      const other = await reopen();
      try {
        const a = await enqueueCrawl(store.sql, PROJECT, 'full', undefined, 'schedule:full');
        const b = await enqueueCrawl(store.sql, PROJECT, 'partial', undefined, 'schedule:partial');
        const first = await claimQueuedCrawl(store.sql, PROJECT, { instance: 'one' });
        const second = await claimQueuedCrawl(other.sql, PROJECT, { instance: 'two' });
        expect(first).toMatchObject({ id: a.id, status: 'running' });
        expect(first!.startedAt).not.toBeNull();
        // The second is not taken while the first runs with a live owner.
        expect(second).toBeNull();
        expect((await getCrawl(other.sql, PROJECT, b.id))!.status).toBe('queued');
      } finally {
        await other.close();
        await store.close();
      }
    });

    it('the dead-owner rule fails a claimed crawl whose owner went silent, never one waiting unclaimed', async () => {
      const { store, reopen } = await kit.fresh();
      try {
        const waiting = await enqueueCrawl(store.sql, PROJECT, 'manual', ['http://x.example/'], 'live_update');
        const claimed = await enqueueCrawl(store.sql, PROJECT, 'full', undefined, 'schedule:full');
        await store.sql.run(`UPDATE crawls SET owner_instance = 'gone', heartbeat_at = 1 WHERE id = ?`, [claimed.id]);
        expect(await store.sql.tx((t) => failDeadCrawls(t, Date.now()))).toEqual([claimed.id]);
        expect((await getCrawl(store.sql, PROJECT, waiting.id))!.status).toBe('queued');
        // Opening the file again (what every command does) leaves it waiting too.
        await store.close();
        const again = await reopen({ deadAfterMs: 1 });
        expect(again.recoveredCrawls).toEqual([]);
        expect((await getCrawl(again.sql, PROJECT, waiting.id))!.status).toBe('queued');
        await again.close();
      } finally {
        await store.close();
      }
    });

    it("the sweep's one read says which of its steps has work: a dead owner, a shared crawl without a live lead, an unrecorded end", async () => {
      const { store } = await kit.fresh();
      try {
        const now = Date.now();
        const nothing = { dead: false, leaderless: false, pendingAfter: false };
        // A crawl waiting unclaimed has no owner to die; one recorded at its end leaves nothing to record.
        const waiting = await enqueueCrawl(store.sql, PROJECT, 'manual', ['http://x.example/'], 'live_update');
        expect(await sweepDue(store.sql, PROJECT, now)).toEqual(nothing);
        // Claimed by an owner gone silent: dead, and (frontier with a plan) a shared crawl without a lead.
        await store.sql.run(
          `UPDATE crawls SET status = 'running', owner_instance = 'gone', heartbeat_at = 1 WHERE id = ?`,
          [waiting.id],
        );
        expect(await sweepDue(store.sql, PROJECT, now)).toEqual({ ...nothing, dead: true });
        await openFrontier(store.sql, waiting.id, [{ target: 'x.example', maxPages: 10 }]);
        await publishPlan(store.sql, waiting.id, '{}');
        expect(await sweepDue(store.sql, PROJECT, now)).toEqual({ ...nothing, dead: true, leaderless: true });
        // Its owner beats again: nothing; another project's crawls are not this sweep's.
        await store.sql.run('UPDATE crawls SET heartbeat_at = ? WHERE id = ?', [now, waiting.id]);
        expect(await sweepDue(store.sql, PROJECT, now)).toEqual(nothing);
        expect(await sweepDue(store.sql, 'other123:eu-north-1', 0)).toEqual(nothing);
        // Failed by the rule, its end is not recorded yet: the one step left.
        await store.sql.run('UPDATE crawls SET heartbeat_at = 1 WHERE id = ?', [waiting.id]);
        expect(await store.sql.tx((t) => failDeadCrawls(t, now))).toEqual([waiting.id]);
        expect(await sweepDue(store.sql, PROJECT, now)).toEqual({ ...nothing, pendingAfter: true });
        await store.sql.run('UPDATE crawls SET history_done = 1 WHERE id = ?', [waiting.id]);
        expect(await sweepDue(store.sql, PROJECT, now)).toEqual(nothing);
      } finally {
        await store.close();
      }
    });

    it('live update merges into its crawl while it waits, deduplicated; once claimed, a new one is queued', async () => {
      const { store } = await kit.fresh();
      const b = backend(store, site);
      try {
        const u = (p: string) => `${site.origin}${p}`;
        const one = await b.queueCrawl({ mode: 'manual', urls: [u('/a'), u('/b')] }, 'live_update');
        const two = await b.queueCrawl({ mode: 'manual', urls: [u('/b'), u('/c#frag'), u('/d')] }, 'live_update');
        expect(two.id).toBe(one.id);
        expect(two.urls).toEqual([u('/a'), u('/b'), u('/c'), u('/d')]);
        // A scheduled crawl is never merged into.
        const sched = await b.queueCrawl({ mode: 'full' }, 'schedule:full');
        expect(sched.id).not.toBe(one.id);
        expect((await claimQueuedCrawl(store.sql, PROJECT))!.id).toBe(one.id);
        const three = await b.queueCrawl({ mode: 'manual', urls: [u('/a')] }, 'live_update');
        expect(three.id).toBeGreaterThan(sched.id);
        expect(
          (await listCrawls(store.sql, PROJECT, 10, 0)).filter((c) => c.status === 'queued').map((c) => c.id),
        ).toEqual([three.id, sched.id]);
        await expect(
          b.queueCrawl({ mode: 'manual', urls: ['https://elsewhere.example/x'] }, 'live_update'),
        ).rejects.toThrow(/urls\[0\]: host elsewhere\.example is not a configured target/);
      } finally {
        await b.close();
        await store.close();
      }
    });

    it('more URLs than one manual crawl may list make the waiting crawl a full one', () => {
      expect(mergeQueuedUrls({ mode: 'manual', urls: ['a', 'b'] }, ['b', 'c'], 3)).toEqual({
        mode: 'manual',
        urls: ['a', 'b', 'c'],
      });
      expect(mergeQueuedUrls({ mode: 'manual', urls: ['a', 'b'] }, ['c', 'd'], 3)).toEqual({ mode: 'full' });
      expect(mergeQueuedUrls({ mode: 'full' }, ['a'], 3)).toEqual({ mode: 'full' });
    });
  });

  describe('the scheduler, with an injected clock and a real database', () => {
    const EVERY_10_MIN = '*/10 * * * *';
    const t0 = Date.parse('2026-03-01T10:00:00Z');

    it('queues a due run, skips one that falls while a crawl is queued, and after a restart runs missed ones once', async () => {
      const { store } = await kit.fresh();
      let now = t0;
      const make = () =>
        new Scheduler({
          sql: store.sql,
          project: PROJECT,
          schedule: { full: EVERY_10_MIN, partial: null },
          logger: silentLogger,
          now: () => now,
        });
      const queued = async () => (await listCrawls(store.sql, PROJECT, 100, 0)).filter((c) => c.status === 'queued');
      try {
        const s = make();
        expect(await s.tick()).toEqual([{ action: 'init' }]);
        now = t0 + 5 * 60_000;
        expect((await s.tick())[0]!.action).toBe('wait');
        now = t0 + 10 * 60_000 + 10;
        expect((await s.tick())[0]).toMatchObject({ action: 'run', missed: false });
        expect(await queued()).toHaveLength(1);
        expect((await queued())[0]).toMatchObject({ mode: 'full', trigger: 'schedule:full' });
        // The next run falls while that crawl is still queued: skipped, nothing more queued.
        now = t0 + 20 * 60_000 + 10;
        expect((await s.tick())[0]).toMatchObject({ action: 'skip' });
        expect(await queued()).toHaveLength(1);
        // It runs and ends; the server goes down for hours; a new one (a restart) runs the missed runs once.
        await store.sql.run(`UPDATE crawls SET status = 'completed', finished_at = ? WHERE status = 'queued'`, [
          new Date(now).toISOString(),
        ]);
        now = t0 + 5 * 3_600_000;
        const restarted = make();
        expect((await restarted.tick())[0]).toMatchObject({ action: 'run', missed: true });
        expect((await restarted.tick())[0]!.action).toBe('wait');
        expect(await queued()).toHaveLength(1);
        expect(await listCrawls(store.sql, PROJECT, 100, 0)).toHaveLength(2);
      } finally {
        await store.close();
      }
    });

    it('a run missed while no server was up is queued at start even behind a pending crawl; two servers queue a run once', async () => {
      const { store, reopen } = await kit.fresh();
      const other = await reopen();
      let now = t0;
      const make = (s: ServiceStore) =>
        new Scheduler({
          sql: s.sql,
          project: PROJECT,
          schedule: { full: EVERY_10_MIN },
          logger: silentLogger,
          now: () => now,
        });
      try {
        await make(store).tick();
        // A crawl left queued (say, by a live update) while the server was down through a run.
        await enqueueCrawl(store.sql, PROJECT, 'manual', ['http://x.example/'], 'live_update');
        now = t0 + 25 * 60_000;
        const [one, two] = [make(store), make(other)];
        expect((await one.tick())[0]).toMatchObject({ action: 'run', missed: true });
        // The other server starting at the same moment finds it handled.
        expect((await two.tick())[0]!.action).toBe('wait');
        expect(
          (await listCrawls(store.sql, PROJECT, 100, 0)).filter((c) => c.trigger === 'schedule:full'),
        ).toHaveLength(1);
        // Once started, a run that falls while crawls are pending is skipped.
        now = t0 + 30 * 60_000 + 10;
        expect((await one.tick())[0]!.action).toBe('skip');
        expect((await two.tick())[0]!.action).toBe('wait');
      } finally {
        await other.close();
        await store.close();
      }
    });

    it('GET …/schedule data: the next run after now and the last run, from the database', async () => {
      const { store } = await kit.fresh();
      const site = await startSite({ '/': html('x') });
      const b = backend(store, site, { schedule: { full: '0 3 * * *' } });
      try {
        const info = await b.schedule();
        expect(info.partial).toBeNull();
        expect(info.full).toMatchObject({ cron: '0 3 * * *', lastRun: null });
        expect(Date.parse(info.full!.nextRun!)).toBeGreaterThan(Date.now());
      } finally {
        await b.close();
        await store.close();
        await site.close();
      }
    });
  });
});
