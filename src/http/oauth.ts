// The OAuth 2.1 endpoints of `svc serve`, one route handler of our node:http server like every other: RFC 8414
// metadata, RFC 9728 metadata of /mcp (at the root and path-suffixed well-known URLs), RFC 7591 registration,
// /authorize (the authorization server decides, the sign-in page asks the user), /token and /revoke. The handler
// only reads requests and writes answers. Every endpoint limits the requests of one address, and the ones a
// browser app calls answer CORS. Requests whose Host is not ours were refused (403, DNS rebinding) by the server's
// guard before they get here.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AttemptLimiter } from '../auth/oauth/attempt-limiter.js';
import { MCP_SCOPE, type AuthorizationServer } from '../auth/oauth/authorization-server.js';
import { OAuthError } from '../auth/oauth/errors.js';
import type { Logger } from '../lib/log.js';
import { HttpError, mediaType, readBody, sendJson, type HttpHandler } from './io.js';
import type { AuthorizePage } from './oauth-page.js';

const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';
const BODY_LIMIT = 64 * 1024;
/** More parameters than any OAuth request has: a form past this is refused before it is parsed. */
const MAX_PARAMETERS = 1000;

/** RFC 9728: the path-suffixed metadata URL of a resource (what a 401 from /mcp points to). */
export function resourceMetadataUrl(resource: string): string {
  const u = new URL(resource);
  return new URL(`${PROTECTED_RESOURCE_METADATA_PATH}${u.pathname === '/' ? '' : u.pathname}`, u).href;
}

type Params = Record<string, unknown>;

/** An endpoint: the methods it answers, whether browser apps may call it, its limit per address, and its body. */
interface Endpoint {
  methods: string[];
  cors: boolean;
  limiter?: { seen: AttemptLimiter; what: string };
  body?: 'form' | 'json';
  answer(req: IncomingMessage, res: ServerResponse, params: unknown): Promise<void>;
}

function sendError(res: ServerResponse, err: OAuthError, headers: Record<string, string> = {}): void {
  sendJson(res, err.status, err.toResponseObject(), headers);
}

/** Metadata documents may be cached by clients: no cache-control of ours. */
function sendMetadata(res: ServerResponse, body: object): void {
  const text = JSON.stringify(body);
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * Form parameters as a record; a parameter given twice becomes an array, which the authorization server refuses
 * by name (two values could mean two things).
 */
export function formParams(text: string): Params {
  const params: Params = Object.create(null) as Params;
  for (const [k, v] of new URLSearchParams(text)) {
    const had = params[k];
    params[k] = had === undefined ? v : Array.isArray(had) ? [...had, v] : [had, v];
  }
  return params;
}

/** The body of a POST as its endpoint reads it; undefined when its Content-Type is not the endpoint's. */
async function readParams(req: IncomingMessage, kind: 'form' | 'json'): Promise<unknown> {
  const want = kind === 'form' ? 'application/x-www-form-urlencoded' : 'application/json';
  if (mediaType(req) !== want) {
    req.resume();
    return undefined;
  }
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8') {
    req.resume();
    throw new OAuthError('invalid_request', `unsupported charset "${charset.toUpperCase()}"`, 415);
  }
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding !== 'identity') {
    req.resume();
    throw new OAuthError('invalid_request', `unsupported content encoding "${encoding}"`, 415);
  }
  const text = (await readBody(req, BODY_LIMIT)).toString('utf8');
  if (kind === 'form') {
    if (text.split('&').length > MAX_PARAMETERS) throw new OAuthError('invalid_request', 'too many parameters', 413);
    return formParams(text);
  }
  if (text.trim() === '') return {};
  // Only an object or an array is a JSON body here; a bare string or number is a client's mistake.
  if (!/^[\s]*[[{]/.test(text)) throw new OAuthError('invalid_request', 'request body does not parse', 400);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new OAuthError('invalid_request', 'request body does not parse', 400);
  }
}

/** A record of parameters from what was read (the server refuses what a record lacks, by name). */
function asParams(p: unknown): Params {
  return typeof p === 'object' && p !== null && !Array.isArray(p) ? (p as Params) : {};
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
  const log = opts.logger.child({ oauth: true });
  const minutes = (n: number) => n * 60 * 1000;
  /** At most `max` requests of one address in the window: a flood of registrations or guesses is cut short. */
  const perAddress = (max: number, windowMs: number, what: string) => ({
    seen: new AttemptLimiter({ max, windowMs }),
    what,
  });
  const noStore = (res: ServerResponse) => res.setHeader('cache-control', 'no-store');

  const document = (body: object): Endpoint => ({
    methods: ['GET'],
    cors: true,
    answer: async (_req, res) => sendMetadata(res, body),
  });
  const endpoints = new Map<string, Endpoint>([
    ['/.well-known/oauth-authorization-server', document(metadata)],
    [PROTECTED_RESOURCE_METADATA_PATH, document(resource)],
    [new URL(resourceMetadataUrl(server.resource)).pathname, document(resource)],
    [
      '/authorize',
      {
        methods: ['GET', 'POST'],
        cors: false,
        limiter: perAddress(100, minutes(15), 'authorization'),
        body: 'form',
        answer: async (req, res, params) => {
          noStore(res);
          const outcome = await server.authorizationRequest(asParams(params));
          if ('refuse' in outcome) return sendError(res, outcome.refuse);
          if ('redirect' in outcome) {
            res.writeHead(302, { location: outcome.redirect });
            return void res.end();
          }
          await page(server, outcome.page, req, res, asParams(params));
        },
      },
    ],
    [
      '/token',
      {
        methods: ['POST'],
        cors: true,
        limiter: perAddress(50, minutes(15), 'token'),
        body: 'form',
        answer: async (_req, res, params) => sendJson(res, 200, await server.token(asParams(params))),
      },
    ],
    [
      '/revoke',
      {
        methods: ['POST'],
        cors: true,
        limiter: perAddress(50, minutes(15), 'revocation'),
        body: 'form',
        answer: async (_req, res, params) => {
          await server.revoke(asParams(params));
          sendJson(res, 200, {});
        },
      },
    ],
    [
      '/register',
      {
        methods: ['POST'],
        cors: true,
        limiter: perAddress(20, minutes(60), 'registration'),
        body: 'json',
        answer: async (_req, res, params) => sendJson(res, 201, await server.register(params)),
      },
    ],
  ]);

  /** The steps every endpoint takes in order: CORS, the method, the limit per address, the body, the answer. */
  async function serve(e: Endpoint, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const method = req.method ?? 'GET';
    if (e.cors) {
      // Browser apps on other origins (the server's guard has vetted the Origin) may read these answers.
      res.setHeader('access-control-allow-origin', '*');
      if (method === 'OPTIONS') {
        res.writeHead(204, {
          'access-control-allow-methods': e.methods.join(', '),
          'access-control-allow-headers': 'authorization, content-type, mcp-protocol-version',
          'access-control-max-age': '600',
        });
        return void res.end();
      }
    }
    if (!e.methods.includes(method)) {
      req.resume();
      const allowed = e.methods.join(', ');
      return sendError(res, new OAuthError('method_not_allowed', `${method} is not allowed here (${allowed})`, 405), {
        allow: allowed,
      });
    }
    if (e.limiter) {
      const address = req.socket.remoteAddress ?? 'unknown';
      const wait = e.limiter.seen.retryAfter(address);
      if (wait > 0) {
        req.resume();
        const message = `too many ${e.limiter.what} requests from this address; try again in ${wait} s`;
        return sendError(res, new OAuthError('too_many_requests', message, 429), { 'retry-after': String(wait) });
      }
      e.limiter.seen.fail(address);
    }
    const params =
      method === 'POST' && e.body ? await readParams(req, e.body) : e.body ? formParams(url.search) : undefined;
    await e.answer(req, res, params);
  }

  return async (req, res, url) => {
    const e = endpoints.get(url.pathname);
    if (!e) return false;
    try {
      await serve(e, req, res, url);
    } catch (err) {
      // OAuth errors as RFC 6749 answers; a body refused (too large) and anything else thrown: an OAuth error
      // object, never a stack.
      if (res.headersSent) res.end();
      else if (err instanceof OAuthError) sendError(res, err);
      else if (err instanceof HttpError && err.status < 500)
        sendError(res, new OAuthError('invalid_request', err.message, err.status));
      else {
        log.error({ err }, 'oauth: request failed');
        sendError(res, new OAuthError('server_error', 'internal error', 500));
      }
    }
    return true;
  };
}
