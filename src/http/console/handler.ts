// The console at /console/: sign-in with a login and password (the OAuth sign-in's users and limiter), a session
// kept in the database, then the pages of each project. Every form carries the session's CSRF token and is
// refused without it, or when its Origin is not this server's: nothing changes and the person is told why. Pages
// are checked against the user's capabilities on every request (the role is read from the store each time), and
// every action calls the backend or the auth functions /v1 and the CLI call.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CONSOLE_SESSION_TTL_MS, csrfTokenFor, csrfTokenMatches } from '../../auth/console-sessions.js';
import { signInLimitMessage } from '../../auth/password-sign-in.js';
import { FORM_NONCE_RE, newFormNonce, SignInForms } from '../../auth/sign-in-forms.js';
import { UserError } from '../../auth/users.js';
import type { Logger } from '../../lib/log.js';
import type { User } from '../../model/users.js';
import { parseCookies } from '../cookies.js';
import { headerValue, mediaType, readBody, sendJson, type HttpHandler } from '../io.js';
import { CONSOLE_CSS, CONSOLE_JS, FAVICON_SVG } from './assets.js';
import type { ConsoleDeps, ConsoleProject } from './deps.js';
import {
  CONSOLE_PATH,
  landingSlug,
  mayManageUsers,
  mayOpen,
  PROJECT_PAGES,
  projectPath,
  renderBare,
  renderFrame,
  renderSignIn,
  type PageContent,
  type PageSlug,
} from './layout.js';
import { changesPage } from './pages/changes.js';
import { crawlProgress, crawlsPage, startCrawl, stopCrawl } from './pages/crawls.js';
import { confirmRevokePage, createKey, keysPage, revokeKey } from './pages/keys.js';
import { overviewPage } from './pages/overview.js';
import type { ActionOutcome, PageCtx } from './pages/page.js';
import { reportDocument, reportExport, reportPage } from './pages/report.js';
import { clearSchedule, scheduleAction, schedulePage } from './pages/schedule.js';
import { searchPage } from './pages/search.js';
import { searchStatsPage } from './pages/search-stats.js';
import { usersPage } from './pages/users.js';
import { addWebhook, removeWebhook, webhooksPage } from './pages/webhooks.js';

const SESSION_COOKIE = 'svc_console';
const FORM_COOKIE = 'svc_console_form';
const FORM_BODY_MAX = 64 * 1024;
/** How long a sign-in form may be posted (its cookie lasts as long). */
const SIGN_IN_FORM_TTL_S = 3600;

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** Fixed texts for ?notice= after an action (never text from the query itself). */
const NOTICES: Record<string, string> = {
  'crawl-started': 'The crawl has started.',
  'crawl-stopping': 'The crawl was asked to stop.',
  'key-revoked': 'The key was revoked: /v1 refuses it from now on.',
  'schedule-saved': "The schedule was saved: it replaces the config file's, and svc serve follows it from now on.",
  'schedule-cleared': "The stored schedule was cleared: the config file's schedule is in force again.",
  'user-added': 'The user was added.',
  'webhook-removed': 'The webhook was removed: nothing more is sent to it.',
  'signed-out': 'You are signed out.',
};

const STALE_FORM =
  'This form is out of date or did not come from your console session, so nothing was changed. Reload the page and try again.';
const SESSION_ENDED =
  'Your session has ended (you signed out, it expired, or your user was removed). Please sign in again.';

export interface ConsoleHandlerOptions {
  logger: Logger;
}

function sendHtml(res: ServerResponse, status: number, html: string, headers: Record<string, string | string[]> = {}) {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(html),
    'cache-control': 'no-store',
    'content-security-policy': CSP,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
    ...headers,
  });
  res.end(html);
}

function redirect(res: ServerResponse, to: string, headers: Record<string, string | string[]> = {}): void {
  res.writeHead(303, { location: to, 'cache-control': 'no-store', ...headers });
  res.end();
}

/** The console session's secret a request carries in its cookie, or null. */
export function consoleSessionSecret(req: IncomingMessage): string | null {
  return parseCookies(req.headers.cookie)[SESSION_COOKIE] || null;
}

/** Why a form post may not be taken, or null: its Origin, when sent, must be this server as the browser reached it. */
export function foreignOrigin(origin: string | undefined, host: string | undefined): string | null {
  if (origin === undefined) return null;
  let o: URL;
  try {
    o = new URL(origin);
  } catch {
    return `Origin ${origin}`;
  }
  return o.host === (host ?? '').toLowerCase() ? null : `Origin ${origin}`;
}

export function createConsoleHandler(deps: ConsoleDeps, opts: ConsoleHandlerOptions): HttpHandler {
  const log = opts.logger.child({ console: true });
  const tokens = deps.projects.map((p) => p.token);
  const secure = deps.secureCookies ? '; Secure' : '';
  const cookie = (name: string, value: string, maxAgeS: number) =>
    `${name}=${value}; Path=${CONSOLE_PATH}; HttpOnly; SameSite=Strict; Max-Age=${maxAgeS}${secure}`;
  const clearSession = cookie(SESSION_COOKIE, '', 0);
  const signInForms = new SignInForms({ ttlMs: SIGN_IN_FORM_TTL_S * 1000, ...deps.signInForms });

  function projectOf(token: string): ConsoleProject | null {
    return deps.projects.find((p) => p.token === token) ?? null;
  }

  /** The sign-in page, with a form cookie (kept when the browser has one) and a one-use form token bound to it. */
  async function signInPage(
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    msg: { error?: string | null; notice?: string | null; login?: string },
    extra: string[] = [],
  ): Promise<void> {
    const had = parseCookies(req.headers.cookie)[FORM_COOKIE];
    const nonce = had && FORM_NONCE_RE.test(had) ? had : newFormNonce();
    sendHtml(res, status, renderSignIn(await signInForms.issue(nonce), msg), {
      'set-cookie': [cookie(FORM_COOKIE, nonce, SIGN_IN_FORM_TTL_S), ...extra],
    });
  }

  async function readForm(req: IncomingMessage): Promise<URLSearchParams | null> {
    if (mediaType(req) !== 'application/x-www-form-urlencoded') {
      req.resume();
      return null;
    }
    return new URLSearchParams((await readBody(req, FORM_BODY_MAX)).toString('utf8'));
  }

  async function signIn(req: IncomingMessage, res: ServerResponse, form: URLSearchParams): Promise<void> {
    const login = (form.get('login') ?? '').trim();
    // Each form is taken once: a guess needs a page of its own.
    if ((await signInForms.take(form.get('csrf'), parseCookies(req.headers.cookie)[FORM_COOKIE])) !== 'ok')
      return signInPage(req, res, 403, { error: STALE_FORM, login });
    const result = await deps.signIn(login, form.get('password') ?? '', req.socket.remoteAddress ?? 'unknown');
    if ('error' in result) {
      if (result.error === 'rate_limited') {
        res.setHeader('retry-after', String(result.retryAfter));
        return signInPage(req, res, 429, { error: signInLimitMessage(result), login });
      }
      return signInPage(req, res, 401, { error: 'Wrong login or password.', login });
    }
    const session = await deps.sessions.start(result.user.login);
    log.info({ login: result.user.login }, 'console: signed in');
    redirect(res, `${CONSOLE_PATH}/`, {
      'set-cookie': [
        cookie(SESSION_COOKIE, session.secret, Math.floor(CONSOLE_SESSION_TTL_MS / 1000)),
        cookie(FORM_COOKIE, '', 0),
      ],
    });
  }

  /** Shows a page in the frame of a signed-in user. */
  function show(
    res: ServerResponse,
    s: { user: User; csrf: string },
    project: string | null,
    current: string,
    status: number,
    page: PageContent,
  ) {
    sendHtml(res, status, renderFrame({ user: s.user, csrf: s.csrf, projects: tokens, project, current }, page));
  }

  function forbidden(res: ServerResponse, s: { user: User; csrf: string }, project: string | null, what: string) {
    show(res, s, project, '', 403, {
      title: 'Not allowed',
      body: '',
      error: `${what} needs a capability your role (${s.user.role}) does not have. Ask an administrator.`,
    });
  }

  async function outcome(res: ServerResponse, ctx: PageCtx, slug: PageSlug, o: ActionOutcome): Promise<void> {
    if ('redirect' in o) return redirect(res, o.redirect);
    show(res, ctx, ctx.project.token, slug, o.status, o.page);
  }

  /** The routes of one project: `rest` is the path after /console/p/<token>/. */
  async function projectRoute(
    req: IncomingMessage,
    res: ServerResponse,
    ctx: PageCtx,
    rest: string[],
    form: URLSearchParams | null,
  ): Promise<void> {
    const post = req.method === 'POST';
    const [first = '', second, third] = rest;
    const slug = (PROJECT_PAGES.some((p) => p.slug === first) ? first : null) as PageSlug | null;
    if (slug === null) return notFound(res, ctx, ctx.project.token);
    if (!mayOpen(ctx.user, slug))
      return forbidden(res, ctx, ctx.project.token, `The ${PROJECT_PAGES.find((p) => p.slug === slug)!.label} page`);
    const notice = NOTICES[ctx.url.searchParams.get('notice') ?? ''] ?? null;
    const id = second !== undefined && /^[1-9]\d{0,15}$/.test(second) ? Number(second) : null;
    const token = ctx.project.token;
    if (rest.length === 1 && !post) {
      if (slug === '') return show(res, ctx, token, slug, 200, await overviewPage(ctx));
      if (slug === 'crawls')
        return show(res, ctx, token, slug, 200, await crawlsPage(ctx, { notice: notice ?? undefined }));
      if (slug === 'report') {
        const r = reportPage(ctx);
        return show(res, ctx, token, slug, r.status, r.page);
      }
      if (slug === 'changes') {
        const r = await changesPage(ctx);
        return show(res, ctx, token, slug, r.status, r.page);
      }
      if (slug === 'search') {
        const r = await searchPage(ctx);
        return show(res, ctx, token, slug, r.status, r.page);
      }
      if (slug === 'schedule') return show(res, ctx, token, slug, 200, await schedulePage(ctx, { notice }));
      if (slug === 'search-stats') {
        const r = await searchStatsPage(ctx);
        return show(res, ctx, token, slug, r.status, r.page);
      }
      if (slug === 'keys')
        return show(res, ctx, token, slug, 200, await keysPage(ctx, { notice: notice ?? undefined }));
      if (slug === 'webhooks')
        return show(res, ctx, token, slug, 200, await webhooksPage(ctx, { notice: notice ?? undefined }));
    }
    if (rest.length === 1 && post && form) {
      if (slug === 'crawls') return outcome(res, ctx, slug, await startCrawl(ctx, form));
      if (slug === 'schedule') return outcome(res, ctx, slug, await scheduleAction(ctx, form));
      if (slug === 'keys') return outcome(res, ctx, slug, await createKey(ctx, form));
      if (slug === 'webhooks') return outcome(res, ctx, slug, await addWebhook(ctx, form));
    }
    if (rest.length === 3 && id !== null) {
      if (slug === 'crawls' && third === 'stop' && post) return outcome(res, ctx, slug, await stopCrawl(ctx, id));
      if (slug === 'crawls' && third === 'progress' && !post) {
        const p = await crawlProgress(ctx, id);
        if (!p)
          return sendJson(res, 404, { error: { code: 'crawl_not_found', message: `no crawl ${id} in this project` } });
        return sendJson(res, 200, p);
      }
      if (slug === 'keys' && third === 'revoke' && post) return outcome(res, ctx, slug, await revokeKey(ctx, id));
      if (slug === 'keys' && third === 'revoke') return outcome(res, ctx, slug, await confirmRevokePage(ctx, id));
      if (slug === 'webhooks' && third === 'remove' && post)
        return outcome(res, ctx, slug, await removeWebhook(ctx, id));
    }
    if (slug === 'schedule' && rest.length === 2 && second === 'clear' && post)
      return outcome(res, ctx, slug, await clearSchedule(ctx));
    if (slug === 'report' && rest.length === 2 && second === 'export' && !post) {
      const r = await reportExport(ctx, deps.toolVersion);
      if (!('file' in r)) return show(res, ctx, token, slug, r.status, r.page);
      res.writeHead(200, {
        'content-type': r.file.type,
        'content-length': Buffer.byteLength(r.file.body),
        'content-disposition': `attachment; filename="${r.file.name}"`,
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      });
      res.end(r.file.body);
      return;
    }
    if (slug === 'report' && rest.length === 2 && second === 'view' && !post) {
      const html = await reportDocument(ctx, deps.toolVersion);
      // The report carries its own policy (inline style and script by hash); it may show in the console's frame.
      return sendHtml(res, 200, html, {
        'content-security-policy': "frame-ancestors 'self'",
        'x-frame-options': 'SAMEORIGIN',
      });
    }
    return notFound(res, ctx, token);
  }

  function notFound(res: ServerResponse, s: { user: User; csrf: string }, project: string | null) {
    show(res, s, project, '', 404, { title: 'Not found', body: '', error: 'There is no such page in the console.' });
  }

  async function usersRoute(
    req: IncomingMessage,
    res: ServerResponse,
    s: { user: User; csrf: string; url: URL },
    form: URLSearchParams | null,
  ): Promise<void> {
    if (!mayManageUsers(s.user)) return forbidden(res, s, null, 'The Users page');
    if (req.method === 'POST' && form) {
      const login = (form.get('login') ?? '').trim();
      try {
        await deps.users.add(login, form.get('role') ?? '', form.get('password') ?? '');
      } catch (err) {
        if (!(err instanceof UserError)) throw err;
        const page = usersPage(await deps.users.list(), s.csrf, { error: `No user was added: ${err.message}`, login });
        return show(res, s, null, 'users', 400, page);
      }
      log.info({ login, by: s.user.login }, 'console: user added');
      return redirect(res, `${CONSOLE_PATH}/users?notice=user-added`);
    }
    const notice = NOTICES[s.url.searchParams.get('notice') ?? ''] ?? null;
    show(res, s, null, 'users', 200, usersPage(await deps.users.list(), s.csrf, { notice }));
  }

  async function handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const path = url.pathname;
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    if (method !== 'GET' && method !== 'POST') {
      req.resume();
      return sendHtml(
        res,
        405,
        renderBare('Not allowed', `${method} is not used by the console.`, {
          href: `${CONSOLE_PATH}/`,
          label: 'Console',
        }),
        { allow: 'GET, HEAD, POST' },
      );
    }
    if (path === CONSOLE_PATH) return redirect(res, `${CONSOLE_PATH}/`);
    if (
      method === 'GET' &&
      (path === `${CONSOLE_PATH}/assets/console.css` || path === `${CONSOLE_PATH}/assets/console.js`)
    ) {
      const css = path.endsWith('.css');
      const body = css ? CONSOLE_CSS : CONSOLE_JS;
      res.writeHead(200, {
        'content-type': css ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8',
        'content-length': Buffer.byteLength(body),
        'cache-control': 'no-cache',
        'x-content-type-options': 'nosniff',
      });
      res.end(body);
      return;
    }

    let form: URLSearchParams | null = null;
    if (method === 'POST') {
      const foreign = foreignOrigin(headerValue(req, 'origin'), headerValue(req, 'host'));
      if (foreign) {
        req.resume();
        log.warn({ origin: headerValue(req, 'origin'), path }, 'console: form from another origin refused');
        return sendHtml(
          res,
          403,
          renderBare('Refused', `This form was sent from another site (${foreign}), so nothing was changed.`, {
            href: `${CONSOLE_PATH}/`,
            label: 'Open the console',
          }),
        );
      }
      form = await readForm(req);
      if (!form)
        return sendHtml(
          res,
          400,
          renderBare('Refused', 'Console forms are sent as application/x-www-form-urlencoded; nothing was changed.', {
            href: `${CONSOLE_PATH}/`,
            label: 'Open the console',
          }),
        );
    }
    if (path === `${CONSOLE_PATH}/sign-in` && form) return signIn(req, res, form);

    const secret = parseCookies(req.headers.cookie)[SESSION_COOKIE] ?? '';
    const user = secret ? await deps.sessions.user(secret) : null;
    if (!user) {
      if (path.endsWith('/progress'))
        return sendJson(res, 401, { error: { code: 'unauthorized', message: SESSION_ENDED } });
      const ended = secret !== '';
      if (path === `${CONSOLE_PATH}/sign-out` && !ended) return redirect(res, `${CONSOLE_PATH}/`);
      if (path === `${CONSOLE_PATH}/` && !ended && method === 'GET')
        return signInPage(req, res, 200, { notice: NOTICES[url.searchParams.get('notice') ?? ''] ?? null });
      return signInPage(
        req,
        res,
        401,
        { error: ended ? SESSION_ENDED : 'Please sign in.' },
        ended ? [clearSession] : [],
      );
    }
    const csrf = csrfTokenFor(secret);
    const s = { user, csrf, url };
    if (form && !csrfTokenMatches(secret, form.get('csrf'))) {
      log.warn({ login: user.login, path }, 'console: form without a valid CSRF token refused');
      return show(res, s, null, '', 403, { title: 'Refused', body: '', error: STALE_FORM });
    }
    if (path === `${CONSOLE_PATH}/sign-out` && form) {
      await deps.sessions.end(secret);
      return redirect(res, `${CONSOLE_PATH}/?notice=signed-out`, { 'set-cookie': clearSession });
    }
    if (path === `${CONSOLE_PATH}/` && !form) return redirect(res, projectPath(tokens[0]!, landingSlug(user)));
    if (path === `${CONSOLE_PATH}/switch` && !form) {
      const token = url.searchParams.get('project') ?? '';
      const page = url.searchParams.get('page') ?? '';
      if (!projectOf(token)) return notFound(res, s, null);
      const known = PROJECT_PAGES.find((p) => p.slug === page);
      return redirect(res, projectPath(token, known && mayOpen(user, known.slug) ? known.slug : landingSlug(user)));
    }
    if (path === `${CONSOLE_PATH}/users`) return usersRoute(req, res, s, form);
    if (/^\/console\/p\/[^/]+$/.test(path) && !form) return redirect(res, `${path}/`);
    const m = /^\/console\/p\/([^/]+)\/(.*)$/.exec(path);
    if (m) {
      let token: string;
      try {
        token = decodeURIComponent(m[1]!);
      } catch {
        return notFound(res, s, null);
      }
      const project = projectOf(token);
      if (!project) return notFound(res, s, null);
      return projectRoute(req, res, { user, project, csrf, url }, m[2]!.split('/'), form);
    }
    return notFound(res, s, null);
  }

  return async (req, res, url) => {
    if (
      (url.pathname === '/favicon.ico' || url.pathname === `${CONSOLE_PATH}/assets/favicon.svg`) &&
      req.method === 'GET'
    ) {
      res.writeHead(200, {
        'content-type': 'image/svg+xml',
        'content-length': Buffer.byteLength(FAVICON_SVG),
        'cache-control': 'public, max-age=86400',
        'x-content-type-options': 'nosniff',
      });
      res.end(FAVICON_SVG);
      return true;
    }
    if (url.pathname !== CONSOLE_PATH && !url.pathname.startsWith(`${CONSOLE_PATH}/`)) return false;
    await handle(req, res, url);
    return true;
  };
}
