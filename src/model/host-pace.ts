// Politeness towards one host shared by every worker of a crawl: at most `concurrency` requests at once, request
// starts spaced by `delayMs`, and a pause (then a lasting slow-down) when the host answers 429/503 + Retry-After.
// Pure decisions over the state the store keeps per host; the store reads the state, asks here, and writes the
// answer back in one transaction. The rules are those of the crawler's in-process limiter, held across processes.

/** What the database keeps for a host (times in ms since the epoch). */
export interface HostPace {
  /** No request may be reserved to start before this (the spacing). */
  nextStartAt: number;
  /** Every worker waits until this (a 429/503 with Retry-After). */
  pausedUntil: number;
  /** How many times the host asked to slow down. */
  slowDowns: number;
  /** The concurrency slow-downs left (null: the configured one). */
  concurrencyCap: number | null;
  /** The spacing slow-downs set (0: the configured one). */
  slowDelayMs: number;
}

export const FRESH_PACE: HostPace = {
  nextStartAt: 0,
  pausedUntil: 0,
  slowDowns: 0,
  concurrencyCap: null,
  slowDelayMs: 0,
};

/** The target's configured limits for the host. */
export interface HostLimits {
  concurrency: number;
  delayMs: number;
  /** Ceiling for the spacing slow-downs add (default 2 s). */
  maxSlowDownDelayMs?: number;
}

/** A live slot: its number (0 … concurrency-1) and when its lease runs out. */
export interface LiveSlot {
  slot: number;
  leaseUntil: number;
}

/** How often a worker that found every slot taken asks again, at most (no process can wake another). */
export const SLOT_POLL_MS = 20;

export type StartDecision =
  /** Take slot `slot`; the request starts at `startAt` (now or later: the spacing), and the next one not before `nextStartAt`. */
  | { kind: 'start'; slot: number; startAt: number; nextStartAt: number }
  /** Ask again in `waitMs`. */
  | { kind: 'wait'; waitMs: number; why: 'paused' | 'full' };

/** The limits in force: the configured ones, narrowed by the slow-downs the host asked for. */
export function effectiveLimits(limits: HostLimits, pace: HostPace): { concurrency: number; delayMs: number } {
  const configured = Math.max(1, Math.floor(limits.concurrency));
  return {
    concurrency: pace.concurrencyCap === null ? configured : Math.max(1, Math.min(configured, pace.concurrencyCap)),
    delayMs: Math.max(0, limits.delayMs, pace.slowDelayMs),
  };
}

/**
 * May a request to the host start? Paused: wait out the pause. Every slot live: ask again when the first lease runs
 * out or after `pollMs`, whichever is sooner. Otherwise the lowest free slot, and a start reserved at the spacing's
 * next time (so requests reserved by several workers still start `delayMs` apart).
 */
export function decideStart(input: {
  now: number;
  limits: HostLimits;
  pace: HostPace;
  live: readonly LiveSlot[];
  pollMs?: number;
}): StartDecision {
  const { now, pace, live } = input;
  if (pace.pausedUntil > now) return { kind: 'wait', waitMs: pace.pausedUntil - now, why: 'paused' };
  const { concurrency, delayMs } = effectiveLimits(input.limits, pace);
  const current = live.filter((s) => s.leaseUntil > now);
  if (current.length >= concurrency) {
    const firstEnd = Math.min(...current.map((s) => s.leaseUntil));
    return { kind: 'wait', waitMs: Math.max(1, Math.min(input.pollMs ?? SLOT_POLL_MS, firstEnd - now)), why: 'full' };
  }
  const taken = new Set(current.map((s) => s.slot));
  let slot = 0;
  while (taken.has(slot)) slot++;
  const startAt = Math.max(now, pace.nextStartAt);
  return { kind: 'start', slot, startAt, nextStartAt: startAt + delayMs };
}

/**
 * The host asked every worker to wait `waitMs` (429, or 503 with Retry-After): pause it until then (a later pause
 * already set stays), and from then on halve the concurrency and widen the spacing by half, never below the
 * configured delay nor above the ceiling.
 */
export function slowDown(pace: HostPace, limits: HostLimits, waitMs: number, now: number): HostPace {
  const { concurrency, delayMs } = effectiveLimits(limits, pace);
  const ceiling = limits.maxSlowDownDelayMs ?? 2_000;
  return {
    nextStartAt: pace.nextStartAt,
    pausedUntil: Math.max(pace.pausedUntil, now + Math.max(0, waitMs)),
    slowDowns: pace.slowDowns + 1,
    concurrencyCap: Math.max(1, Math.floor(concurrency / 2)),
    slowDelayMs: Math.round(Math.max(delayMs, Math.min(ceiling, Math.max(delayMs * 1.5, 100)))),
  };
}
