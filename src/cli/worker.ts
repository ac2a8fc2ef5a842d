// `svc worker`: what `svc serve` does unattended, without the HTTP server — every project's (or the --project ones')
// queued crawls in their turn, the schedules and the webhook outbox. Any number of workers and servers share one
// database: each queued crawl is claimed by exactly one of them, in one write transaction.
import { openApp } from '../app.js';
import { createLogger } from '../lib/log.js';
import { selectProjects } from '../model/config.js';
import { CliError, parse, readConfig } from './common.js';
import { runUnattendedUntilSignal } from './unattended.js';

const USAGE = `usage: svc worker [--config F] [--project TOKEN …]

Runs the queued crawls of every project of the config (or only of each --project TOKEN, which may repeat) in
their turn, the config's schedules and the webhook outbox, with no HTTP server. Workers and svc serve share the
queue of the database: each crawl runs in exactly one of them. Crawls are queued by schedules, live update
(svc posts import/delete) and svc crawl full|partial|manual --queue. Logs go to stderr.
SIGINT or SIGTERM stops it: a crawl running here ends stopped; queued ones wait for another process.
`;

export async function run(argv: string[]): Promise<number> {
  const { values } = parse(argv, { project: { type: 'string', multiple: true } }, false);
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const all = readConfig({ config: values.config, site: values.site });
  if (all.api.base_url) {
    throw new CliError(
      `this config has api.base_url (${all.api.base_url}): its crawls run in that /v1 service, not on this machine's database; run svc worker beside that service with its config, or remove api.base_url`,
      2,
    );
  }
  const config = selectProjects(all, values.project ?? []);
  if (typeof config === 'string') throw new CliError(`--project: ${config}`, 2);
  const logger = createLogger(config.log_level);
  const app = openApp(config, { logger });
  logger.info(
    { projects: app.projects.map((p) => ({ project: p.token, database: p.store.location, targets: p.config.targets.map((t) => t.host), schedule: p.config.schedule })) },
    'svc worker started',
  );
  return runUnattendedUntilSignal(app);
}
