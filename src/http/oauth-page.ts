// The sign-in and consent page of /authorize. GET shows it: who asks (the client's name, the host that
// publishes its metadata document when it has one, where it sends the answer), what for (the scopes), a login
// and password. The form posts back to /authorize, where the authorization server checks the request again, and
// comes here with the answer.
// CSRF: each form carries a token (src/auth/sign-in-forms.ts) that is an HMAC over the authorization request it was made for, an expiry, a
// form id, and a random nonce also set as a SameSite=Strict cookie; a post whose token does not match the
// request, the cookie or the clock is refused, and so is a second post of one form (allow or deny: a form
// answers once). The page runs no script, may not be framed, and may post only to us (and, through the redirect
// that follows, to the client's redirect URI).
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  SCOPE_DESCRIPTIONS,
  type AuthorizationServer,
  type SignInRequest,
} from '../auth/oauth/authorization-server.js';
import { signInLimitMessage } from '../auth/password-sign-in.js';
import { FORM_NONCE_RE, newFormNonce, SignInForms, type FormStore } from '../auth/sign-in-forms.js';
import { escapeHtml } from '../lib/escape-html.js';
import { parseCookies } from './cookies.js';

const FORM_TTL_MS = 10 * 60 * 1000;
const COOKIE = 'svc_signin';

/**
 * Renders the sign-in and consent page for an authorization request (GET), or handles its form (POST): `form` is
 * the posted form's parameters.
 */
export type AuthorizePage = (
  server: AuthorizationServer,
  request: SignInRequest,
  req: IncomingMessage,
  res: ServerResponse,
  form: Record<string, unknown>,
) => Promise<void>;

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:26rem;margin:3rem auto;padding:0 1rem;color:#1d2327}
h1{font-size:1.4rem}label{display:block;margin:.8rem 0 .2rem}input[type=text],input[type=password]{width:100%;padding:.4rem;box-sizing:border-box}
.who{background:#f0f0f1;padding:.6rem .8rem;border-radius:4px}.error{color:#b32d2e;font-weight:600}
button{margin-top:1rem;padding:.5rem 1.2rem;font-size:1rem}button.primary{background:#2271b1;color:#fff;border:0;border-radius:3px}
ul{padding-left:1.2rem}small{color:#50575e}`;
const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/** What the form's token is bound to: every field of the authorization request. */
function requestDigest(r: SignInRequest): string {
  const fields = [r.client.client_id, r.redirectUri, r.codeChallenge, r.state ?? '', r.scopes.join(' '), r.resource];
  return createHash('sha256').update(JSON.stringify(fields)).digest('base64url');
}

/** The origin (or, for an app's own scheme, the scheme) the browser is sent to after the form: CSP form-action. */
function redirectTarget(uri: string): string {
  const u = new URL(uri);
  return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : u.protocol;
}

export interface SignInPageOptions {
  /** Where the forms are signed and spent (with the clock tests move). */
  forms: FormStore;
}

export function createSignInPage(opts: SignInPageOptions): AuthorizePage {
  const forms = new SignInForms({ ttlMs: FORM_TTL_MS, ...opts.forms });

  async function render(
    req: IncomingMessage,
    res: ServerResponse,
    request: SignInRequest,
    status: number,
    message: string | null,
    login = '',
  ): Promise<void> {
    const secure = new URL(request.resource).protocol === 'https:';
    // The browser's nonce is kept when it has one, so two sign-in tabs do not spoil each other's forms.
    const had = parseCookies(req.headers.cookie)[COOKIE];
    const nonce = had && FORM_NONCE_RE.test(had) ? had : newFormNonce();
    const c = request.client;
    const name = c.client_name?.trim() || 'An application';
    const documentHost = 'metadata_document_host' in c ? c.metadata_document_host : null;
    const target = new URL(request.redirectUri);
    const hidden: Record<string, string | undefined> = {
      response_type: 'code',
      client_id: c.client_id,
      redirect_uri: request.redirectUri,
      code_challenge: request.codeChallenge,
      code_challenge_method: 'S256',
      state: request.state,
      scope: request.scopes.join(' '),
      resource: request.resource,
      csrf_token: await forms.issue(nonce, requestDigest(request)),
    };
    const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="same-origin"><title>Sign in to svc</title><style>${STYLE}</style></head>
<body><main>
<h1>Sign in to svc</h1>
<p class="who"><strong id="client-name">${escapeHtml(name)}</strong>${documentHost ? `, as described by <strong id="client-host">${escapeHtml(documentHost)}</strong>,` : ''} wants to use svc as you.<br>
<small>Client ID ${escapeHtml(c.client_id)}; the answer goes to <span id="redirect-host">${escapeHtml(target.protocol === 'http:' || target.protocol === 'https:' ? target.host : target.protocol)}</span>.</small></p>
<p>It asks for:</p>
<ul id="scopes">${request.scopes.map((s) => `<li><code>${escapeHtml(s)}</code>: ${escapeHtml(SCOPE_DESCRIPTIONS[s] ?? s)}</li>`).join('')}</ul>
${message ? `<p class="error" id="error" role="alert">${escapeHtml(message)}</p>` : ''}
<form method="post" action="/authorize">
${Object.entries(hidden)
  .filter((e): e is [string, string] => e[1] !== undefined)
  .map(([k, v]) => `<input type="hidden" name="${k}" value="${escapeHtml(v)}">`)
  .join('\n')}
<label for="login">Login</label><input type="text" id="login" name="login" value="${escapeHtml(login)}" autocomplete="username" autocapitalize="none" required>
<label for="password">Password</label><input type="password" id="password" name="password" autocomplete="current-password" required>
<button type="submit" class="primary" name="decision" value="allow" id="allow">Sign in and allow</button>
<button type="submit" name="decision" value="deny" id="deny" formnovalidate>Cancel</button>
</form>
</main></body></html>`;
    res.writeHead(status, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; form-action 'self' ${redirectTarget(request.redirectUri)}; frame-ancestors 'none'; base-uri 'none'`,
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      // same-origin: no referrer leaves for the client (the code stays out of it), and the form post carries our Origin
      // (with no-referrer a browser sends "Origin: null", which the server-wide guard refuses).
      'referrer-policy': 'same-origin',
      'set-cookie': `${COOKIE}=${nonce}; Path=/authorize; HttpOnly; SameSite=Strict; Max-Age=${FORM_TTL_MS / 1000}${secure ? '; Secure' : ''}`,
      'content-length': Buffer.byteLength(html),
    });
    res.end(html);
  }

  const redirect = (res: ServerResponse, location: string) => {
    res.writeHead(302, { location, 'cache-control': 'no-store' });
    res.end();
  };

  return async (server, request, req, res, body) => {
    if (req.method !== 'POST') return render(req, res, request, 200, null);
    const login = typeof body.login === 'string' ? body.login.trim() : '';
    const form = await forms.take(body.csrf_token, parseCookies(req.headers.cookie)[COOKIE], requestDigest(request));
    if (form === 'invalid')
      return render(
        req,
        res,
        request,
        400,
        'This form expired or did not come from this page. Please sign in again.',
        login,
      );
    if (form === 'used')
      return render(req, res, request, 400, 'This form was already sent once. Please sign in again.', login);
    if (body.decision === 'deny') {
      redirect(res, server.denied(request));
      return;
    }
    const password = typeof body.password === 'string' ? body.password : '';
    const result = await server.signIn(login, password, req.socket.remoteAddress ?? 'unknown');
    if ('error' in result) {
      if (result.error === 'rate_limited') {
        res.setHeader('retry-after', String(result.retryAfter));
        return render(req, res, request, 429, signInLimitMessage(result), login);
      }
      return render(req, res, request, 401, 'Wrong login or password.', login);
    }
    redirect(res, await server.issueCode(request, result.user));
  };
}
