// Politeness towards a target's host held across every worker of a shared crawl. Before each request this process
// takes a place in its own limiter (its own cap and pauses), then a slot of the host from the database: the slots cap
// the requests of all workers together at the target's concurrency. Without a crawl delay a worker keeps the slots it
// got while it has requests for them (asking the database per request would make it the bottleneck), gives back one
// left idle for IDLE_SLOT_MS or held for SLOT_TURN_MS (so a worker waiting for one gets its turn), and reads the host's state every PACE_READ_MS, so a pause or a lower concurrency another
// worker was told about holds here too. With a crawl delay every request reserves its start in the database, so the
// spacing holds across workers. One request per process asks the database at a time.
import type { Logger } from '../lib/log.js';
import type { HostLimits } from '../model/host-pace.js';
import type { SharedHosts } from '../model/shared-crawl.js';
import { AbortError, HostLimiter, sleep, type HostGate } from './host-limiter.js';

/** A slot held but unused this long goes back to the other workers. */
const IDLE_SLOT_MS = 100;
/** A slot held this long goes back after its request, so workers that wait for one get their turn. */
const SLOT_TURN_MS = 1_000;
/** How often a worker holding slots reads the host's pause and concurrency. */
const PACE_READ_MS = 200;

export class SharedHostGate implements HostGate {
  private readonly local: HostLimiter;
  /** Settles when the request asking the database now has its answer. */
  private asking: Promise<void> = Promise.resolve();
  /** Slots held and not in use: when each was got, and last given back. */
  private readonly idle: { token: string; got: number; since: number }[] = [];
  /** Slots held, in use or idle. */
  private held = 0;
  /** What the database last said: every worker waits until then; at most this many slots at once. */
  private pausedUntil = 0;
  private cap = Infinity;
  private timer: NodeJS.Timeout | null = null;
  private lastPaceRead = 0;

  constructor(
    private readonly host: string,
    private readonly limits: HostLimits,
    private readonly hosts: SharedHosts,
    private readonly logger: Logger,
  ) {
    this.local = new HostLimiter(limits);
  }

  get delayMs(): number {
    return this.local.delayMs;
  }

  set delayMs(ms: number) {
    this.local.delayMs = ms;
    this.limits.delayMs = ms;
  }

  get slowDowns(): number {
    return this.local.slowDowns;
  }

  async acquire(signal?: AbortSignal): Promise<() => void> {
    const releaseLocal = await this.local.acquire(signal);
    let held: { token: string; got: number };
    try {
      held = this.idle.pop() ?? { token: await this.slot(signal), got: Date.now() };
      // A pause the host gave another worker.
      await sleep(this.pausedUntil - Date.now(), signal);
    } catch (err) {
      releaseLocal();
      throw err;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      releaseLocal();
      this.giveBack(held);
    };
  }

  slowDown(waitMs: number): void {
    this.local.slowDown(waitMs);
    this.pausedUntil = Math.max(this.pausedUntil, Date.now() + waitMs);
    this.hosts
      .pause(this.host, this.limits, waitMs)
      .catch((err: unknown) => this.logger.warn({ err, host: this.host }, 'pausing the host for every worker failed'));
  }

  /** Gives back every idle slot (the crawl ends here); slots in use go back when their requests end. */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const s of this.idle.splice(0)) this.release(s.token);
  }

  /** Whether a slot may be kept between requests: not with a crawl delay (each start is reserved in the database). */
  private get keeps(): boolean {
    return this.limits.delayMs <= 0;
  }

  private giveBack(slot: { token: string; got: number }): void {
    const now = Date.now();
    if (!this.keeps || this.held > this.cap || now - slot.got >= SLOT_TURN_MS) {
      this.release(slot.token);
      return;
    }
    this.idle.push({ ...slot, since: now });
    this.timer ??= setInterval(() => this.tend(), Math.min(IDLE_SLOT_MS, PACE_READ_MS) / 2);
    this.timer.unref();
  }

  /** Slots idle too long go back; now and then, the host's state as every worker sees it. */
  private tend(): void {
    const now = Date.now();
    while (this.idle.length && now - this.idle[0]!.since >= IDLE_SLOT_MS) this.release(this.idle.shift()!.token);
    if (!this.held && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
    if (this.held && now - this.lastPaceRead >= PACE_READ_MS) {
      this.lastPaceRead = now;
      this.hosts.pace(this.host, this.limits).then(
        (p) => {
          this.pausedUntil = Math.max(this.pausedUntil, p.pausedUntil);
          this.cap = p.concurrency;
          while (this.held > this.cap && this.idle.length) this.release(this.idle.shift()!.token);
        },
        (err: unknown) => this.logger.warn({ err, host: this.host }, 'reading the host state failed'),
      );
    }
  }

  private release(token: string): void {
    this.held--;
    // A slot not given back here comes back when its lease runs out.
    this.hosts
      .release(token)
      .catch((err: unknown) => this.logger.warn({ err, host: this.host }, 'giving back a host slot failed'));
  }

  /** Asks the database until it hands out a slot (then waits for its start), one asker of this process at a time. */
  private async slot(signal?: AbortSignal): Promise<string> {
    const before = this.asking;
    let done!: () => void;
    this.asking = new Promise<void>((r) => (done = r));
    let got: { token: string; startAt: number };
    try {
      await before;
      for (;;) {
        if (signal?.aborted) throw new AbortError();
        const a = await this.hosts.acquire(this.host, this.limits);
        if (a.kind === 'slot') {
          got = a;
          this.held++;
          break;
        }
        await sleep(a.waitMs, signal);
      }
    } finally {
      done();
    }
    try {
      await sleep(got.startAt - Date.now(), signal);
    } catch (err) {
      this.release(got.token);
      throw err;
    }
    return got.token;
  }
}
