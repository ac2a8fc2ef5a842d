// The host's ability routes, as the host CMS's REST API has them:
//   GET  {rest_root}/abilities/v1/abilities                 list (paged: page, per_page; filter: category)
//   GET  {rest_root}/abilities/v1/abilities/<name>          describe (the slash as %2F, or literal)
//   POST {rest_root}/abilities/v1/abilities/<name>/run      run with {"input": …}; GET ?input=<JSON> for read-only
//        abilities, DELETE ?input=<JSON> for destructive ones
//   GET  {rest_root}/abilities/v1/categories[/<slug>]
// A run answers the ability's output itself; errors are {code, message, data: {status, …}}.
// Authorization: Bearer <user token> sets the current user; no header, no user; a wrong token is refused (401).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpDeps } from './deps.js';
import { wholeNumber } from './validate.js';
import { AbilityError, type RegisteredAbility } from '../abilities/types.js';
import {
  BEARER_HINT,
  bearerChallenge,
  bearerToken,
  HttpError,
  readBody,
  readJsonBody,
  sendJson,
  type HttpHandler,
} from './io.js';
import type { User } from '../model/users.js';
import type { AbilityHost } from '../abilities/runtime.js';
import { SEARCH_BODY_MAX_BYTES } from '../model/limits.js';

const RUN_PATH_RE = /^([^/]+\/[^/]+)\/run$/;
const PER_PAGE_DEFAULT = 50;
const PER_PAGE_MAX = 100;

function sendError(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  data: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { code, message, data: { status, ...data } }, headers);
}

/** The describe/list item, as the host's API publishes it. */
export function describeAbility(a: RegisteredAbility) {
  return {
    name: a.name,
    label: a.label,
    description: a.description,
    category: a.category,
    input_schema: a.inputJsonSchema,
    output_schema: a.outputJsonSchema,
    meta: { annotations: { ...a.annotations }, capability: a.capability, show_in_rest: true },
  };
}

function intParam(url: URL, name: string, def: number, min: number, max: number): number {
  const raw = url.searchParams.get(name);
  return raw === null ? def : wholeNumber(raw, name, min, max, 'rest_invalid_param');
}

/** `?input=<URL-encoded JSON>`; absent → no input. */
function inputParam(url: URL): unknown {
  const raw = url.searchParams.get('input');
  if (raw === null || raw === '') return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw new HttpError(
      400,
      'rest_invalid_param',
      'input: must be URL-encoded JSON, e.g. ?input=%7B%22terms%22%3A%22hello%22%7D',
    );
  }
}

/** The body of a POST run: {"input": …}, or nothing at all. */
async function bodyInput(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  if (req.headers['content-type'] === undefined) {
    // A bare POST (e.g. curl -X POST for a crawl) carries no input.
    if ((await readBody(req, maxBytes)).length)
      throw new HttpError(400, 'invalid_content_type', 'Content-Type must be application/json');
    return undefined;
  }
  const body: unknown = await readJsonBody(req, maxBytes);
  if (body === undefined || body === null) return undefined;
  if (typeof body !== 'object' || Array.isArray(body))
    throw new HttpError(400, 'rest_invalid_param', 'the request body must be a JSON object {"input": …}');
  const extra = Object.keys(body).filter((k) => k !== 'input');
  if (extra.length) {
    throw new HttpError(
      400,
      'rest_invalid_param',
      `unknown field(s) ${extra.map((k) => `"${k}"`).join(', ')} in the request body: send the ability's input as {"input": {…}}`,
    );
  }
  return (body as { input?: unknown }).input;
}

function allowedRunMethods(a: RegisteredAbility): string[] {
  const m = ['POST'];
  if (a.annotations.readonly) m.unshift('GET');
  if (a.annotations.destructive) m.push('DELETE');
  return m;
}

export function createAbilityRoutesHandler(deps: HttpDeps, host: AbilityHost): HttpHandler {
  const root = `${deps.restRoot}/abilities/v1`;
  const maxBytes = deps.server.max_body_bytes;

  async function currentUser(req: IncomingMessage): Promise<User | null> {
    const token = bearerToken(req);
    if (token === null) return null;
    const user = token === undefined ? null : await host.userByToken(token);
    if (!user) {
      throw new HttpError(
        401,
        'ability_invalid_permissions',
        'the bearer token is not valid: it belongs to no user',
        bearerChallenge(true),
      );
    }
    return user;
  }

  function findAbility(name: string): RegisteredAbility {
    const a = host.registry.get(name);
    if (!a)
      throw new HttpError(
        404,
        'ability_not_found',
        `no ability named "${name}"${host.disabledReason ? ` (${host.disabledReason})` : ''}`,
      );
    return a;
  }

  function onlyGet(req: IncomingMessage): void {
    if (req.method !== 'GET' && req.method !== 'HEAD')
      throw new HttpError(405, 'rest_method_not_allowed', `${req.method} is not allowed here; use GET`, {
        allow: 'GET, HEAD',
      });
  }

  async function route(req: IncomingMessage, res: ServerResponse, url: URL, rest: string): Promise<void> {
    const user = await currentUser(req);
    if (rest === '/abilities' || rest === '/abilities/') {
      onlyGet(req);
      const perPage = intParam(url, 'per_page', PER_PAGE_DEFAULT, 1, PER_PAGE_MAX);
      const page = intParam(url, 'page', 1, 1, 1_000_000);
      const category = url.searchParams.get('category');
      const all = host.registry.list().filter((a) => category === null || a.category === category);
      const items = all.slice((page - 1) * perPage, page * perPage).map(describeAbility);
      sendJson(res, 200, items, {
        'x-wp-total': String(all.length),
        'x-wp-totalpages': String(Math.ceil(all.length / perPage)),
      });
      return;
    }
    if (rest.startsWith('/abilities/')) {
      let tail: string;
      try {
        tail = decodeURIComponent(rest.slice('/abilities/'.length)).replace(/\/$/, '');
      } catch {
        throw new HttpError(404, 'rest_no_route', 'the ability name in the path is not valid URL encoding');
      }
      const run = RUN_PATH_RE.exec(tail);
      if (!run) {
        const ability = findAbility(tail);
        onlyGet(req);
        sendJson(res, 200, describeAbility(ability));
        return;
      }
      const ability = findAbility(run[1]!);
      const allowed = allowedRunMethods(ability);
      if (!allowed.includes(req.method ?? '')) {
        const why = ability.annotations.readonly
          ? ''
          : ` (GET runs only read-only abilities; ${ability.name} changes state)`;
        throw new HttpError(
          405,
          'rest_ability_invalid_method',
          `${req.method} cannot run ${ability.name}; use ${allowed.join(' or ')}${why}`,
          { allow: allowed.join(', ') },
        );
      }
      // A search's body is small; a bigger one is refused before it is read.
      const input =
        req.method === 'POST'
          ? await bodyInput(req, ability.name === 'svc/search' ? Math.min(maxBytes, SEARCH_BODY_MAX_BYTES) : maxBytes)
          : inputParam(url);
      // A caller that hangs up stops a waiting ability (svc/get-crawl with wait_seconds).
      const gone = new AbortController();
      res.once('close', () => gone.abort());
      const output = await host.registry.execute(ability.name, input, {
        user,
        signInHint: BEARER_HINT,
        signal: gone.signal,
      });
      sendJson(res, 200, output);
      return;
    }
    if (rest === '/categories' || rest === '/categories/') {
      onlyGet(req);
      sendJson(
        res,
        200,
        host.registry.categories().filter((c) => host.registry.list().some((a) => a.category === c.slug)),
      );
      return;
    }
    if (rest.startsWith('/categories/')) {
      onlyGet(req);
      let slug: string;
      try {
        slug = decodeURIComponent(rest.slice('/categories/'.length));
      } catch {
        throw new HttpError(404, 'rest_no_route', 'the category in the path is not valid URL encoding');
      }
      const c = host.registry
        .categories()
        .find((x) => x.slug === slug && host.registry.list().some((a) => a.category === slug));
      if (!c) throw new HttpError(404, 'ability_category_not_found', `no ability category "${slug}"`);
      sendJson(res, 200, c);
      return;
    }
    throw new HttpError(404, 'rest_no_route', `no route for ${req.method} ${url.pathname}`);
  }

  return async (req, res, url) => {
    const path = url.pathname;
    if (path !== root && !path.startsWith(`${root}/`)) return false;
    try {
      await route(req, res, url, path.slice(root.length));
    } catch (err) {
      if (res.headersSent) throw err;
      if (err instanceof AbilityError) {
        sendError(res, err.status, err.code, err.message, err.data, err.status === 401 ? bearerChallenge(false) : {});
      } else if (err instanceof HttpError) {
        sendError(res, err.status, err.code, err.message, {}, err.headers);
      } else {
        deps.logger.error({ err, method: req.method, path }, 'ability route failed');
        sendError(res, 500, 'internal_error', 'internal error');
      }
    }
    return true;
  };
}
