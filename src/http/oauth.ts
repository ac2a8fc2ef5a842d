// The OAuth 2.1 endpoints of `svc serve`, our own Express handlers mounted on our plain node:http server as one
// more route handler: RFC 8414 metadata, RFC 9728 metadata of /mcp (at the root and path-suffixed well-known
// URLs), RFC 7591 registration, /authorize (the authorization server decides, the sign-in page asks the user),
// /token and /revoke. The handlers only read requests and write answers. Every endpoint limits the requests of
// one address, and the ones a browser app calls answer CORS. Requests whose Host is not ours were refused (403,
// DNS rebinding) by the server's guard before they get here.
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { AttemptLimiter } from '../auth/oauth/attempt-limiter.js';
import { OAuthError } from '../auth/oauth/errors.js';
import { MCP_SCOPE, type AuthorizationServer } from '../auth/oauth/authorization-server.js';
import type { Logger } from '../lib/log.js';
import { sendJson, type HttpHandler } from './io.js';
import { runExpress } from './express-step.js';
import type { AuthorizePage } from './oauth-page.js';

const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';
const BODY_LIMIT = '64kb';

/** RFC 9728: the path-suffixed metadata URL of a resource (what a 401 from /mcp points to). */
export function resourceMetadataUrl(resource: string): string {
  const u = new URL(resource);
  return new URL(`${PROTECTED_RESOURCE_METADATA_PATH}${u.pathname === '/' ? '' : u.pathname}`, u).href;
}

function sendError(res: Response, err: OAuthError, headers: Record<string, string> = {}): void {
  res
    .status(err.status)
    .set({ 'cache-control': 'no-store', ...headers })
    .json(err.toResponseObject());
}

function allowMethods(methods: string[]): RequestHandler {
  return (req, res, next) => {
    if (methods.includes(req.method)) return next();
    sendError(
      res,
      new OAuthError('method_not_allowed', `${req.method} is not allowed here (${methods.join(', ')})`, 405),
      { allow: methods.join(', ') },
    );
  };
}

/** Browser apps on other origins (the server's guard has vetted the Origin) may read these answers. */
function cors(methods: string[]): RequestHandler {
  return (req, res, next) => {
    res.set('access-control-allow-origin', '*');
    if (req.method !== 'OPTIONS') return next();
    res
      .status(204)
      .set({
        'access-control-allow-methods': methods.join(', '),
        'access-control-allow-headers': 'authorization, content-type, mcp-protocol-version',
        'access-control-max-age': '600',
      })
      .end();
  };
}

/** At most `max` requests of one address in the window: a flood of registrations or guesses is cut short. */
function perAddress(max: number, windowMs: number, what: string): RequestHandler {
  const seen = new AttemptLimiter({ max, windowMs });
  return (req, res, next) => {
    const address = req.socket.remoteAddress ?? 'unknown';
    const wait = seen.retryAfter(address);
    if (wait > 0)
      return sendError(
        res,
        new OAuthError('too_many_requests', `too many ${what} requests from this address; try again in ${wait} s`, 429),
        { 'retry-after': String(wait) },
      );
    seen.fail(address);
    next();
  };
}

/** The body (or, for a GET, the query) as a plain record of parameters. */
function paramsOf(req: Request): Record<string, unknown> {
  const p: unknown = req.method === 'POST' ? req.body : req.query;
  return typeof p === 'object' && p !== null && !Array.isArray(p) ? (p as Record<string, unknown>) : {};
}

export interface OAuthHttpOptions {
  server: AuthorizationServer;
  page: AuthorizePage;
  /** The issuer: the origin clients reach us at. */
  issuer: URL;
  logger: Logger;
}

export function createOAuthHandler(opts: OAuthHttpOptions): HttpHandler {
  const { server, issuer, page } = opts;
  const endpoint = (path: string) => new URL(path, issuer).href;
  const metadata = {
    issuer: server.issuer,
    authorization_endpoint: endpoint('/authorize'),
    token_endpoint: endpoint('/token'),
    registration_endpoint: endpoint('/register'),
    revocation_endpoint: endpoint('/revoke'),
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    // Clients are public (PKCE is their proof): no secret is issued, so none is accepted.
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    scopes_supported: [MCP_SCOPE],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
  };
  const resource = {
    resource: server.resource,
    authorization_servers: [server.issuer],
    scopes_supported: [MCP_SCOPE],
    bearer_methods_supported: ['header'],
    resource_name: 'svc',
  };
  const resourcePaths = [PROTECTED_RESOURCE_METADATA_PATH, new URL(resourceMetadataUrl(server.resource)).pathname];
  const paths = new Set([
    '/authorize',
    '/token',
    '/register',
    '/revoke',
    '/.well-known/oauth-authorization-server',
    ...resourcePaths,
  ]);
  const log = opts.logger.child({ oauth: true });
  const minutes = (n: number) => n * 60 * 1000;

  const app = express();
  app.disable('x-powered-by');
  const json =
    (body: object): RequestHandler =>
    (_req, res) =>
      void res.status(200).json(body);
  app.use('/.well-known/oauth-authorization-server', cors(['GET']), allowMethods(['GET']), json(metadata));
  for (const path of resourcePaths) app.use(path, cors(['GET']), allowMethods(['GET']), json(resource));

  app.use(
    '/authorize',
    allowMethods(['GET', 'POST']),
    perAddress(100, minutes(15), 'authorization'),
    express.urlencoded({ extended: false, limit: BODY_LIMIT }),
    async (req, res) => {
      res.set('cache-control', 'no-store');
      const outcome = await server.authorizationRequest(paramsOf(req));
      if ('refuse' in outcome) return sendError(res, outcome.refuse);
      if ('redirect' in outcome) return res.redirect(302, outcome.redirect);
      await page(server, outcome.page, res);
    },
  );

  const form = express.urlencoded({ extended: false, limit: BODY_LIMIT });
  app.use(
    '/token',
    cors(['POST']),
    allowMethods(['POST']),
    perAddress(50, minutes(15), 'token'),
    form,
    async (req, res) => {
      res.set('cache-control', 'no-store');
      res.status(200).json(await server.token(paramsOf(req)));
    },
  );
  app.use(
    '/revoke',
    cors(['POST']),
    allowMethods(['POST']),
    perAddress(50, minutes(15), 'revocation'),
    form,
    async (req, res) => {
      res.set('cache-control', 'no-store');
      await server.revoke(paramsOf(req));
      res.status(200).json({});
    },
  );
  app.use(
    '/register',
    cors(['POST']),
    allowMethods(['POST']),
    perAddress(20, minutes(60), 'registration'),
    express.json({ limit: BODY_LIMIT }),
    async (req, res) => {
      res.set('cache-control', 'no-store');
      res.status(201).json(await server.register(req.body));
    },
  );

  // OAuth errors as RFC 6749 answers; body parser refusals (bad JSON, too large) and anything else thrown: an
  // OAuth error object, never a stack.
  app.use((err: Error & { status?: number; type?: string }, _req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) return void res.end();
    if (err instanceof OAuthError) return sendError(res, err);
    const status = err.status && err.status >= 400 && err.status < 500 ? err.status : 500;
    if (status === 500) log.error({ err }, 'oauth: request failed');
    const message =
      status === 500
        ? 'internal error'
        : err.type === 'entity.parse.failed'
          ? 'request body does not parse'
          : err.message;
    sendError(res, new OAuthError(status === 500 ? 'server_error' : 'invalid_request', message, status));
  });

  return async (req, res, url) => {
    if (!paths.has(url.pathname)) return false;
    // 'next': the path is ours but no handler took it (a sub-path the handlers do not answer).
    if ((await runExpress(app, req, res)) === 'next' && !res.headersSent) {
      sendJson(res, 404, { error: 'invalid_request', error_description: `no route for ${req.method} ${url.pathname}` });
    }
    return true;
  };
}
