// The HTTP server of `svc serve`: a chain of route handlers (/healthz, /v1, ability routes, /mcp), each
// answering the requests it owns. Errors become JSON; nothing internal (stack, SQL) reaches a caller.
import { createServer, type Server } from 'node:http';
import type { Logger } from '../lib/log.js';
import { HttpError, sendJson, type HttpHandler } from './io.js';

export interface HttpServerOptions {
  handlers: HttpHandler[];
  logger: Logger;
}

export function createHttpServer(opts: HttpServerOptions): Server {
  const server = createServer(async (req, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://localhost');
    } catch {
      sendJson(res, 400, { error: { code: 'invalid_url', message: 'request URL is not valid' } });
      return;
    }
    try {
      if (url.pathname === '/healthz' && (req.method === 'GET' || req.method === 'HEAD')) {
        sendJson(res, 200, { status: 'ok' });
        return;
      }
      for (const handle of opts.handlers) {
        if (await handle(req, res, url)) return;
      }
      sendJson(res, 404, { error: { code: 'not_found', message: `no route for ${req.method} ${url.pathname}` } });
    } catch (err) {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (err instanceof HttpError) {
        sendJson(res, err.status, { error: { code: err.code, message: err.message } }, err.headers);
        return;
      }
      opts.logger.error({ err, method: req.method, path: url.pathname }, 'request failed');
      sendJson(res, 500, { error: { code: 'internal', message: 'internal error' } });
    }
  });
  server.headersTimeout = 20_000;
  server.requestTimeout = 60_000;
  return server;
}
