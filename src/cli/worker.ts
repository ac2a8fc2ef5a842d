// `svc worker`: what `svc serve` does unattended, without the HTTP server — every project's (or the --project ones')
// queued crawls in their turn, the schedules and the webhook outbox. Any number of workers and servers share one
// database: each queued crawl is claimed by exactly one of them, in one write transaction.
import { loadApp } from '../app/open-app.js';
import { workerName } from '../backend/shared-crawl.js';
import { createLogger } from '../lib/log.js';
import { selectProjects } from '../model/config.js';
import { CliError, parse, readConfig } from './common.js';
import { runUnattendedUntilSignal, scheduleForStartUpLog } from './unattended.js';
import type { Terminal } from './terminal.js';

const USAGE = `usage: svc worker [--config F] [--project TOKEN …] [--concurrency N]

Runs the queued crawls of every project of the config (or only of each --project TOKEN, which may repeat) in
their turn, the config's schedules and the webhook outbox, with no HTTP server. Workers and svc serve share the
queue of the database: each crawl is claimed by exactly one of them. A crawl a worker claims is shared: the
project's other workers join it and crawl the same site with it (each URL fetched once, the target's concurrency,
crawl delay and Retry-After pauses held across all of them). Crawls are queued by schedules, live update
(svc posts import/delete) and svc crawl full|partial|manual --queue. Logs go to stderr.
--concurrency N: at most N pages of a target in flight in this worker (default: the target's concurrency).
SIGINT or SIGTERM stops it: a crawl it leads ends stopped; a crawl it joined goes on with the others.
`;

export async function run(argv: string[], io: Terminal): Promise<number> {
  const { values } = parse(
    argv,
    { project: { type: 'string', multiple: true }, concurrency: { type: 'string' } },
    false,
  );
  if (values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  const all = readConfig({ config: values.config, site: values.site }, io);
  if (all.api.base_url) {
    throw new CliError(
      `this config has api.base_url (${all.api.base_url}): its crawls run in that /v1 service, not on this machine's database; run svc worker beside that service with its config, or remove api.base_url`,
      2,
    );
  }
  const config = selectProjects(all, values.project ?? []);
  if (typeof config === 'string') throw new CliError(`--project: ${config}`, 2);
  let pageConcurrency: number | undefined;
  if (values.concurrency !== undefined) {
    pageConcurrency = Number(values.concurrency);
    if (!/^\d+$/.test(values.concurrency) || pageConcurrency < 1 || pageConcurrency > 1000) {
      throw new CliError(
        `--concurrency: must be a whole number from 1 to 1000 (got ${JSON.stringify(values.concurrency)})`,
        2,
      );
    }
  }
  const logger = createLogger(config.log_level, io.stderr);
  // Names this process in the shared frontier and host slots (its claims and leases).
  const worker = workerName();
  const app = await loadApp(config, {
    logger,
    env: io.env,
    passwordCost: io.passwordCost,
    share: { worker, pageConcurrency },
  });
  logger.info(
    {
      worker,
      projects: await Promise.all(
        app.projects.map(async (p) => ({
          project: p.token,
          database: p.store.location,
          targets: p.config.targets.map((t) => t.host),
          ...(await scheduleForStartUpLog(p)),
        })),
      ),
    },
    'svc worker started',
  );
  return runUnattendedUntilSignal(app, io.signals);
}
