// The OAuth 2.1 endpoints of `svc serve`, made of the MCP SDK's Express handlers and mounted on our plain
// node:http server as one more route handler: RFC 8414 metadata, RFC 9728 metadata of /mcp (at the root and
// path-suffixed well-known URLs), RFC 7591 registration, /authorize (the SDK checks the request; the provider
// and the sign-in page decide), /token and /revoke. Requests whose Host is not ours get 403 (DNS rebinding).
import express, { type NextFunction, type Request, type Response } from 'express';
import { authorizationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/authorize.js';
import { metadataHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/metadata.js';
import { clientRegistrationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/register.js';
import { revocationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/revoke.js';
import { tokenHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/token.js';
import { createOAuthMetadata } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { InvalidRequestError, ServerError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { MCP_SCOPE, type SvcOAuthProvider } from '../auth/oauth/provider.js';
import type { Logger } from '../lib/log.js';
import { sendJson, type HttpHandler } from './io.js';
import { runExpress } from './express-step.js';

const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/** RFC 9728: the path-suffixed metadata URL of a resource (what a 401 from /mcp points to). */
export function resourceMetadataUrl(resource: string): string {
  const u = new URL(resource);
  return new URL(`${PROTECTED_RESOURCE_METADATA_PATH}${u.pathname === '/' ? '' : u.pathname}`, u).href;
}

/**
 * The SDK's /authorize handler leaves `state` out of the error redirect when the request's own parameters fail
 * (a `plain` PKCE method, say); the client needs it back to match the answer to its request (RFC 6749 4.1.2.1).
 */
function keepStateOnErrors(req: Request, res: Response, next: NextFunction): void {
  const params = (req.method === 'POST' ? req.body : req.query) as Record<string, unknown> | undefined;
  const state = params?.state;
  if (typeof state === 'string' && state) {
    const redirect = res.redirect.bind(res) as (status: number, url: string) => void;
    res.redirect = ((status: number, url: string) => {
      const u = new URL(url);
      if (u.searchParams.has('error') && !u.searchParams.has('state')) u.searchParams.set('state', state);
      redirect(status, u.href);
    }) as Response['redirect'];
  }
  next();
}

export interface OAuthHttpOptions {
  provider: SvcOAuthProvider;
  /** The issuer: the origin clients reach us at. */
  issuer: URL;
  logger: Logger;
}

export function createOAuthHandler(opts: OAuthHttpOptions): HttpHandler {
  const { provider, issuer } = opts;
  const metadata = {
    ...createOAuthMetadata({ provider, issuerUrl: issuer, scopesSupported: [MCP_SCOPE] }),
    // Clients are public (PKCE is their proof): no secret is issued, so none is accepted.
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
  };
  const resource: OAuthProtectedResourceMetadata = {
    resource: provider.resource,
    authorization_servers: [metadata.issuer],
    scopes_supported: [MCP_SCOPE],
    bearer_methods_supported: ['header'],
    resource_name: 'svc',
  };
  const paths = new Set([
    '/authorize',
    '/token',
    '/register',
    '/revoke',
    '/.well-known/oauth-authorization-server',
    PROTECTED_RESOURCE_METADATA_PATH,
    new URL(resourceMetadataUrl(provider.resource)).pathname,
  ]);
  const log = opts.logger.child({ oauth: true });

  const app = express();
  app.disable('x-powered-by');
  app.use(
    '/authorize',
    express.urlencoded({ extended: false, limit: '64kb' }),
    keepStateOnErrors,
    authorizationHandler({ provider }),
  );
  app.use('/token', tokenHandler({ provider }));
  app.use(
    '/register',
    clientRegistrationHandler({ clientsStore: provider.clientsStore, clientSecretExpirySeconds: 0 }),
  );
  app.use('/revoke', revocationHandler({ provider }));
  app.use('/.well-known/oauth-authorization-server', metadataHandler(metadata));
  for (const path of paths)
    if (path.startsWith(PROTECTED_RESOURCE_METADATA_PATH)) app.use(path, metadataHandler(resource));
  // Body parser refusals (bad JSON, too large) and anything thrown: an OAuth error object, never a stack.
  app.use((err: Error & { status?: number; type?: string }, _req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) return void res.end();
    const status = err.status && err.status >= 400 && err.status < 500 ? err.status : 500;
    if (status === 500) log.error({ err }, 'oauth: request failed');
    const e =
      status === 500
        ? new ServerError('internal error')
        : new InvalidRequestError(err.type === 'entity.parse.failed' ? 'request body does not parse' : err.message);
    res.status(status).set('cache-control', 'no-store').json(e.toResponseObject());
  });

  return async (req, res, url) => {
    // The server's Host/Origin guard has already refused foreign names, for these paths as for every other.
    if (!paths.has(url.pathname)) return false;
    // 'next': the path is ours but no handler took it (a method or sub-path the handlers do not answer).
    if ((await runExpress(app, req, res)) === 'next' && !res.headersSent) {
      sendJson(res, 404, { error: 'invalid_request', error_description: `no route for ${req.method} ${url.pathname}` });
    }
    return true;
  };
}
