// A small in-memory limiter of failed sign-ins: at most `max` failures per key in a sliding window. Keys are
// logins and client addresses; the map is bounded, the oldest key leaving first, so a flood cannot grow it. A
// sign-in counts as a failure before its password is checked and is forgiven when it succeeds, so attempts sent
// together cannot all pass the check of the count.

export interface AttemptLimiterOptions {
  max: number;
  windowMs: number;
  /** Keys remembered at most (default 10 000). */
  maxKeys?: number;
  now?: () => number;
}

export class AttemptLimiter {
  private readonly failures = new Map<string, number[]>();
  private readonly now: () => number;

  constructor(private readonly opts: AttemptLimiterOptions) {
    this.now = opts.now ?? Date.now;
  }

  private recent(key: string): number[] {
    const since = this.now() - this.opts.windowMs;
    const list = (this.failures.get(key) ?? []).filter((t) => t > since);
    if (list.length) this.failures.set(key, list);
    else this.failures.delete(key);
    return list;
  }

  /** Failures of the key in the window. */
  count(key: string): number {
    return this.recent(key).length;
  }

  /** Seconds until the key may try again; 0 when it may now. */
  retryAfter(key: string): number {
    const list = this.recent(key);
    if (list.length < this.opts.max) return 0;
    return Math.max(1, Math.ceil((list[list.length - this.opts.max]! + this.opts.windowMs - this.now()) / 1000));
  }

  /** Counts a failure of the key now; returns its time, for `forgive`. */
  fail(key: string): number {
    const at = this.now();
    const list = this.recent(key);
    list.push(at);
    this.failures.delete(key); // re-inserted last: the map's order is the eviction order
    this.failures.set(key, list);
    const limit = this.opts.maxKeys ?? 10_000;
    while (this.failures.size > limit) this.failures.delete(this.failures.keys().next().value!);
    return at;
  }

  /** Takes back one failure counted at `at` (an attempt counted ahead that turned out not to be one). */
  forgive(key: string, at: number): void {
    const list = this.failures.get(key);
    const i = list?.indexOf(at) ?? -1;
    if (i < 0) return;
    list!.splice(i, 1);
    if (!list!.length) this.failures.delete(key);
  }

  /** Forgets a key's failures (after a successful sign-in of that login). */
  reset(key: string): void {
    this.failures.delete(key);
  }
}
