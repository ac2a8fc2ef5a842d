// A crawl several `svc worker` processes run together, on the store's shared frontier and host leases: what the
// crawler's SharedCrawl asks, answered in the database with this worker's name and leases.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { HostLimits } from '../model/host-pace.js';
import {
  CHECK_LANE,
  type SharedClaim,
  type SharedCrawl,
  type SharedHosts,
  type SharedPlan,
  type SharedUrl,
  type WorkerReport,
} from '../model/shared-crawl.js';
import {
  addUrls,
  claimUrls,
  closeFrontier,
  dropFrontier,
  finishFrontier,
  frontierFinished,
  frontierHas,
  frontierUrls,
  markDone,
  openFrontier,
  releaseClaims,
  releaseExpired,
  renewClaims,
  takeUrl,
} from '../store/frontier.js';
import { publishPlan, reportWorker, sharedOutcomeCounts, workerReports } from '../store/crawl-plan.js';
import { effectiveLimits } from '../model/host-pace.js';
import {
  acquireHostSlot,
  dropHostLeases,
  hostState,
  pauseHost,
  releaseHostSlot,
  renewHostSlots,
} from '../store/host-leases.js';
import { beatCrawl } from '../store/crawls.js';
import { crawlKeptCounts, crawlPageCounts } from '../store/pages.js';
import { again, orIfUnknown, type Sql } from '../store/sql.js';

/**
 * How long a claim or a host slot stays a worker's without its heartbeat: a worker that dies gives its URLs and
 * slots back after this.
 */
export const SHARED_LEASE_MS = 20_000;

/** A name for this process in the shared frontier and host slots (its claims and leases): unique per process. */
export function workerName(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

export function sharedCrawl(
  sql: Sql,
  o: { crawlId: number; worker: string; role: 'lead' | 'join'; plan?: SharedPlan | null; leaseMs?: number },
): SharedCrawl {
  const { crawlId, worker } = o;
  const leaseMs = o.leaseMs ?? SHARED_LEASE_MS;
  // The lead drops the frontier once the crawl's end is recorded: to a worker still sharing, that is its end too.
  const whileOpen = async <T>(fn: () => Promise<T>, ended: T): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      if (await frontierFinished(sql, crawlId).catch(() => false)) return ended;
      throw err;
    }
  };
  const report = (r: WorkerReport) => again(() => reportWorker(sql, { crawlId, worker, report: JSON.stringify(r) }));
  const hosts: SharedHosts = {
    async acquire(host: string, limits: HostLimits) {
      // Unknown: a slot written meanwhile runs out with its lease; ask again shortly.
      const a = await orIfUnknown(
        () => acquireHostSlot(sql, { crawlId, host, worker, limits, leaseMs }),
        () => ({ kind: 'wait' as const, waitMs: 100, why: 'full' as const }),
      );
      return a.kind === 'slot'
        ? { kind: 'slot', token: a.slot.token, startAt: a.slot.startAt }
        : { kind: 'wait', waitMs: a.waitMs };
    },
    async release(token: string) {
      await again(() => releaseHostSlot(sql, { token }));
    },
    async pause(host: string, limits: HostLimits, waitMs: number) {
      await again(() => pauseHost(sql, { crawlId, host, limits, waitMs }));
    },
    async pace(host: string, limits: HostLimits) {
      const { pace } = await hostState(sql, crawlId, host);
      return { pausedUntil: pace.pausedUntil, concurrency: effectiveLimits(limits, pace).concurrency };
    },
  };
  let role = o.role;
  return {
    get role() {
      return role;
    },
    promote() {
      role = 'lead';
    },
    demote() {
      role = 'join';
    },
    worker,
    plan: o.plan ?? null,
    hosts,
    // Four beats to a lease: a worker that is alive never lets one run out.
    heartbeatMs: Math.min(2_000, Math.max(50, Math.floor(leaseMs / 4))),
    open: (targets) => openFrontier(sql, crawlId, targets),
    publish: (plan) => publishPlan(sql, crawlId, JSON.stringify(plan)),
    async add(urls: readonly SharedUrl[]) {
      const r = await whileOpen(() => again(() => addUrls(sql, crawlId, urls)), { added: [], cut: [], closed: true });
      return { added: r.added, cut: r.cut };
    },
    has: (url) => whileOpen(() => frontierHas(sql, crawlId, url), false),
    // Unknown: fetched here (at worst twice, stored once), never by nobody.
    take: (url, target) =>
      whileOpen(
        () =>
          orIfUnknown(
            () => takeUrl(sql, { crawlId, url, target, worker }),
            () => true,
          ),
        false,
      ),
    async claim(target: string, n: number): Promise<SharedClaim[] | null> {
      const claims = await whileOpen(
        // Unknown: claims written meanwhile go back when their lease runs out.
        () =>
          orIfUnknown(
            () => claimUrls(sql, { crawlId, target, worker, n, leaseMs, sweepExpired: false }),
            () => [],
          ),
        null,
      );
      if (claims === null || claims.length) return claims;
      // Nothing pending: finished for good, or only for now.
      return (await frontierFinished(sql, crawlId)) ? null : [];
    },
    async done(ids, r) {
      await report(r);
      // Ids refused were taken by another worker after this one's lease ran out: it fetches them again.
      await again(() => markDone(sql, { crawlId, worker, ids }));
    },
    async heartbeat(r) {
      if (role === 'lead') await beatCrawl(sql, crawlId);
      await renewClaims(sql, { crawlId, worker, leaseMs });
      // A dead worker's claims go back here (not with every claim: that would cost each claim a scan).
      await releaseExpired(sql, crawlId);
      await renewHostSlots(sql, { worker, leaseMs });
      await report(r);
    },
    // Unknown: not finished yet as far as this worker knows; the next try (or the frontier's state) tells.
    finish: () =>
      orIfUnknown(
        () => finishFrontier(sql, crawlId, worker),
        () => false,
      ),
    close: () => again(() => closeFrontier(sql, crawlId, worker)),
    async release() {
      await again(() => releaseClaims(sql, { crawlId, worker }));
    },
    async reports() {
      return (await workerReports(sql, crawlId, worker)).map((w) => JSON.parse(w.report) as WorkerReport);
    },
    storedPages: () => crawlPageCounts(sql, crawlId),
    storedKept: () => crawlKeptCounts(sql, crawlId),
    storedOutcomes: (prefix) => sharedOutcomeCounts(sql, crawlId, { lane: CHECK_LANE, prefix }),
    leftovers: (state, afterId) => frontierUrls(sql, crawlId, state, { afterId, limit: 1000 }),
  };
}

/** Forgets a shared crawl's frontier, reports and host state once its end is recorded. */
export async function dropShared(sql: Sql, crawlId: number): Promise<void> {
  await dropFrontier(sql, crawlId);
  await dropHostLeases(sql, crawlId);
}
