// The console over plain HTTP, in process: the sign-in form's token and cookie, the session cookie's attributes,
// the page's security headers, the limit of failed sign-ins shared with the OAuth sign-in page (guesses on the
// console lock the OAuth form for that login and address too), and several projects: the switcher, and each
// page acting on its own project's data.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpDeps, serveHandlers } from '../../src/app/http.js';
import { openAbilityHost, type AbilityHost } from '../../src/app/ability-host.js';
import type { App } from '../../src/app/open-app.js';
import { addUser } from '../../src/auth/users.js';
import { parseConfig } from '../../src/cli/load-config.js';
import { createHttpServer } from '../../src/http/http-server.js';
import type { HttpHandler } from '../../src/http/io.js';
import { silentLogger } from '../../src/lib/log.js';
import { openApp, tempDir } from '../support/app.js';
import { hashSecret } from '../../src/auth/secrets.js';
import { postSignIn as post, signInForm } from '../support/console-sign-in.js';
import { PASSWORDS, startOAuthServer, type OAuthServer } from '../support/oauth.js';

describe('the console sign-in', () => {
  let srv: OAuthServer;
  beforeAll(async () => {
    srv = await startOAuthServer();
  }, 30_000);
  afterAll(() => srv?.close());

  it('sends the page with a strict policy and starts a strict, HttpOnly session', async () => {
    const page = await fetch(`${srv.baseUrl}/console/`);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const form = await signInForm(srv.baseUrl);
    const r = await post(srv.baseUrl, form, 'admin', PASSWORDS.admin);
    expect(r.status).toBe(303);
    const session = r.headers.getSetCookie().find((c) => c.startsWith('svc_console='))!;
    expect(session).toMatch(/^svc_console=svc_cs_[\w-]{43}; Path=\/console; HttpOnly; SameSite=Strict; Max-Age=28800$/);
    // The database holds the secret's hash, never the secret.
    const secret = /^svc_console=([^;]+)/.exec(session)![1]!;
    const stored = (await srv.app.store.sql.all<{ id_hash: string }>('SELECT id_hash FROM console_sessions')).map(
      (s) => s.id_hash,
    );
    expect(stored).toContain(hashSecret(secret));
    expect(stored).not.toContain(secret);
  }, 30_000);

  it('refuses a sign-in form without its token, and one sent as JSON', async () => {
    const form = await signInForm(srv.baseUrl);
    const r = await post(srv.baseUrl, { ...form, csrf: 'forged' }, 'admin', PASSWORDS.admin);
    expect(r.status).toBe(403);
    expect(r.text).toContain('nothing was changed');
    expect(r.headers.getSetCookie().some((c) => c.startsWith('svc_console='))).toBe(false);
    const json = await fetch(`${srv.baseUrl}/console/sign-in`, {
      method: 'POST',
      headers: { cookie: form.cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ csrf: form.csrf, login: 'admin', password: PASSWORDS.admin }),
    });
    expect(json.status).toBe(400);
  }, 30_000);

  it('takes each sign-in form once: a second post of the same form changes nothing', async () => {
    const form = await signInForm(srv.baseUrl);
    expect((await post(srv.baseUrl, form, 'nobody', 'wrong password')).status).toBe(401);
    const again = await post(srv.baseUrl, form, 'admin', PASSWORDS.admin);
    expect(again.status).toBe(403);
    expect(again.text).toContain('nothing was changed');
    expect(again.headers.getSetCookie().some((c) => c.startsWith('svc_console='))).toBe(false);
  }, 30_000);

  it('counts sign-ins sent together: 30 parallel guesses of one login get at most 5 checks', async () => {
    const forms = await Promise.all(Array.from({ length: 30 }, () => signInForm(srv.baseUrl)));
    const answers = await Promise.all(forms.map((f, i) => post(srv.baseUrl, f, 'admin', `wrong guess ${i}`)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
    // The right password is refused too, now that the login is locked from this address.
    const right = await post(srv.baseUrl, await signInForm(srv.baseUrl), 'admin', PASSWORDS.admin);
    expect(right.status).toBe(429);
    srv.advance(15 * 60 + 1);
    expect((await post(srv.baseUrl, await signInForm(srv.baseUrl), 'admin', PASSWORDS.admin)).status).toBe(303);
  }, 120_000);

  it('limits failed sign-ins as the OAuth page does, and together with it', async () => {
    for (let i = 0; i < 5; i++) {
      const r = await post(srv.baseUrl, await signInForm(srv.baseUrl), 'reader', 'wrong password');
      expect(r.status).toBe(401);
      expect(r.text).toContain('Wrong login or password.');
    }
    const form = await signInForm(srv.baseUrl);
    const locked = await post(srv.baseUrl, form, 'reader', PASSWORDS.reader);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(locked.text).toContain('Too many failed sign-ins');
    // The OAuth sign-in of the same login from the same address is locked too: one limiter.
    expect(await srv.deps.oauth!.server.signIn('reader', PASSWORDS.reader, '127.0.0.1')).toMatchObject({
      error: 'rate_limited',
    });
    // Another login from this address still signs in.
    expect((await post(srv.baseUrl, await signInForm(srv.baseUrl), 'admin', PASSWORDS.admin)).status).toBe(303);
  }, 60_000);
});

describe('the console with several projects', () => {
  const A = 'orchard1:eu-north-1';
  const B = 'plantn02:us-east-1';
  let app: App;
  let host: AbilityHost;
  let server: Server;
  let base: string;
  let session: string;

  const get = (path: string) => fetch(`${base}${path}`, { headers: { cookie: session }, redirect: 'manual' });
  const csrfIn = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)![1]!;
  const consolePath = (token: string, slug = '') => `/console/p/${encodeURIComponent(token)}/${slug}`;

  beforeAll(async () => {
    const config = parseConfig({
      data_dir: tempDir('svc-console-projects-'),
      log_level: 'silent',
      projects: [
        { public_token: A, targets: [{ host: 'orchard.example' }] },
        { public_token: B, targets: [{ host: 'plantation.example' }] },
      ],
    });
    app = await openApp(config);
    await addUser(app.store.sql, 'admin', 'administrator');
    await app.passwords.set(app.store.sql, 'admin', PASSWORDS.admin);
    await addUser(app.store.sql, 'ed', 'editor');
    await app.passwords.set(app.store.sql, 'ed', PASSWORDS.reader);
    host = await openAbilityHost(app);
    const handlers: HttpHandler[] = [];
    server = createHttpServer({ logger: silentLogger, handlers });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    handlers.push(...serveHandlers(httpDeps(app, { publicUrl: base }), host));
    const signedIn = await post(base, await signInForm(base), 'admin', PASSWORDS.admin);
    session = signedIn.headers
      .getSetCookie()
      .find((c) => c.startsWith('svc_console='))!
      .split(';')[0]!;
  }, 30_000);

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    host?.close();
    await app?.close();
  });

  it('switches between projects, and a key made on one works for that project only', async () => {
    const landing = await get('/console/');
    expect(landing.headers.get('location')).toBe(consolePath(A));
    const overview = await (await get(consolePath(A))).text();
    expect(overview).toContain('id="project-switch"');
    expect(overview).toContain(`<option value="${A}" selected>`);
    expect(overview).toContain(`<option value="${B}">`);
    expect(overview).toContain('orchard.example');
    expect(overview).not.toContain('plantation.example');
    const switched = await get(`/console/switch?project=${encodeURIComponent(B)}&page=keys`);
    expect(switched.headers.get('location')).toBe(consolePath(B, 'keys'));

    const keysB = await (await get(consolePath(B, 'keys'))).text();
    const made = await fetch(`${base}${consolePath(B, 'keys')}`, {
      method: 'POST',
      headers: { cookie: session, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf: csrfIn(keysB), name: 'plantation deploy' }),
    });
    expect(made.status).toBe(201);
    const key = /id="new-key">([^<]+)</.exec(await made.text())![1]!;
    const crawls = (token: string) =>
      fetch(`${base}/v1/projects/${encodeURIComponent(token)}/crawls`, { headers: { authorization: `Bearer ${key}` } });
    expect((await crawls(B)).status).toBe(200);
    expect((await crawls(A)).status).toBe(404);
    expect(await (await get(consolePath(B, 'keys'))).text()).toContain('plantation deploy');
    expect(await (await get(consolePath(A, 'keys'))).text()).not.toContain('plantation deploy');
    expect((await get(consolePath('nope0000:eu-north-1'))).status).toBe(404);
  }, 30_000);

  it('shows an editor what the capability table allows: Search, in every project, and nothing else', async () => {
    const signedIn = await post(base, await signInForm(base), 'ed', PASSWORDS.reader);
    const cookie = signedIn.headers
      .getSetCookie()
      .find((c) => c.startsWith('svc_console='))!
      .split(';')[0]!;
    const as = (path: string) => fetch(`${base}${path}`, { headers: { cookie }, redirect: 'manual' });
    expect((await as('/console/')).headers.get('location')).toBe(consolePath(A, 'search'));
    const search = await (await as(consolePath(B, 'search'))).text();
    expect(search.match(/<nav class="pages"[\s\S]*?<\/nav>/)![0]).not.toMatch(/Overview|Crawls|API keys|Users/);
    for (const slug of ['', 'crawls', 'report', 'report/view', 'keys', 'webhooks'])
      expect((await as(consolePath(A, slug))).status, slug).toBe(403);
    expect((await as('/console/users')).status).toBe(403);
    // A switch to a page the role may not open lands on one it may.
    expect((await as(`/console/switch?project=${encodeURIComponent(B)}&page=keys`)).headers.get('location')).toBe(
      consolePath(B, 'search'),
    );
  }, 30_000);
});
