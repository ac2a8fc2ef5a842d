// MCP over Streamable HTTP at /mcp, stateless: every POST gets a fresh server and transport, so a restart
// breaks no client and no session state exists to lose. Answers are SSE streams when the client accepts
// text/event-stream (as MCP clients must; logging notifications ride on the same stream before the result),
// plain JSON otherwise (curl, scripts), which the transport allows but then sends no notifications.
// Order of checks: Host/Origin (403) → method (405) → bearer token (401) → body size and shape (SDK: 413/415/400).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { HttpDeps } from './deps.js';
import type { User } from '../model/users.js';
import { createOriginGuard } from './origin-guard.js';
import { bearerChallenge, bearerToken, sendJson, type HttpHandler } from './io.js';
import { createMcpServer } from '../mcp/server.js';
import type { Host } from '../abilities/runtime.js';

export const MCP_PATH = '/mcp';
/** What a caller over HTTP does to set a current user. */
export const BEARER_HINT = 'send the header "Authorization: Bearer <user token>" (a token from: svc users add <login> --role administrator)';

/** JSON-RPC error shape the SDK's transport uses for its own HTTP-level refusals. */
function sendRpcError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code: -32000, message }, id: null }, headers);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * True when the answer may be an SSE stream. A client that accepts only JSON gets JSON: the SDK's transport
 * insists on both media types even in its JSON mode, so the Accept header it reads is widened to say so.
 */
function negotiateSse(req: IncomingMessage): boolean {
  const accept = (header(req, 'accept') ?? '*/*').toLowerCase();
  if (accept.includes('text/event-stream')) return true;
  if (!/application\/json|application\/\*|\*\/\*/.test(accept)) return true; // neither: let the transport answer 406
  const both = 'application/json, text/event-stream';
  const raw = req.rawHeaders;
  const i = raw.findIndex((h, n) => n % 2 === 0 && h.toLowerCase() === 'accept');
  if (i >= 0) raw[i + 1] = both;
  else raw.push('Accept', both);
  req.headers.accept = both;
  return false;
}

export function createMcpHttpHandler(deps: HttpDeps, host: Host): HttpHandler {
  const cfg = deps.server;
  const guard = createOriginGuard({ allowedHosts: cfg.allowed_hosts, allowedOrigins: cfg.allowed_origins });
  const log = deps.logger.child({ mcp: 'http' });

  return async (req, res, url) => {
    if (url.pathname !== MCP_PATH) return false;
    const origin = header(req, 'origin');
    const refused = guard(header(req, 'host'), origin);
    if (refused) {
      log.warn({ host: header(req, 'host'), origin }, `mcp: refused: ${refused}`);
      sendRpcError(res, 403, `Forbidden: ${refused}`);
      return true;
    }
    // Browsers on an allowed origin may call us; say so (the guard has already vetted the origin).
    if (origin !== undefined) {
      res.setHeader('access-control-allow-origin', origin);
      res.setHeader('access-control-expose-headers', 'mcp-protocol-version, www-authenticate');
      res.setHeader('vary', 'origin');
    }
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        'access-control-allow-methods': 'POST',
        'access-control-allow-headers': 'authorization, content-type, accept, mcp-protocol-version, last-event-id',
        'access-control-max-age': '600',
      });
      res.end();
      return true;
    }
    if (req.method !== 'POST') {
      // Stateless: no standalone GET stream to open and no session to DELETE.
      sendRpcError(res, 405, 'Method not allowed: this stateless MCP endpoint answers POST only', { allow: 'POST, OPTIONS' });
      return true;
    }

    let user: User | null = null;
    const token = bearerToken(req);
    if (token !== null) {
      user = token === undefined ? null : host.userByToken(token);
      if (!user) {
        const why = token === undefined ? 'malformed Authorization header (expected: Bearer <token>)' : 'invalid bearer token';
        sendRpcError(res, 401, `Unauthorized: ${why}`, bearerChallenge(true));
        return true;
      }
    }

    const server = createMcpServer({ host, user, logger: deps.logger, signInHint: BEARER_HINT });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !negotiateSse(req), maxRequestBodySize: cfg.max_body_bytes });
    transport.onerror = (err) => log.debug({ err: err.message }, 'mcp: request refused by the transport');
    res.once('close', () => void server.close());
    await server.connect(transport);
    await transport.handleRequest(req, res);
    return true;
  };
}
