// Per-host politeness: at most `concurrency` requests at once, request starts spaced by `delayMs`, and a
// pause plus a lasting slow-down when the host asks for one (429, 503 + Retry-After).

export class AbortError extends Error {
  constructor() {
    super('aborted');
    this.name = 'AbortError';
  }
}

/** Resolves after ms, or rejects with AbortError when signal aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(new AbortError());
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(t);
      reject(new AbortError());
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export interface HostLimits {
  concurrency: number;
  delayMs: number;
  /** Ceiling for the spacing "slow down" answers add (default 2 s). */
  maxSlowDownDelayMs?: number;
}

/** What the fetcher asks before each request to a host: this process's limiter, or one shared with other workers. */
export interface HostGate {
  /** Waits for a slot and for the spacing; returns the release function. */
  acquire(signal?: AbortSignal): Promise<() => void>;
  /** The host asked us to wait `waitMs` (429, 503 + Retry-After). */
  slowDown(waitMs: number): void;
  /** Spacing between request starts (robots.txt's Crawl-delay may raise it). */
  delayMs: number;
  /** How many times the host asked to slow down (here). */
  readonly slowDowns: number;
  /** The crawl is over: what the gate holds goes back. */
  close?(): void;
}

export class HostLimiter implements HostGate {
  private active = 0;
  private readonly waiters: {
    resolve: () => void;
    reject: (e: Error) => void;
    signal?: AbortSignal;
    onAbort?: () => void;
  }[] = [];
  private lastStartAt = -Infinity;
  private pausedUntil = 0;
  concurrency: number;
  delayMs: number;
  slowDowns = 0;
  private readonly maxSlowDownDelayMs: number;

  constructor(limits: HostLimits) {
    this.concurrency = Math.max(1, limits.concurrency);
    this.delayMs = Math.max(0, limits.delayMs);
    this.maxSlowDownDelayMs = limits.maxSlowDownDelayMs ?? 2_000;
  }

  /** Waits for a slot and for the spacing; returns the release function. */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) throw new AbortError();
    if (this.active < this.concurrency) this.active++;
    else {
      // Woken by wakeNext, which hands the slot over already counted.
      await new Promise<void>((resolve, reject) => {
        const w: (typeof this.waiters)[number] = { resolve, reject, signal };
        if (signal) {
          w.onAbort = () => {
            const i = this.waiters.indexOf(w);
            if (i >= 0) this.waiters.splice(i, 1);
            reject(new AbortError());
          };
          signal.addEventListener('abort', w.onAbort, { once: true });
        }
        this.waiters.push(w);
      });
    }
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.active--;
      this.wakeNext();
    };
    try {
      // Spaced from the last request that really started: a timer that fires late (a busy machine) must not let the
      // next one start early to keep a schedule. Waiters woken together take turns; the others wait again.
      for (;;) {
        const now = Date.now();
        const startAt = Math.max(now, this.lastStartAt + this.delayMs, this.pausedUntil);
        if (startAt <= now) {
          this.lastStartAt = now;
          break;
        }
        await sleep(startAt - now, signal);
      }
    } catch (err) {
      release();
      throw err;
    }
    return release;
  }

  /** Runs fn holding a slot. */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(signal);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  /** The host asked us to wait `waitMs`: pause every request to it, then go on with half the concurrency and more spacing. */
  slowDown(waitMs: number): void {
    this.slowDowns++;
    this.pausedUntil = Math.max(this.pausedUntil, Date.now() + waitMs);
    this.concurrency = Math.max(1, Math.floor(this.concurrency / 2));
    // Spacing grows by half each time, never below the configured delay nor above the ceiling.
    this.delayMs = Math.max(this.delayMs, Math.min(this.maxSlowDownDelayMs, Math.max(this.delayMs * 1.5, 100)));
  }

  private wakeNext(): void {
    while (this.active < this.concurrency && this.waiters.length) {
      const w = this.waiters.shift()!;
      if (w.signal && w.onAbort) w.signal.removeEventListener('abort', w.onAbort);
      this.active++;
      w.resolve();
    }
  }
}
