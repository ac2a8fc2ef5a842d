// MCP over Streamable HTTP at /mcp, stateless: every POST gets a fresh server and transport, so a restart
// breaks no client and no session state exists to lose. Answers are SSE streams when the client accepts
// text/event-stream (as MCP clients must; logging notifications ride on the same stream before the result),
// plain JSON otherwise (curl, scripts), which the transport allows but then sends no notifications.
// Order of checks: Host/Origin (403) → method (405) → bearer token (401) → body size and shape (SDK: 413/415/400).
// The bearer check is the SDK's requireBearerAuth (an Express middleware, run on this request): it takes a
// user's static token (`svc_user_…`) or an OAuth access token issued for this /mcp, and its 401 names the
// protected resource metadata, from which an MCP client finds where to sign in. Without a token the request
// runs as no user, unless server.mcp_auth is "required".
import type { IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type { OAuthTokenVerifier } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { MCP_SCOPE } from '../auth/oauth/provider.js';
import { USER_TOKEN_PREFIX } from '../auth/users.js';
import type { HttpDeps } from './deps.js';
import type { User } from '../model/users.js';
import { BEARER_HINT, headerValue, MCP_PATH, sendRpcError, type HttpHandler } from './io.js';
import { resourceMetadataUrl } from './oauth.js';
import { runExpress } from './express-step.js';
import { createMcpServer } from '../mcp/mcp-server.js';
import type { Host } from '../abilities/runtime.js';

/**
 * True when the answer may be an SSE stream. A client that accepts only JSON gets JSON: the SDK's transport
 * insists on both media types even in its JSON mode, so the Accept header it reads is widened to say so.
 */
function negotiateSse(req: IncomingMessage): boolean {
  const accept = (headerValue(req, 'accept') ?? '*/*').toLowerCase();
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

/**
 * The SDK's bearer middleware as a step of our handler: the user of the request's token, or null when the
 * middleware has answered (401) itself.
 */
function bearerCheck(deps: HttpDeps, host: Host): (req: IncomingMessage, res: ServerResponse) => Promise<User | null> {
  const resource = deps.oauth?.provider.resource;
  const verifier: OAuthTokenVerifier = {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      if (token.startsWith(USER_TOKEN_PREFIX)) {
        const user = await host.userByToken(token);
        if (!user) throw new InvalidTokenError('invalid bearer token');
        // A static token does not expire; it acts on this resource only.
        return {
          token,
          clientId: 'svc-user-token',
          scopes: [MCP_SCOPE],
          expiresAt: Number.MAX_SAFE_INTEGER,
          resource: resource ? new URL(resource) : undefined,
          extra: { user },
        };
      }
      if (deps.oauth) return deps.oauth.provider.verifyAccessToken(token);
      throw new InvalidTokenError('invalid bearer token');
    },
  };
  const app = express();
  app.disable('x-powered-by');
  app.use(
    requireBearerAuth({
      verifier,
      // Named in the 401's challenge too (scope="mcp"), so a client asks for it when it signs in.
      requiredScopes: [MCP_SCOPE],
      resourceMetadataUrl: resource && resourceMetadataUrl(resource),
      expectedResource: resource ? new URL(resource) : undefined,
    }),
  );
  return async (req, res) => {
    if ((await runExpress(app, req, res)) === 'answered') return null;
    return ((req as IncomingMessage & { auth?: AuthInfo }).auth?.extra?.user as User | undefined) ?? null;
  };
}

export function createMcpHttpHandler(deps: HttpDeps, host: Host): HttpHandler {
  const cfg = deps.server;
  const log = deps.logger.child({ mcp: 'http' });
  const authenticate = bearerCheck(deps, host);

  return async (req, res, url) => {
    if (url.pathname !== MCP_PATH) return false;
    const origin = headerValue(req, 'origin');
    // Browsers on an allowed origin may call us; say so (the server's guard has already vetted the origin).
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
      sendRpcError(res, 405, 'Method not allowed: this stateless MCP endpoint answers POST only', {
        allow: 'POST, OPTIONS',
      });
      return true;
    }

    let user: User | null = null;
    if (req.headers.authorization !== undefined || cfg.mcp_auth === 'required') {
      user = await authenticate(req, res);
      if (!user) return true; // answered 401 (or 403 for a missing scope)
    }

    const server = createMcpServer({ host, user, logger: deps.logger, signInHint: BEARER_HINT });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: !negotiateSse(req),
      maxRequestBodySize: cfg.max_body_bytes,
    });
    transport.onerror = (err) => log.debug({ err: err.message }, 'mcp: request refused by the transport');
    res.once('close', () => void server.close());
    await server.connect(transport);
    await transport.handleRequest(req, res);
    return true;
  };
}
