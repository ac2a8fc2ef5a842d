// The /v1 REST facade over each project's backend (embedded or remote): routing, API-key auth, input validation, error mapping.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpDeps } from './deps.js';
import type { Backend } from '../backend/backend.js';
import type { ApiKeyInfo } from '../model/users.js';
import { PUBLIC_TOKEN_RE } from '../model/config.js';
import { bearerChallenge, bearerToken, HttpError, readJsonBody, sendJson, type HttpHandler } from './io.js';
import { BackendError } from '../model/errors.js';
import { openApiDocument } from './openapi.js';
import type { CrawlRequest } from '../model/types.js';
import {
  CrawlListQuerySchema,
  DeletePagesRequestSchema,
  LinkReportQuerySchema,
  PageContentQuerySchema,
  PageListQuerySchema,
  PageStateQuerySchema,
  SearchRequestSchema,
  SearchStatsQuerySchema,
  WebhookDeliveryListQuerySchema,
} from '../backend/contract.js';
import { parseInput, queryInput, wholeNumber } from './validate.js';
import { SEARCH_BODY_MAX_BYTES } from '../model/limits.js';
import { ScheduleSetSchema } from '../model/schedule.js';

interface Call {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  token: string;
  /** The project's backend. */
  backend: Backend;
  /** Path parameters, e.g. the crawl id. */
  params: string[];
}

type Action = (call: Call) => Promise<void>;
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

interface Route {
  /** Path segments after /v1/projects/<token>/; ':id' matches one segment. */
  path: string[];
  methods: Partial<Record<Method, Action>>;
  /** No API key needed (search). */
  public?: boolean;
}

const NOT_FOUND_PROJECT = () => new HttpError(404, 'not_found', 'unknown project');

function unauthorized(message: string, invalidToken: boolean): HttpError {
  return new HttpError(401, 'unauthorized', message, bearerChallenge(invalidToken));
}

/** BackendError → its status and code; everything else is left for the server's 500 (logged, never shown). */
function toHttpError(err: unknown): unknown {
  if (err instanceof BackendError) return new HttpError(err.status, err.code, err.message);
  return err;
}

function crawlId(raw: string): number {
  return wholeNumber(raw, 'id', 1, Number.MAX_SAFE_INTEGER, 'invalid_input', 'must be a positive integer');
}

const crawlNotFound = (id: number) => new HttpError(404, 'crawl_not_found', `no crawl ${id} in this project`);

/** A backend call on one crawl: its not_found becomes the REST code crawl_not_found. */
async function ofCrawl<T>(id: number, call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (err) {
    if (err instanceof BackendError && err.code === 'not_found') throw crawlNotFound(id);
    throw err;
  }
}

export function createV1Handler(deps: HttpDeps): HttpHandler {
  const maxBody = deps.server.max_body_bytes;
  const projectPath = (token: string) => `/v1/projects/${encodeURIComponent(token)}`;

  const routes: Route[] = [
    {
      path: ['crawls'],
      methods: {
        POST: async ({ req, res, token, backend }) => {
          // The backend validates the request (one validation for every surface).
          const record = await backend.startCrawl((await readJsonBody(req, maxBody)) as CrawlRequest);
          sendJson(res, 202, record, { location: `${projectPath(token)}/crawls/${record.id}` });
        },
        GET: async ({ res, url, backend }) => {
          const q = parseInput(CrawlListQuerySchema, queryInput(url, ['limit', 'offset']), 'query');
          sendJson(res, 200, { crawls: await backend.listCrawls(q), limit: q.limit, offset: q.offset });
        },
      },
    },
    {
      path: ['crawls', ':id'],
      methods: {
        GET: async ({ res, params, backend }) => {
          const id = crawlId(params[0]!);
          const record = await backend.getCrawl(id);
          if (!record) throw crawlNotFound(id);
          sendJson(res, 200, record);
        },
      },
    },
    {
      path: ['crawls', ':id', 'stop'],
      methods: {
        // The owner, in this process or another on the same database, stops it within one heartbeat.
        POST: async ({ res, params, backend }) => {
          const id = crawlId(params[0]!);
          sendJson(res, 202, await ofCrawl(id, backend.stopCrawl(id)));
        },
      },
    },
    {
      path: ['schedule'],
      methods: {
        GET: async ({ res, backend }) => {
          sendJson(res, 200, await backend.schedule());
        },
        // Replaces the config's schedule until DELETE; the serving processes follow it without a restart.
        PUT: async ({ req, res, backend }) => {
          const body = parseInput(ScheduleSetSchema, await readJsonBody(req, maxBody), 'body');
          sendJson(res, 200, await backend.setSchedule(body));
        },
        DELETE: async ({ res, backend }) => {
          sendJson(res, 200, await backend.setSchedule(null));
        },
      },
    },
    {
      path: ['crawls', ':id', 'changes'],
      methods: {
        // 409 (conflict) while the crawl has not ended.
        GET: async ({ res, params, backend }) => {
          const id = crawlId(params[0]!);
          sendJson(res, 200, await ofCrawl(id, backend.crawlChanges(id)));
        },
      },
    },
    {
      path: ['webhook-deliveries'],
      methods: {
        GET: async ({ res, url, backend }) => {
          const q = parseInput(WebhookDeliveryListQuerySchema, queryInput(url, ['limit', 'offset']), 'query');
          sendJson(res, 200, { deliveries: await backend.listWebhookDeliveries(q), limit: q.limit, offset: q.offset });
        },
      },
    },
    {
      path: ['link-report'],
      methods: {
        GET: async ({ res, url, backend }) => {
          const q = parseInput(LinkReportQuerySchema, queryInput(url, ['limit']), 'query');
          sendJson(res, 200, await backend.linkReport(q));
        },
      },
    },
    {
      path: ['search'],
      public: true,
      methods: {
        POST: async ({ req, res, backend }) => {
          // Public: a body bigger than any valid search is refused before it is read.
          const body = parseInput(
            SearchRequestSchema,
            await readJsonBody(req, Math.min(maxBody, SEARCH_BODY_MAX_BYTES)),
            'body',
          );
          sendJson(res, 200, await backend.search(body.terms, body.params ?? body.search_params ?? {}));
        },
      },
    },
    {
      path: ['search-stats'],
      methods: {
        GET: async ({ res, url, backend }) => {
          const q = parseInput(SearchStatsQuerySchema, queryInput(url, ['limit']), 'query');
          sendJson(res, 200, await backend.searchStats(q));
        },
      },
    },
    {
      path: ['pages'],
      methods: {
        // With url: one page's index state; without: the stored pages under a prefix.
        GET: async ({ res, url, backend }) => {
          if (!url.searchParams.has('url')) {
            const q = parseInput(PageListQuerySchema, queryInput(url, ['limit']), 'query');
            sendJson(res, 200, await backend.listPages(q));
            return;
          }
          const q = parseInput(PageStateQuerySchema, queryInput(url, []), 'query');
          sendJson(res, 200, await backend.pageIndexState(q.url));
        },
      },
    },
    {
      path: ['pages', 'content'],
      methods: {
        GET: async ({ res, url, backend }) => {
          const q = parseInput(PageContentQuerySchema, queryInput(url, ['start_index', 'max_length']), 'query');
          sendJson(res, 200, await backend.getPage(q));
        },
      },
    },
    {
      path: ['pages', 'delete'],
      methods: {
        POST: async ({ req, res, backend }) => {
          const body = parseInput(DeletePagesRequestSchema, await readJsonBody(req, maxBody), 'body');
          sendJson(res, 200, await backend.deletePages(body.urls));
        },
      },
    },
  ];

  function match(rest: string[]): { route: Route; params: string[] } | null {
    for (const route of routes) {
      if (route.path.length !== rest.length) continue;
      const params: string[] = [];
      if (
        route.path.every((seg, i) => {
          if (seg !== ':id') return seg === rest[i];
          params.push(rest[i]!);
          return true;
        })
      )
        return { route, params };
    }
    return null;
  }

  async function authenticate(req: IncomingMessage, project: string | null): Promise<ApiKeyInfo> {
    const key = bearerToken(req);
    if (key === null) throw unauthorized('missing API key: send the header "Authorization: Bearer <API_KEY>"', false);
    if (key === undefined) throw unauthorized('the Authorization header must be "Bearer <API_KEY>"', false);
    const info = await deps.verifyApiKey(key, project ?? undefined);
    if (!info) throw unauthorized('the API key is not valid', true);
    return info;
  }

  /** The request's method among `allowed` (HEAD counts as GET), or 405 listing them. */
  function methodOf(req: IncomingMessage, allowed: Method[]): Method {
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    const found = allowed.find((m) => m === method);
    if (found) return found;
    const list = allowed.flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m])).join(', ');
    throw new HttpError(405, 'method_not_allowed', `method not allowed here; use ${list}`, { allow: list });
  }

  async function handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const segs = url.pathname.split('/').slice(2);
    if (segs.length === 1 && segs[0] === 'openapi.json') {
      methodOf(req, ['GET']);
      sendJson(res, 200, openApiDocument());
      return;
    }
    if (segs[0] !== 'projects' || segs.length < 3)
      throw new HttpError(404, 'not_found', `no route for ${url.pathname}`);
    const found = match(segs.slice(2));
    if (!found) throw new HttpError(404, 'not_found', `no route for ${url.pathname}`);
    const method = methodOf(req, Object.keys(found.route.methods) as Method[]);
    let token: string | null;
    try {
      token = decodeURIComponent(segs[1]!);
    } catch {
      token = null;
    }
    // The key is checked before the project, so an answer never tells a caller without one whether a project exists.
    const key = found.route.public ? null : await authenticate(req, token);
    if (token === null) throw NOT_FOUND_PROJECT();
    const backend = PUBLIC_TOKEN_RE.test(token) ? deps.projectBackend(token) : null;
    if (!backend || (key && key.project !== token)) throw NOT_FOUND_PROJECT();
    await found.route.methods[method]!({ req, res, url, token, backend, params: found.params });
  }

  return async (req, res, url) => {
    if (url.pathname !== '/v1' && !url.pathname.startsWith('/v1/')) return false;
    try {
      await handle(req, res, url);
    } catch (err) {
      if (err instanceof BackendError && err.status >= 500)
        deps.logger.warn({ code: err.code, upstreamStatus: err.upstreamStatus, path: url.pathname }, err.message);
      throw toHttpError(err);
    }
    return true;
  };
}
