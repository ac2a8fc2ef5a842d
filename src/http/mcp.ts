// MCP over Streamable HTTP at /mcp (POST), both protocol eras from one server definition, stateless: every
// request gets a fresh server, so a restart breaks no client and no session state exists to lose.
// - 2026-07-28 requests (the protocol version, client capabilities and client info in every request's _meta;
//   `server/discover` for what the server offers) go to the SDK's createMcpHandler, which checks the
//   MCP-Protocol-Version, Mcp-Method and Mcp-Name headers against the body (-32020, HTTP 400), refuses an unknown
//   version (-32022 naming the supported ones) and adds resultType, ttlMs and cacheScope. It answers JSON, and
//   upgrades to an SSE stream when a notification (progress, logging) comes before the result.
// - 2025 requests (`initialize`, then calls without _meta versions) go to a stateless Streamable HTTP transport
//   per request: an SSE stream when the client accepts text/event-stream (as MCP clients must; progress and
//   logging notifications ride on it before the result), plain JSON otherwise (curl, scripts), which the
//   transport allows but then sends no notifications. No session id is issued, so GET and DELETE get 405.
// Order of checks: Host/Origin (403, the server's guard) → method (405) → bearer token (401) → body size and
// shape (SDK: 413/415/400; a JSON-RPC batch: 400 with -32600, as 2025-06-18 and later have none). The bearer check is the SDK's resource-server helper: it takes a user's static token
// (`svc_user_…`) or an OAuth access token issued for this /mcp, and its 401 names the protected resource
// metadata, from which an MCP client finds where to sign in. Without a token the request runs as no user, unless
// server.mcp_auth is "required".
import type { IncomingMessage, ServerResponse } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  bearerAuthChallengeResponse,
  createMcpHandler,
  isLegacyRequest,
  OAuthError,
  OAuthErrorCode,
  verifyBearerToken,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type McpHandlerRequestOptions,
  type McpHttpHandler,
  type OAuthTokenVerifier,
} from '@modelcontextprotocol/server';
import { MCP_SCOPE } from '../auth/oauth/authorization-server.js';
import { USER_TOKEN_PREFIX } from '../auth/users.js';
import type { HttpDeps } from './deps.js';
import type { User } from '../model/users.js';
import { BEARER_HINT, headerValue, MCP_PATH, sendRpcError, type HttpHandler } from './io.js';
import { resourceMetadataUrl } from './oauth.js';
import { createMcpServer } from '../mcp/mcp-server.js';
import type { AbilityHost } from '../abilities/runtime.js';

/**
 * True when a 2025 answer may be an SSE stream. A client that accepts only JSON gets JSON (the transport's JSON
 * mode), and so does one that accepts neither (the transport answers 406).
 */
function acceptsSse(req: IncomingMessage): boolean {
  const accept = (headerValue(req, 'accept') ?? '*/*').toLowerCase();
  return accept.includes('text/event-stream') || !/application\/json|application\/\*|\*\/\*/.test(accept);
}

/** The SDK's transport insists on both media types even in its JSON mode, so the Accept header it reads says so. */
function acceptingBoth(request: Request): Request {
  const headers = new Headers(request.headers);
  headers.set('accept', 'application/json, text/event-stream');
  return new Request(request, { headers });
}

/** Writes a web Response (the SDK's 401/403 challenge) to the node response. */
async function sendResponse(res: ServerResponse, answer: Response): Promise<void> {
  res.writeHead(answer.status, Object.fromEntries(answer.headers));
  res.end(Buffer.from(await answer.arrayBuffer()));
}

/**
 * The bearer check: the user of the request's token, or null when it has answered (401, or 403 for a missing
 * scope) itself.
 */
function bearerCheck(
  deps: HttpDeps,
  host: AbilityHost,
): (req: IncomingMessage, res: ServerResponse) => Promise<AuthInfo | null> {
  const resource = deps.oauth?.provider.resource;
  const verifier: OAuthTokenVerifier = {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      if (token.startsWith(USER_TOKEN_PREFIX)) {
        const user = await host.userByToken(token);
        if (!user) throw new OAuthError(OAuthErrorCode.InvalidToken, 'invalid bearer token');
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
      throw new OAuthError(OAuthErrorCode.InvalidToken, 'invalid bearer token');
    },
  };
  const options = {
    verifier,
    // Named in the 401's challenge too (scope="mcp"), so a client asks for it when it signs in.
    requiredScopes: [MCP_SCOPE],
    resourceMetadataUrl: resource && resourceMetadataUrl(resource),
    expectedResource: resource ? new URL(resource) : undefined,
  };
  return async (req, res) => {
    try {
      return await verifyBearerToken(headerValue(req, 'authorization'), options);
    } catch (err) {
      await sendResponse(res, bearerAuthChallengeResponse(err, options));
      return null;
    }
  };
}

/**
 * A JSON-RPC batch (the body is an array) is refused: the revisions svc speaks (2025-06-18 and later) have none,
 * and one request carrying a hundred calls would count once against the request rate limit.
 */
async function isBatch(request: Request): Promise<boolean> {
  const text = await request.clone().text();
  return /^\s*\[/.test(text);
}

const BATCH_REFUSED = {
  jsonrpc: '2.0',
  id: null,
  error: {
    code: -32600,
    message:
      'Invalid Request: JSON-RPC batches are not accepted (MCP 2025-06-18 and later have none); send one message per request',
  },
} as const;

const userOf = (auth: AuthInfo | undefined): User | null => (auth?.extra?.user as User | undefined) ?? null;

export function createMcpHttpHandler(deps: HttpDeps, host: AbilityHost): HttpHandler {
  const cfg = deps.server;
  const log = deps.logger.child({ mcp: 'http' });
  const authenticate = bearerCheck(deps, host);
  const onerror = (err: Error) => log.debug({ err: err.message }, 'mcp: request refused');
  const serverFor = (auth: AuthInfo | undefined, era: 'legacy' | 'modern') =>
    createMcpServer({ host, user: userOf(auth), logger: deps.logger, signInHint: BEARER_HINT, era });
  // Only 2026-07-28 traffic reaches these: the 2025 leg below keeps the answers 2025 clients had (JSON for
  // JSON-only clients), which the SDK's own stateless fallback would not. A 2026-07-28 client that accepts only
  // JSON gets JSON too, without the notifications an SSE stream would carry before the result.
  const modernOptions = { legacy: 'reject', maxRequestBodySize: cfg.max_body_bytes, onerror } as const;
  const modern = createMcpHandler(({ authInfo }) => serverFor(authInfo, 'modern'), modernOptions);
  // Made on first use: the SDK says on stderr, once, that this mode drops notifications (as meant here).
  let modernJson: McpHttpHandler | undefined;
  const modernFor = (sse: boolean) =>
    sse
      ? modern
      : (modernJson ??= createMcpHandler(({ authInfo }) => serverFor(authInfo, 'modern'), {
          ...modernOptions,
          responseMode: 'json',
        }));

  /** One 2025 request on its own server and transport, closed when the node response closes. */
  const legacy = async (
    request: Request,
    options: McpHandlerRequestOptions | undefined,
    sse: boolean,
    res: ServerResponse,
  ): Promise<Response> => {
    const server = serverFor(options?.authInfo, 'legacy');
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: !sse,
      maxRequestBodySize: cfg.max_body_bytes,
    });
    transport.onerror = onerror;
    res.once('close', () => void server.close());
    await server.connect(transport);
    return transport.handleRequest(sse ? request : acceptingBoth(request), {
      authInfo: options?.authInfo,
      parsedBody: options?.parsedBody,
    });
  };

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
        'access-control-allow-headers':
          'authorization, content-type, accept, mcp-protocol-version, mcp-method, mcp-name, last-event-id',
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

    let auth: AuthInfo | undefined;
    if (req.headers.authorization !== undefined || cfg.mcp_auth === 'required') {
      auth = (await authenticate(req, res)) ?? undefined;
      if (!auth) return true; // answered 401 (or 403 for a missing scope)
    }

    const sse = acceptsSse(req);
    const serve = toNodeHandler(
      {
        fetch: async (request, options) => {
          if (await isBatch(request)) return Response.json(BATCH_REFUSED, { status: 400 });
          return (await isLegacyRequest(request, undefined, { maxRequestBodySize: cfg.max_body_bytes }))
            ? legacy(request, options, sse, res)
            : modernFor(sse).fetch(request, options);
        },
      },
      { onerror, maxRequestBodySize: cfg.max_body_bytes },
    );
    await serve(Object.assign(req, { auth }), res);
    return true;
  };
}
