// Politeness towards a target's host held across every worker of a shared crawl: before each request this process
// takes a place in its own limiter (its own cap and pauses), then a slot of the host from the database, which caps
// the requests of all workers together at the target's concurrency and spaces their starts. One request per process
// asks the database at a time, so a host whose slots are all taken is polled by each process, not by each request.
import type { Logger } from '../lib/log.js';
import type { HostLimits } from '../model/host-pace.js';
import type { SharedHosts } from '../model/shared-crawl.js';
import { AbortError, HostLimiter, sleep, type HostGate } from './host-limiter.js';

export class SharedHostGate implements HostGate {
  private readonly local: HostLimiter;
  /** Settles when the request asking the database now has its answer. */
  private asking: Promise<void> = Promise.resolve();

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
    let startAt: number;
    let token: string;
    try {
      ({ token, startAt } = await this.slot(signal));
    } catch (err) {
      releaseLocal();
      throw err;
    }
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      releaseLocal();
      // A slot not given back here comes back when its lease runs out.
      this.hosts.release(token).catch((err: unknown) => this.logger.warn({ err, host: this.host }, 'giving back a host slot failed'));
    };
    try {
      await sleep(startAt - Date.now(), signal);
    } catch (err) {
      release();
      throw err;
    }
    return release;
  }

  slowDown(waitMs: number): void {
    this.local.slowDown(waitMs);
    this.hosts.pause(this.host, this.limits, waitMs).catch((err: unknown) => this.logger.warn({ err, host: this.host }, 'pausing the host for every worker failed'));
  }

  /** Asks the database until it hands out a slot, one asker of this process at a time. */
  private async slot(signal?: AbortSignal): Promise<{ token: string; startAt: number }> {
    const before = this.asking;
    let done!: () => void;
    this.asking = new Promise<void>((r) => (done = r));
    try {
      await before;
      for (;;) {
        if (signal?.aborted) throw new AbortError();
        const a = await this.hosts.acquire(this.host, this.limits);
        if (a.kind === 'slot') return a;
        await sleep(a.waitMs, signal);
      }
    } finally {
      done();
    }
  }
}
