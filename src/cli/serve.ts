// `svc serve`: one HTTP server with /v1, the host's ability routes, MCP at /mcp and /healthz.
import type { AddressInfo } from 'node:net';
import { openApp } from '../app.js';
import { createV1Handler } from '../backend/rest/v1.js';
import { createHost } from '../host/host.js';
import { createAbilityRoutesHandler } from '../host/routes.js';
import { createHttpServer } from '../http/server.js';
import { createMcpHttpHandler } from '../transports/http.js';
import { CliError, intOption, parse, readConfig } from './common.js';

export async function run(argv: string[]): Promise<number> {
  const { values } = parse(argv, { port: { type: 'string' }, host: { type: 'string' } }, false);
  if (values.help) {
    process.stdout.write('usage: svc serve [--config F] [--site URL] [--port N] [--host H]\n');
    return 0;
  }
  const config = readConfig(values);
  const port = intOption('port', values.port, 0, 65535);
  if (port !== undefined) config.server.port = port;
  if (typeof values.host === 'string') config.server.host = values.host;
  const app = openApp(config);
  const host = createHost(app);
  const server = createHttpServer({
    logger: app.logger,
    handlers: [createV1Handler(app), createAbilityRoutesHandler(app, host), createMcpHttpHandler(app, host)],
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => reject(new CliError(`cannot listen on ${config.server.host}:${config.server.port}: ${err.code ?? err.message}`, 1)));
    server.listen(config.server.port, config.server.host, resolve);
  });
  const addr = server.address() as AddressInfo;
  const hostPart = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const baseUrl = `http://${hostPart}:${addr.port}`;
  app.logger.info({ base_url: baseUrl, mcp_url: `${baseUrl}/mcp`, backend: app.backend.kind }, 'svc serve listening');
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.logger.info({ signal }, 'shutting down');
    server.close();
    server.closeAllConnections();
    await app.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  await new Promise(() => {});
  return 0;
}
