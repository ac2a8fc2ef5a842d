// `svc serve`: one HTTP server with /v1 for every project of the config, the host's ability routes, MCP at /mcp,
// /healthz, /readyz and (metrics.enabled) /metrics; every project's queued crawls, schedules and webhooks run in it.
// With no config at all (no --config, SVC_CONFIG, --site or remote /v1 service) it runs the embedded default on the
// demo site.
import type { AddressInfo } from 'node:net';
import { loadApp } from '../app/open-app.js';
import { openAbilityHost } from '../app/ability-host.js';
import { DemoSiteError } from '../demo/site.js';
import { isEmbeddedDefault, startEmbeddedDefault, type EmbeddedDefault } from '../demo/embedded-default.js';
import { createHttpServer } from '../http/http-server.js';
import { createLogger } from '../lib/log.js';
import type { HttpHandler } from '../http/io.js';
import { CliError, intOption, parse, readConfig } from './common.js';
import { httpDeps, serveHandlers } from '../app/http.js';
import { createMetrics } from '../app/metrics.js';
import { appReadiness } from '../app/readiness.js';
import { createOperationsHandler } from '../http/operations.js';
import { runUnattendedUntilSignal, scheduleForStartUpLog } from './unattended.js';
import type { Terminal } from './terminal.js';

export async function run(argv: string[], io: Terminal): Promise<number> {
  const { values } = parse(argv, { port: { type: 'string' }, host: { type: 'string' } }, false);
  if (values.help) {
    io.stdout.write(
      "usage: svc serve [--config F] [--site URL] [--port N] [--host H]\n\nWith no --config, SVC_CONFIG or --site: serves the bundled demo site, crawls it once, and prints\nthe MCP URL, an API key and the demo users' tokens (also in <data_dir>/credentials.json).\n",
    );
    return 0;
  }
  let config = readConfig(values, io);
  const port = intOption('port', values.port, 0, 65535);
  if (port !== undefined) config.server.port = port;
  if (typeof values.host === 'string') config.server.host = values.host;
  const logger = createLogger(config.log_level, io.stderr);
  let demo: EmbeddedDefault | null = null;
  if (isEmbeddedDefault(values, io.env)) {
    try {
      demo = await startEmbeddedDefault(config, logger);
    } catch (err) {
      if (err instanceof DemoSiteError) throw new CliError(err.message, 1);
      throw err;
    }
    config = demo.config;
  }
  // io.passwordCost: only a test running serve in its own process sets it (test/support/cli.ts, serveHere).
  const app = await loadApp(config, { logger, env: io.env, passwordCost: io.passwordCost });
  if (demo) await demo.prepare(app);
  const host = await openAbilityHost(app);
  // The routes are added once listening: the OAuth issuer is the address we listen on (unless server.public_url
  // says otherwise), and with --port 0 that is known only then. No request is read before they are in.
  const handlers: HttpHandler[] = [];
  const publicHost = config.server.public_url ? [new URL(config.server.public_url).host] : [];
  const server = createHttpServer({
    logger: app.logger,
    handlers,
    allowedHosts: [...config.server.allowed_hosts, ...publicHost],
    allowedOrigins: config.server.allowed_origins,
    health: () => app.health(),
    onError: (err) => app.noteError(err),
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) => {
        const hint =
          err.code === 'EADDRINUSE'
            ? ': another process uses this port; pass --port N (or set PORT)'
            : err.code === 'EACCES'
              ? ': not allowed; pass --port N above 1023'
              : '';
        reject(
          new CliError(
            `cannot listen on ${config.server.host}:${config.server.port}: ${err.code ?? err.message}${hint}`,
            1,
          ),
        );
      });
      server.listen(config.server.port, config.server.host, resolve);
    });
  } catch (err) {
    host.close();
    await app.close();
    await demo?.close();
    throw err;
  }
  const addr = server.address() as AddressInfo;
  // Listening on every address (0.0.0.0, ::): tell people the loopback URL, which always reaches it.
  const address = addr.address === '0.0.0.0' || addr.address === '::' ? '127.0.0.1' : addr.address;
  const hostPart = address.includes(':') ? `[${address}]` : address;
  const baseUrl = `http://${hostPart}:${addr.port}`;
  const deps = httpDeps(app, { publicUrl: config.server.public_url ?? baseUrl });
  const metrics = config.metrics.enabled ? createMetrics(app) : null;
  handlers.push(
    createOperationsHandler({
      ready: () => appReadiness(app),
      metrics: metrics && { token: config.metrics.token, render: () => metrics.render() },
    }),
    ...serveHandlers(deps, host),
  );
  app.logger.info(
    {
      base_url: baseUrl,
      mcp_url: `${baseUrl}/mcp`,
      console_url: `${baseUrl}/console/`,
      backend: app.backend.kind,
      demo: demo !== null,
      oauth_issuer: deps.oauth?.issuer.origin ?? null,
      mcp_auth: config.server.mcp_auth,
      projects: app.projects.map((p) => p.token),
    },
    'svc serve listening',
  );
  // One line per project: where its /v1 API and its database are. The host side (posts, users, abilities, MCP)
  // acts on the first.
  for (const [i, p] of app.projects.entries()) {
    app.logger.info(
      {
        project: p.token,
        v1: `${baseUrl}/v1/projects/${p.token}/`,
        database: p.store.location,
        targets: p.config.targets.map((t) => t.host),
        ...(await scheduleForStartUpLog(p)),
        host_side: i === 0,
      },
      'serving project',
    );
  }
  if (demo) await demo.announce(app, baseUrl, io.stderr);
  else
    io.stderr.write(
      serveBanner(
        baseUrl,
        app.projects.map((p) => p.token),
      ),
    );
  // Queued crawls (schedules, live update, svc crawl --queue, and those queued while no server ran), the schedules and
  // the webhook outbox run from now on, until a signal; then all of it is closed, and serve returns 0.
  return runUnattendedUntilSignal(app, io.signals, {
    beforeClose: () => {
      metrics?.close();
      server.close();
      server.closeAllConnections();
      host.close();
    },
    afterClose: async () => {
      await demo?.close();
    },
  });
}

/** The few lines a person reads when the server is up (the demo prints its own, longer one): where to go. */
export function serveBanner(baseUrl: string, projects: readonly string[]): string {
  return [
    '',
    'svc is running.',
    `  console      ${baseUrl}/console/`,
    `  MCP (HTTP)   ${baseUrl}/mcp`,
    ...projects.map((t, i) => `${i === 0 ? '  /v1 API      ' : '               '}${baseUrl}/v1/projects/${t}/`),
    '',
    '',
  ].join('\n');
}
