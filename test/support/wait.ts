// The tests' one wait for something another process or a timer brings about.
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Waits until f answers something truthy, asking every `everyMs` (50), or throws after `ms` naming `what`. With
 * `retryErrors`, f throwing counts as "not yet" (a file another process is still creating).
 */
export async function until<T>(
  what: string,
  f: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  ms = 30_000,
  opts: { everyMs?: number; retryErrors?: boolean } = {},
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    try {
      const v = await f();
      if (v) return v;
    } catch (err) {
      if (!opts.retryErrors) throw err;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(opts.everyMs ?? 50);
  }
}
