// The HTTP server of `svc serve`: a chain of route handlers (/healthz, /v1, ability routes, /mcp), each
// answering the requests it owns. Before any of them, once for every route: the Host/Origin guard against DNS
// rebinding, and the refusal of ambiguous requests (two Authorization headers, a repeated query parameter).
// Errors become JSON; nothing internal (stack, SQL) reaches a caller.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Logger } from '../lib/log.js';
import { headerValue, HttpError, MCP_PATH, sendJson, sendRpcError, type HttpHandler } from './io.js';
import { createOriginGuard } from './origin-guard.js';

export interface Health {
  status: 'ok' | 'degraded';
  error?: string;
  /** degraded by a database that stopped answering: since when (ISO 8601). */
  since?: string;
}

export interface HttpServerOptions {
  handlers: HttpHandler[];
  logger: Logger;
  /** server.allowed_hosts / allowed_origins: names besides loopback that may reach us. */
  allowedHosts?: readonly string[];
  allowedOrigins?: readonly string[];
  /** What /healthz answers (503 when degraded); default ok. */
  health?: () => Health;
  /** Hears every error that became a 500 (e.g. so SQLite corruption marks the service degraded). */
  onError?: (err: unknown) => void;
}

/** Why a request is ambiguous, or null: a header or parameter given twice could mean two things. */
export function ambiguity(req: IncomingMessage, url: URL): string | null {
  let auth = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === 'authorization') auth++;
  if (auth > 1) return 'Authorization: send the header once';
  const seen = new Set<string>();
  for (const key of url.searchParams.keys()) {
    if (seen.has(key)) return `${key}: must be given at most once`;
    seen.add(key);
  }
  return null;
}

/** Whether an error is the client's closing of the connection before its request was read or answered. */
function abandoned(req: IncomingMessage, err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return (
    code === 'ECONNRESET' ||
    code === 'ERR_STREAM_PREMATURE_CLOSE' ||
    (req.destroyed && !req.complete) ||
    (err instanceof Error && err.message === 'aborted')
  );
}

export function createHttpServer(opts: HttpServerOptions): Server {
  const guard = createOriginGuard({ allowedHosts: opts.allowedHosts, allowedOrigins: opts.allowedOrigins });
  const server = createServer(async (req, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://localhost');
    } catch {
      sendJson(res, 400, { error: { code: 'invalid_url', message: 'request URL is not valid' } });
      return;
    }
    // A page of another site that a browser sends to us under a rebound name gets nothing from any route.
    const refused = guard(headerValue(req, 'host'), headerValue(req, 'origin'));
    if (refused) {
      opts.logger.warn(
        { host: headerValue(req, 'host'), origin: headerValue(req, 'origin'), path: url.pathname },
        `refused: ${refused}`,
      );
      if (url.pathname === MCP_PATH) sendRpcError(res, 403, `Forbidden: ${refused}`);
      else sendJson(res, 403, { error: { code: 'forbidden', message: refused } });
      return;
    }
    const ambiguous = ambiguity(req, url);
    if (ambiguous) {
      req.resume();
      sendJson(res, 400, { error: { code: 'invalid_input', message: ambiguous } });
      return;
    }
    try {
      if (url.pathname === '/healthz' && (req.method === 'GET' || req.method === 'HEAD')) {
        const h = opts.health?.() ?? { status: 'ok' };
        sendJson(res, h.status === 'ok' ? 200 : 503, h);
        return;
      }
      for (const handle of opts.handlers) {
        if (await handle(req, res, url)) return;
      }
      sendJson(res, 404, { error: { code: 'not_found', message: `no route for ${req.method} ${url.pathname}` } });
    } catch (err) {
      if (abandoned(req, err)) {
        // The client went away mid-request: nothing failed here, and no one is left to answer.
        opts.logger.info({ method: req.method, path: url.pathname }, 'request abandoned by the client');
        res.destroy();
        return;
      }
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (err instanceof HttpError) {
        sendJson(res, err.status, { error: { code: err.code, message: err.message } }, err.headers);
        return;
      }
      opts.logger.error({ err, method: req.method, path: url.pathname }, 'request failed');
      opts.onError?.(err);
      sendJson(res, 500, { error: { code: 'internal', message: 'internal error' } });
    }
  });
  server.headersTimeout = 20_000;
  server.requestTimeout = 60_000;
  return server;
}
