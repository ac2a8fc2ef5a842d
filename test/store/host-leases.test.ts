// Politeness towards a host held across workers, on SQLite (a real file) and PostgreSQL (a throw-away cluster):
// slot tokens under leases, request starts spaced, a pause for everyone. Counted with real timers, kept small.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  acquireHostSlot,
  dropHostLeases,
  hostState,
  pauseHost,
  releaseHostSlot,
  renewHostSlots,
} from '../../src/store/host-leases.js';
import type { HostLimits } from '../../src/model/host-pace.js';
import type { Sql } from '../../src/store/sql.js';
import { sharedDbs, sqliteFile, workerProcesses } from '../support/shared-db.js';

const H = 'site.test';

/** The most intervals [start, end) that overlap at any moment. */
function maxOverlap(held: readonly (readonly [number, number])[]): number {
  const events = held.flatMap(([s, e]) => [
    [s, 1],
    [e, -1],
  ]);
  // At one instant an end comes before a start: the recorded interval lies inside the slot's real holding.
  events.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
  let now = 0;
  let max = 0;
  for (const [, d] of events) max = Math.max(max, (now += d!));
  return max;
}

/** One acquirer: `requests` requests to H, each holding its slot holdMs; records when it held one. */
async function requester(
  sql: Sql,
  worker: string,
  limits: HostLimits,
  requests: number,
  holdMs: number,
  log: { held: [number, number][]; startAts: number[]; started: [number, number][] },
) {
  for (let i = 0; i < requests; ) {
    const a = await acquireHostSlot(sql, { crawlId: 1, host: H, worker, limits, leaseMs: 10_000 });
    if (a.kind === 'wait') {
      await sleep(a.waitMs);
      continue;
    }
    await sleep(Math.max(0, a.slot.startAt - Date.now()));
    const start = Date.now();
    log.startAts.push(a.slot.startAt);
    log.started.push([a.slot.startAt, start]);
    await sleep(holdMs);
    log.held.push([start, Date.now()]);
    expect(await releaseHostSlot(sql, a.slot)).toBe(true);
    i++;
  }
}

for (const db of sharedDbs()) {
  describe.skipIf(db.skip)(`host leases on ${db.name}`, () => {
    beforeAll(() => db.setup());
    afterAll(() => db.teardown());

    it('lets 8 acquirers on separate connections hold at most concurrency (2) slots at once', async () => {
      const conns = await db.connections(db.claimers);
      const log = { held: [] as [number, number][], startAts: [] as number[], started: [] as [number, number][] };
      const limits = { concurrency: 2, delayMs: 0 };
      await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          requester(conns[i % conns.length]!, `w${i % conns.length}`, limits, 3, 12, log),
        ),
      );
      expect(log.held).toHaveLength(24);
      expect(maxOverlap(log.held)).toBe(2);
      expect((await hostState(conns[0]!, 1, H)).live).toBe(0);
    });

    it('spaces request starts by delayMs among all workers', async () => {
      const conns = await db.connections(db.claimers);
      const log = { held: [] as [number, number][], startAts: [] as number[], started: [] as [number, number][] };
      const limits = { concurrency: 4, delayMs: 30 };
      await Promise.all(
        Array.from({ length: 4 }, (_, i) => requester(conns[i % conns.length]!, `w${i}`, limits, 2, 1, log)),
      );
      const starts = [...log.startAts].sort((a, b) => a - b);
      expect(starts).toHaveLength(8);
      for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(30);
      // No request started before its time (a timer may fire a millisecond early).
      for (const [at, start] of log.started) expect(start).toBeGreaterThanOrEqual(at - 1);
    });

    it('holds a pause for every worker, then goes on slower', async () => {
      const conns = await db.connections(2);
      const limits = { concurrency: 2, delayMs: 0 };
      const t0 = 10_000_000;
      const paused = await pauseHost(conns[0]!, { crawlId: 1, host: H, limits, waitMs: 500, now: t0 });
      expect(paused).toMatchObject({ pausedUntil: t0 + 500, slowDowns: 1, concurrencyCap: 1, slowDelayMs: 100 });
      // A shorter pause later does not end the longer one.
      await pauseHost(conns[1]!, { crawlId: 1, host: H, limits, waitMs: 10, now: t0 + 100 });
      for (const [i, c] of conns.entries()) {
        expect(
          await acquireHostSlot(c, { crawlId: 1, host: H, worker: `w${i}`, limits, leaseMs: 1000, now: t0 + 200 }),
        ).toEqual({ kind: 'wait', waitMs: 300, why: 'paused' });
      }
      const first = await acquireHostSlot(conns[0]!, {
        crawlId: 1,
        host: H,
        worker: 'w0',
        limits,
        leaseMs: 1000,
        now: t0 + 500,
      });
      expect(first).toMatchObject({ kind: 'slot', slot: { slot: 0, startAt: t0 + 500 } });
      // Concurrency halved (2 → 1 after two slow-downs, never below 1), spacing wider.
      expect(
        await acquireHostSlot(conns[1]!, { crawlId: 1, host: H, worker: 'w1', limits, leaseMs: 1000, now: t0 + 501 }),
      ).toMatchObject({ kind: 'wait', why: 'full' });
      expect(await releaseHostSlot(conns[0]!, first.kind === 'slot' ? first.slot : { token: '' })).toBe(true);
      const second = await acquireHostSlot(conns[1]!, {
        crawlId: 1,
        host: H,
        worker: 'w1',
        limits,
        leaseMs: 1000,
        now: t0 + 510,
      });
      expect(second).toMatchObject({ kind: 'slot', slot: { startAt: t0 + 500 + 150 } });
      expect((await hostState(conns[0]!, 1, H, t0 + 510)).pace).toMatchObject({
        slowDowns: 2,
        concurrencyCap: 1,
        slowDelayMs: 150,
      });
    });

    it('gives a dead holder’s slot back when its lease runs out, and only then', async () => {
      const [a, b] = await db.connections(2);
      const limits = { concurrency: 2, delayMs: 0 };
      const t0 = 20_000_000;
      const mine = [];
      for (let i = 0; i < 2; i++) {
        const got = await acquireHostSlot(a!, { crawlId: 1, host: H, worker: 'A', limits, leaseMs: 100, now: t0 });
        if (got.kind !== 'slot') throw new Error('A got no slot');
        mine.push(got.slot);
      }
      expect(mine.map((s) => s.slot)).toEqual([0, 1]);
      // All taken: ask again soon (the poll), or when the first lease ends if sooner.
      expect(
        await acquireHostSlot(b!, { crawlId: 1, host: H, worker: 'B', limits, leaseMs: 100, now: t0 + 50 }),
      ).toEqual({ kind: 'wait', waitMs: 20, why: 'full' });
      expect(
        await acquireHostSlot(b!, { crawlId: 1, host: H, worker: 'B', limits, leaseMs: 100, now: t0 + 95 }),
      ).toEqual({ kind: 'wait', waitMs: 5, why: 'full' });
      // A's heartbeat renews its slots; then A dies.
      expect(await renewHostSlots(a!, { worker: 'A', leaseMs: 100, now: t0 + 90 })).toBe(2);
      expect(
        (await acquireHostSlot(b!, { crawlId: 1, host: H, worker: 'B', limits, leaseMs: 100, now: t0 + 150 })).kind,
      ).toBe('wait');
      const taken = await acquireHostSlot(b!, {
        crawlId: 1,
        host: H,
        worker: 'B',
        limits,
        leaseMs: 100,
        now: t0 + 190,
      });
      expect(taken).toMatchObject({ kind: 'slot', slot: { slot: 0 } });
      // A's old token frees nothing: the slot is B's now.
      expect(await releaseHostSlot(a!, mine[0]!)).toBe(false);
      expect((await hostState(a!, 1, H, t0 + 190)).live).toBe(1);
      await dropHostLeases(a!, 1);
      expect((await hostState(a!, 1, H, t0 + 190)).live).toBe(0);
    });
  });
}

describe('host leases on one SQLite file across processes', () => {
  it('lets 2 processes of 4 acquirers each hold at most concurrency (2) slots at once', async () => {
    const db = sqliteFile();
    const results = await workerProcesses<{ held: [number, number][]; startAts: number[] }>(
      [0, 1].map((i) => ({
        kind: 'slots',
        db,
        crawlId: 1,
        host: H,
        worker: `p${i}`,
        acquirers: 4,
        requests: 4,
        holdMs: 10,
        concurrency: 2,
        delayMs: 0,
      })),
    );
    const held = results.flatMap((r) => r.held);
    expect(held).toHaveLength(32);
    expect(maxOverlap(held)).toBe(2);
    for (const r of results) expect(r.held).toHaveLength(16);
  });
});
