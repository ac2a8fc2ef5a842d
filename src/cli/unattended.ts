// What `svc serve` and `svc worker` share: every project's queued crawls, schedules and webhook outbox run in this
// process until SIGINT or SIGTERM, and then it shuts down the one way both do.
import type { App } from '../app/open-app.js';

export interface UnattendedHooks {
  /** On the signal, before the app closes (svc serve: stop answering HTTP). */
  beforeClose?: () => void;
  /** After the app has closed (svc serve: the demo site). */
  afterClose?: () => Promise<void>;
}

/**
 * Runs the queued crawls (each claimed by one process of those on the database), the schedules and the webhook
 * deliveries from now on. SIGINT or SIGTERM closes the app — crawls running here end `stopped` ("the process running
 * it shut down"), queued ones wait for the next process — and exits 0. Never resolves.
 */
export async function runUnattendedUntilSignal(app: App, hooks: UnattendedHooks = {}): Promise<never> {
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.logger.info({ signal }, 'shutting down');
    hooks.beforeClose?.();
    await app.close();
    await hooks.afterClose?.();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  // The queue's and schedules' timers do not hold a process open (a command that only queues must exit); this one
  // does, for svc worker, which has no HTTP server to do it.
  setInterval(() => {}, 1 << 30);
  app.runUnattended();
  await app.startWebhookDeliveries();
  return new Promise<never>(() => {});
}
