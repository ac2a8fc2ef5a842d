// The decisions of per-host politeness shared by workers, without a database.
import { describe, expect, it } from 'vitest';
import {
  decideStart,
  effectiveLimits,
  FRESH_PACE,
  SLOT_POLL_MS,
  slowDown,
  type HostPace,
} from '../../src/model/host-pace.js';

const limits = { concurrency: 3, delayMs: 50 };
const pace = (p: Partial<HostPace> = {}): HostPace => ({ ...FRESH_PACE, ...p });

describe('decideStart', () => {
  it('starts at once on a fresh host, on the lowest free slot, and moves the next start on by the spacing', () => {
    expect(decideStart({ now: 1000, limits, pace: pace(), live: [] })).toEqual({
      kind: 'start',
      slot: 0,
      startAt: 1000,
      nextStartAt: 1050,
    });
    expect(
      decideStart({
        now: 1000,
        limits,
        pace: pace(),
        live: [
          { slot: 0, leaseUntil: 2000 },
          { slot: 2, leaseUntil: 2000 },
        ],
      }),
    ).toMatchObject({ slot: 1 });
  });

  it('reserves a start at the spacing’s next time, so starts stay delayMs apart', () => {
    expect(
      decideStart({ now: 1000, limits, pace: pace({ nextStartAt: 1030 }), live: [{ slot: 0, leaseUntil: 5000 }] }),
    ).toEqual({
      kind: 'start',
      slot: 1,
      startAt: 1030,
      nextStartAt: 1080,
    });
  });

  it('waits out a pause, whatever slots are free', () => {
    expect(decideStart({ now: 1000, limits, pace: pace({ pausedUntil: 1700 }), live: [] })).toEqual({
      kind: 'wait',
      waitMs: 700,
      why: 'paused',
    });
    expect(decideStart({ now: 1700, limits, pace: pace({ pausedUntil: 1700 }), live: [] }).kind).toBe('start');
  });

  it('when every slot is live, asks again at the first lease end or the poll, whichever is sooner', () => {
    const full = [0, 1, 2].map((slot) => ({ slot, leaseUntil: 1000 + 100 * (slot + 1) }));
    expect(decideStart({ now: 1000, limits, pace: pace(), live: full })).toEqual({
      kind: 'wait',
      waitMs: SLOT_POLL_MS,
      why: 'full',
    });
    expect(decideStart({ now: 1095, limits, pace: pace(), live: full })).toEqual({
      kind: 'wait',
      waitMs: 5,
      why: 'full',
    });
    expect(decideStart({ now: 1000, limits, pace: pace(), live: full, pollMs: 500 })).toEqual({
      kind: 'wait',
      waitMs: 100,
      why: 'full',
    });
    // A slot whose lease has run out is free again.
    expect(decideStart({ now: 1100, limits, pace: pace(), live: full })).toMatchObject({ kind: 'start', slot: 0 });
  });

  it('counts slots above a lowered concurrency against it', () => {
    const live = [{ slot: 2, leaseUntil: 5000 }];
    expect(decideStart({ now: 1000, limits, pace: pace({ concurrencyCap: 1 }), live })).toMatchObject({
      kind: 'wait',
      why: 'full',
    });
  });
});

describe('slowDown', () => {
  it('pauses until now + the wait (a later pause stays), halves the concurrency and widens the spacing by half', () => {
    const once = slowDown(pace(), { concurrency: 4, delayMs: 0 }, 1000, 5000);
    expect(once).toEqual({ nextStartAt: 0, pausedUntil: 6000, slowDowns: 1, concurrencyCap: 2, slowDelayMs: 100 });
    const twice = slowDown(once, { concurrency: 4, delayMs: 0 }, 10, 5100);
    expect(twice).toEqual({ nextStartAt: 0, pausedUntil: 6000, slowDowns: 2, concurrencyCap: 1, slowDelayMs: 150 });
    expect(slowDown(twice, { concurrency: 4, delayMs: 0 }, 0, 5200).concurrencyCap).toBe(1);
    expect(effectiveLimits({ concurrency: 4, delayMs: 0 }, twice)).toEqual({ concurrency: 1, delayMs: 150 });
  });

  it('keeps the spacing at least the configured delay and at most the ceiling', () => {
    expect(slowDown(pace(), { concurrency: 1, delayMs: 300 }, 0, 0).slowDelayMs).toBe(450);
    expect(
      slowDown(pace({ slowDelayMs: 1900 }), { concurrency: 1, delayMs: 0, maxSlowDownDelayMs: 2000 }, 0, 0).slowDelayMs,
    ).toBe(2000);
    expect(slowDown(pace(), { concurrency: 1, delayMs: 5000 }, 0, 0).slowDelayMs).toBe(5000);
  });
});
