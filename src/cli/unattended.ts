// What `svc serve` and `svc worker` share: every project's queued crawls, schedules and webhook outbox run in this
// process until SIGINT or SIGTERM, and then it shuts down the one way both do.
import type { App } from '../app/open-app.js';
import type { ProjectApp } from '../app/project.js';
import { effectiveSchedule } from '../backend/scheduler.js';
import type { Signals } from './terminal.js';

/**
 * A project's schedule as its start-up line says it: the one in force (stored through /v1, the CLI or the console,
 * else the config's) and where it comes from. A project whose index another service keeps runs no schedule here.
 */
export async function scheduleForStartUpLog(p: ProjectApp): Promise<Record<string, unknown>> {
  if (p.backend.kind !== 'embedded') return { schedule: p.config.schedule, schedule_source: 'config' };
  const inForce = await effectiveSchedule(p.store.sql, p.token, p.config.schedule);
  return { schedule: inForce.schedule, schedule_source: inForce.source };
}

export interface UnattendedHooks {
  /** On the signal, before the app closes (svc serve: stop answering HTTP). */
  beforeClose?: () => void;
  /** After the app has closed (svc serve: the demo site). */
  afterClose?: () => Promise<void>;
}

/**
 * Runs the queued crawls (each claimed by one process of those on the database), the schedules and the webhook
 * deliveries from now on. SIGINT or SIGTERM on `signals` closes the app — crawls running here end `stopped` ("the
 * process running it shut down"), queued ones wait for the next process — and resolves 0 with nothing of it left
 * running. It never exits the process: the `svc` entry does, once it returns (src/server.ts); a test running the
 * command in its own process goes on.
 */
export async function runUnattendedUntilSignal(
  app: App,
  signals: Signals,
  hooks: UnattendedHooks = {},
): Promise<number> {
  // The queue's and schedules' timers do not hold a process open (a command that only queues must exit); this one
  // does, for svc worker, which has no HTTP server to do it.
  const keepAlive = setInterval(() => {}, 1 << 30);
  let signalled!: (signal: string) => void;
  const stop = new Promise<string>((resolve) => (signalled = resolve));
  // Both stay on until the app has closed: a second signal during the shutdown is not the default one (an exit).
  const onInt = () => signalled('SIGINT');
  const onTerm = () => signalled('SIGTERM');
  signals.on('SIGINT', onInt);
  signals.on('SIGTERM', onTerm);
  try {
    app.runUnattended();
    await app.startWebhookDeliveries();
    const signal = await stop;
    app.logger.info({ signal }, 'shutting down');
    hooks.beforeClose?.();
    await app.close();
    await hooks.afterClose?.();
    return 0;
  } finally {
    signals.off('SIGINT', onInt);
    signals.off('SIGTERM', onTerm);
    clearInterval(keepAlive);
  }
}
