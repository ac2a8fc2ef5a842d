// svc as the OAuth 2.1 authorization server of its /mcp, in-process on loopback with a clock the test moves:
// metadata, registration, the sign-in page over plain HTTP, codes and tokens, and every way it must say no.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeUserTokens } from '../../src/auth/oauth/authorization-server.js';
import { createApiKey } from '../../src/auth/keys.js';
import { setPasswordHash, userWithPasswordHash } from '../../src/store/oauth.js';
import { scryptHashWith } from '../support/legacy-hash.js';
import {
  authorizeUrl,
  fetchForm,
  mcpInit,
  PASSWORDS,
  pkce,
  postForm,
  registerClient,
  signIn,
  startOAuthServer,
  token,
  type OAuthServer,
} from '../support/oauth.js';

let srv: OAuthServer;
let clientId: string;
const REDIRECT = 'http://127.0.0.1:9/callback';

beforeAll(async () => {
  srv = await startOAuthServer();
  const reg = await registerClient(srv.baseUrl, {
    client_name: 'Test <Agent> & Co',
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: 'none',
  });
  expect(reg.status).toBe(201);
  clientId = reg.json.client_id as string;
});

afterAll(async () => {
  await srv?.close();
});

/** A full sign-in: the code and the verifier. */
async function codeFor(login: keyof typeof PASSWORDS = 'admin', over: { resource?: string; state?: string } = {}) {
  const p = pkce();
  const r = await signIn(
    authorizeUrl(srv.baseUrl, {
      clientId,
      redirectUri: REDIRECT,
      challenge: p.challenge,
      state: over.state ?? 'st-1',
      scope: 'mcp',
      resource: over.resource ?? srv.mcpUrl,
    }),
    login,
    PASSWORDS[login],
  );
  expect(r.status, r.html).toBe(302);
  const loc = new URL(r.location!);
  expect(`${loc.origin}${loc.pathname}`).toBe(REDIRECT);
  return { code: loc.searchParams.get('code')!, state: loc.searchParams.get('state'), verifier: p.verifier };
}

async function tokensFor(login: keyof typeof PASSWORDS = 'admin') {
  const c = await codeFor(login);
  const t = await token(srv.baseUrl, {
    grant_type: 'authorization_code',
    client_id: clientId,
    code: c.code,
    code_verifier: c.verifier,
    redirect_uri: REDIRECT,
    resource: srv.mcpUrl,
  });
  expect(t.status, JSON.stringify(t.json)).toBe(200);
  return { access: t.json.access_token as string, refresh: t.json.refresh_token as string, json: t.json, code: c };
}

describe('discovery', () => {
  it('publishes the authorization server metadata (RFC 8414): S256 only, public clients, our endpoints', async () => {
    const res = await fetch(`${srv.baseUrl}/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(200);
    const m = (await res.json()) as Record<string, unknown>;
    expect(m).toMatchObject({
      issuer: `${srv.baseUrl}/`,
      authorization_endpoint: `${srv.baseUrl}/authorize`,
      token_endpoint: `${srv.baseUrl}/token`,
      registration_endpoint: `${srv.baseUrl}/register`,
      revocation_endpoint: `${srv.baseUrl}/revoke`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['none'],
      scopes_supported: ['mcp'],
    });
  });

  it('publishes the protected resource metadata of /mcp (RFC 9728) at the root and the path-suffixed URL', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const res = await fetch(`${srv.baseUrl}${path}`);
      expect(res.status, path).toBe(200);
      expect(await res.json()).toMatchObject({
        resource: srv.mcpUrl,
        authorization_servers: [`${srv.baseUrl}/`],
        scopes_supported: ['mcp'],
      });
    }
  });

  it('answers /mcp without a token with 401 and WWW-Authenticate naming the resource metadata', async () => {
    const r = await mcpInit(srv.mcpUrl);
    expect(r.status).toBe(401);
    expect(r.wwwAuthenticate).toMatch(/^Bearer /);
    expect(r.wwwAuthenticate).toContain(`resource_metadata="${srv.baseUrl}/.well-known/oauth-protected-resource/mcp"`);
    expect(r.wwwAuthenticate).toContain('scope="mcp"');
    expect(JSON.parse(r.body)).toMatchObject({ error: 'invalid_token' });
  });

  it('refuses a foreign Host on the OAuth endpoints (DNS rebinding)', async () => {
    const { request } = await import('undici');
    const res = await request(`${srv.baseUrl}/.well-known/oauth-authorization-server`, {
      headers: { host: 'evil.example.com' },
    });
    expect(res.statusCode).toBe(403);
    await res.body.text();
  });
});

describe('registration (RFC 7591)', () => {
  it('registers a public client even when it asks for a secret (none is issued or stored)', async () => {
    const r = await registerClient(srv.baseUrl, {
      client_name: 'Wants a secret',
      redirect_uris: ['https://app.example/cb'],
      token_endpoint_auth_method: 'client_secret_post',
    });
    expect(r.status).toBe(201);
    expect(r.json.client_secret).toBeUndefined();
    expect(r.json).toMatchObject({
      token_endpoint_auth_method: 'none',
      redirect_uris: ['https://app.example/cb'],
      grant_types: ['authorization_code', 'refresh_token'],
    });
    const stored = srv.app.sqlite.db
      .prepare('SELECT info FROM oauth_clients WHERE client_id = ?')
      .get(r.json.client_id) as { info: string };
    expect(stored.info).not.toMatch(/client_secret"/);
  });

  it('refuses plain-http redirect URIs off loopback, and bad metadata', async () => {
    const http = await registerClient(srv.baseUrl, { redirect_uris: ['http://app.example/cb'] });
    expect(http.status).toBe(400);
    expect(http.json).toMatchObject({ error: 'invalid_redirect_uri' });
    expect(http.json.error_description).toMatch(/must use https/);
    const js = await registerClient(srv.baseUrl, { redirect_uris: ['javascript:alert(1)'] });
    expect(js.status).toBe(400);
    expect(js.json.error).toBe('invalid_client_metadata');
    const broken = await fetch(`${srv.baseUrl}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{nope',
    });
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ error: 'invalid_request' });
  });
});

describe('the sign-in page', () => {
  it('shows the client (escaped) and the scopes, cannot be framed, and sets a form token and cookie', async () => {
    const p = pkce();
    const f = await fetchForm(
      authorizeUrl(srv.baseUrl, { clientId, redirectUri: REDIRECT, challenge: p.challenge, state: 's', scope: 'mcp' }),
    );
    expect(f.status).toBe(200);
    expect(f.headers.get('content-type')).toMatch(/text\/html/);
    expect(f.html).toContain('Test &lt;Agent&gt; &amp; Co');
    expect(f.html).not.toContain('<Agent>');
    expect(f.html).toMatch(/<code>mcp<\/code>/);
    expect(f.html).toContain('127.0.0.1:9');
    const csp = f.headers.get('content-security-policy')!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self' http://127.0.0.1:9");
    expect(csp).toContain("default-src 'none'");
    expect(f.headers.get('x-frame-options')).toBe('DENY');
    expect(f.headers.get('cache-control')).toBe('no-store');
    // expiry . form id (a form answers once) . HMAC
    expect(f.fields.csrf_token).toMatch(/^\d+\.[\w-]{16}\.[\w-]{43}$/);
    expect(f.cookie).toMatch(/^svc_signin=[\w-]+$/);
    expect(f.headers.get('set-cookie')).toMatch(/HttpOnly; SameSite=Strict/);
  });

  it('signs in and redirects with a code and the state', async () => {
    const c = await codeFor('admin', { state: 'xyz-state' });
    expect(c.code).toMatch(/^svc_oac_/);
    expect(c.state).toBe('xyz-state');
  });

  it('a sign-in with a hash of the old parameters (N = 2^15) works and stores a new one; a wrong password changes nothing', async () => {
    const stored = async () => (await userWithPasswordHash(srv.app.store.sql, 'reader'))?.passwordHash;
    const old = scryptHashWith(PASSWORDS.reader, 32768);
    await setPasswordHash(srv.app.store.sql, 'reader', old);
    const url = () =>
      authorizeUrl(srv.baseUrl, { clientId, redirectUri: REDIRECT, challenge: pkce().challenge, state: 's' });
    expect((await signIn(url(), 'reader', 'wrong password')).status).toBe(401);
    expect(await stored()).toBe(old);
    expect((await signIn(url(), 'reader', PASSWORDS.reader)).status).toBe(302);
    // Made again at the server's cost (the tests' small one: TEST_PASSWORD_COST).
    const { N, r, p } = srv.app.passwords.cost;
    expect(await stored()).toMatch(new RegExp(`^scrypt\\$${N}\\$${r}\\$${p}\\$`));
    expect(N).not.toBe(32768);
    expect((await signIn(url(), 'reader', PASSWORDS.reader)).status).toBe(302);
  });

  it('a wrong password (or an unknown login) gets the form again with a message, never a code', async () => {
    const url = authorizeUrl(srv.baseUrl, { clientId, redirectUri: REDIRECT, challenge: pkce().challenge, state: 's' });
    for (const [login, password] of [
      ['reader', 'wrong password'],
      ['nobody', 'whatever password'],
    ]) {
      const r = await signIn(url, login!, password!);
      expect(r.status).toBe(401);
      expect(r.location).toBeNull();
      expect(r.html).toContain('Wrong login or password.');
      expect(r.html).not.toMatch(/svc_oac_/);
    }
  });

  it('refuses a post without the form token, with a token of another request, or without the cookie', async () => {
    const p = pkce();
    const url = authorizeUrl(srv.baseUrl, { clientId, redirectUri: REDIRECT, challenge: p.challenge, state: 'a' });
    const f = await fetchForm(url);
    const creds = { login: 'admin', password: PASSWORDS.admin, decision: 'allow' };
    const other = await fetchForm(
      authorizeUrl(srv.baseUrl, { clientId, redirectUri: REDIRECT, challenge: pkce().challenge, state: 'b' }),
    );
    const attempts = [
      postForm(srv.baseUrl, { ...f.fields, ...creds, csrf_token: '' }, f.cookie),
      postForm(srv.baseUrl, { ...f.fields, ...creds, csrf_token: other.fields.csrf_token! }, other.cookie),
      postForm(srv.baseUrl, { ...f.fields, ...creds, state: 'changed' }, f.cookie),
      postForm(srv.baseUrl, { ...f.fields, ...creds }, ''),
      postForm(srv.baseUrl, { ...f.fields, ...creds }, other.cookie),
    ];
    for (const r of await Promise.all(attempts)) {
      expect(r.status).toBe(400);
      expect(r.location).toBeNull();
      expect(r.html).toContain('This form expired');
    }
    // The untouched form still works.
    const ok = await postForm(srv.baseUrl, { ...f.fields, ...creds }, f.cookie);
    expect(ok.status).toBe(302);
    expect(new URL(ok.location!).searchParams.get('code')).toMatch(/^svc_oac_/);
  });

  it('two sign-in tabs in one browser keep working (the cookie is reused)', async () => {
    const a = await fetchForm(
      authorizeUrl(srv.baseUrl, { clientId, redirectUri: REDIRECT, challenge: pkce().challenge, state: 'tab-a' }),
    );
    const b = await fetchForm(
      authorizeUrl(srv.baseUrl, { clientId, redirectUri: REDIRECT, challenge: pkce().challenge, state: 'tab-b' }),
      a.cookie,
    );
    expect(b.cookie).toBe(a.cookie);
    for (const f of [a, b]) {
      const r = await postForm(
        srv.baseUrl,
        { ...f.fields, login: 'admin', password: PASSWORDS.admin, decision: 'allow' },
        a.cookie,
      );
      expect(r.status).toBe(302);
      expect(new URL(r.location!).searchParams.get('state')).toBe(f.fields.state);
    }
  });

  it('a form older than 10 minutes is refused', async () => {
    const f = await fetchForm(
      authorizeUrl(srv.baseUrl, { clientId, redirectUri: REDIRECT, challenge: pkce().challenge }),
    );
    srv.advance(601);
    const r = await postForm(
      srv.baseUrl,
      { ...f.fields, login: 'admin', password: PASSWORDS.admin, decision: 'allow' },
      f.cookie,
    );
    expect(r.status).toBe(400);
  });

  it('cancel sends access_denied with the state', async () => {
    const r = await signIn(
      authorizeUrl(srv.baseUrl, { clientId, redirectUri: REDIRECT, challenge: pkce().challenge, state: 'keep-me' }),
      'admin',
      '',
      'deny',
    );
    expect(r.status).toBe(302);
    const loc = new URL(r.location!);
    expect(loc.searchParams.get('error')).toBe('access_denied');
    expect(loc.searchParams.get('state')).toBe('keep-me');
    expect(loc.searchParams.get('code')).toBeNull();
  });

  it('an unregistered redirect URI is refused on the page itself (no redirect), as is an unknown client', async () => {
    const p = pkce();
    const bad = await fetchForm(
      authorizeUrl(srv.baseUrl, { clientId, redirectUri: 'http://127.0.0.1:9/elsewhere', challenge: p.challenge }),
    );
    expect(bad.status).toBe(400);
    expect(bad.headers.get('location')).toBeNull();
    expect(JSON.parse(bad.html)).toMatchObject({
      error: 'invalid_request',
      error_description: 'Unregistered redirect_uri',
    });
    const unknown = await fetchForm(
      authorizeUrl(srv.baseUrl, { clientId: 'no-such-client', redirectUri: REDIRECT, challenge: p.challenge }),
    );
    expect(unknown.status).toBe(400);
    expect(JSON.parse(unknown.html)).toMatchObject({ error: 'invalid_client' });
  });

  it('`plain` PKCE (or none) is refused with invalid_request sent to the client, never a form', async () => {
    const p = pkce();
    for (const method of ['plain', '']) {
      const r = await fetch(
        authorizeUrl(srv.baseUrl, { clientId, redirectUri: REDIRECT, challenge: p.verifier, method, state: 'pl' }),
        { redirect: 'manual' },
      );
      expect(r.status, method).toBe(302);
      const loc = new URL(r.headers.get('location')!);
      expect(loc.searchParams.get('error')).toBe('invalid_request');
      expect(loc.searchParams.get('error_description')).toMatch(/code_challenge_method/);
      expect(loc.searchParams.get('state')).toBe('pl');
      expect(loc.searchParams.get('code')).toBeNull();
    }
  });

  it('a resource other than this /mcp, or an unknown scope, is refused before the form', async () => {
    const p = pkce();
    const target = await fetch(
      authorizeUrl(srv.baseUrl, {
        clientId,
        redirectUri: REDIRECT,
        challenge: p.challenge,
        resource: 'https://other.example/mcp',
      }),
      { redirect: 'manual' },
    );
    expect(target.status).toBe(302);
    expect(new URL(target.headers.get('location')!).searchParams.get('error')).toBe('invalid_target');
    const scope = await fetch(
      authorizeUrl(srv.baseUrl, { clientId, redirectUri: REDIRECT, challenge: p.challenge, scope: 'mcp admin' }),
      { redirect: 'manual' },
    );
    expect(new URL(scope.headers.get('location')!).searchParams.get('error')).toBe('invalid_scope');
  });
});

describe('tokens', () => {
  it('a code and its verifier give a bearer token for /mcp (1 h) and a refresh token; stored only as hashes', async () => {
    const t = await tokensFor('reader');
    expect(t.json).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'mcp' });
    expect(t.access).toMatch(/^svc_oat_/);
    expect(t.refresh).toMatch(/^svc_ort_/);
    const r = await mcpInit(srv.mcpUrl, t.access);
    expect(r.status).toBe(200);
    const dump =
      JSON.stringify(srv.app.sqlite.db.prepare('SELECT * FROM oauth_tokens').all()) +
      JSON.stringify(srv.app.sqlite.db.prepare('SELECT * FROM oauth_codes').all());
    expect(dump).not.toContain(t.access);
    expect(dump).not.toContain(t.refresh);
    expect(dump).not.toContain(t.code.code);
  });

  it('the token acts as its user: the role decides what the tools may do', async () => {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const t = await tokensFor('reader');
    const client = new Client({ name: 't', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(srv.mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${t.access}` } },
      }),
    );
    const res = await client.callTool({ name: 'svc-full-crawl', arguments: {} });
    expect(res.isError).toBe(true);
    expect(JSON.stringify(res.content)).toContain('ability_invalid_permissions');
    await client.close();
  });

  it('a wrong PKCE verifier gets invalid_grant and no token', async () => {
    const c = await codeFor();
    const t = await token(srv.baseUrl, {
      grant_type: 'authorization_code',
      client_id: clientId,
      code: c.code,
      code_verifier: pkce().verifier,
      redirect_uri: REDIRECT,
    });
    expect(t.status).toBe(400);
    expect(t.json).toMatchObject({
      error: 'invalid_grant',
      error_description: 'code_verifier does not match the challenge',
    });
    expect(t.json.access_token).toBeUndefined();
  });

  it('a code used twice gets invalid_grant, and the tokens of its first use are revoked', async () => {
    const first = await tokensFor();
    expect((await mcpInit(srv.mcpUrl, first.access)).status).toBe(200);
    const again = await token(srv.baseUrl, {
      grant_type: 'authorization_code',
      client_id: clientId,
      code: first.code.code,
      code_verifier: first.code.verifier,
      redirect_uri: REDIRECT,
    });
    expect(again.status).toBe(400);
    expect(again.json).toMatchObject({ error: 'invalid_grant' });
    expect(again.json.error_description).toMatch(/already used/);
    expect(again.json.access_token).toBeUndefined();
    expect((await mcpInit(srv.mcpUrl, first.access)).status).toBe(401);
    const refresh = await token(srv.baseUrl, {
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: first.refresh,
    });
    expect(refresh.json).toMatchObject({ error: 'invalid_grant' });
  });

  it('a code for another client, another redirect URI, another resource, or an expired one: no token', async () => {
    const other = await registerClient(srv.baseUrl, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    const c1 = await codeFor();
    const wrongClient = await token(srv.baseUrl, {
      grant_type: 'authorization_code',
      client_id: other.json.client_id as string,
      code: c1.code,
      code_verifier: c1.verifier,
    });
    expect(wrongClient.json.error).toBe('invalid_grant');
    const c2 = await codeFor();
    const wrongRedirect = await token(srv.baseUrl, {
      grant_type: 'authorization_code',
      client_id: clientId,
      code: c2.code,
      code_verifier: c2.verifier,
      redirect_uri: 'http://127.0.0.1:9/other',
    });
    expect(wrongRedirect.json).toMatchObject({
      error: 'invalid_grant',
      error_description: 'redirect_uri does not match the one of the authorization request',
    });
    const c3 = await codeFor();
    const wrongResource = await token(srv.baseUrl, {
      grant_type: 'authorization_code',
      client_id: clientId,
      code: c3.code,
      code_verifier: c3.verifier,
      resource: 'https://other.example/mcp',
    });
    expect(wrongResource.status).toBe(400);
    expect(wrongResource.json.error).toBe('invalid_target');
    const c4 = await codeFor();
    srv.advance(121);
    const late = await token(srv.baseUrl, {
      grant_type: 'authorization_code',
      client_id: clientId,
      code: c4.code,
      code_verifier: c4.verifier,
    });
    expect(late.json).toMatchObject({ error: 'invalid_grant', error_description: 'authorization code has expired' });
    for (const r of [wrongClient, wrongRedirect, wrongResource, late]) expect(r.json.access_token).toBeUndefined();
  });

  it('a token issued for another resource is refused by this /mcp', async () => {
    const twin = await srv.twin();
    try {
      // Signed in at the twin (issuer localhost): its tokens are bound to the twin's /mcp.
      const p = pkce();
      const r = await signIn(
        authorizeUrl(twin.baseUrl, { clientId, redirectUri: REDIRECT, challenge: p.challenge, resource: twin.mcpUrl }),
        'admin',
        PASSWORDS.admin,
      );
      const code = new URL(r.location!).searchParams.get('code')!;
      const t = await token(twin.baseUrl, {
        grant_type: 'authorization_code',
        client_id: clientId,
        code,
        code_verifier: p.verifier,
      });
      expect(t.status).toBe(200);
      expect((await mcpInit(twin.mcpUrl, t.json.access_token as string)).status).toBe(200);
      const here = await mcpInit(srv.mcpUrl, t.json.access_token as string);
      expect(here.status).toBe(401);
      expect(here.wwwAuthenticate).toContain('error="invalid_token"');
      expect(here.wwwAuthenticate).toContain('Token was not issued for this resource');
    } finally {
      await twin.close();
    }
  });

  it('an access token expires after an hour; its refresh token rotates (the old one then fails)', async () => {
    const t = await tokensFor();
    srv.advance(3601);
    const expired = await mcpInit(srv.mcpUrl, t.access);
    expect(expired.status).toBe(401);
    expect(expired.wwwAuthenticate).toContain('access token has expired');
    const r1 = await token(srv.baseUrl, {
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: t.refresh,
      resource: srv.mcpUrl,
    });
    expect(r1.status).toBe(200);
    expect(r1.json.refresh_token).not.toBe(t.refresh);
    expect((await mcpInit(srv.mcpUrl, r1.json.access_token as string)).status).toBe(200);
    const otherResource = await token(srv.baseUrl, {
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: r1.json.refresh_token as string,
      resource: 'https://other.example/mcp',
    });
    expect(otherResource.json.error).toBe('invalid_target');
    // The old one fails (and, as a reuse, ends the whole sign-in: see oauth-review.test.ts).
    const reused = await token(srv.baseUrl, {
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: t.refresh,
    });
    expect(reused).toMatchObject({ status: 400, json: { error: 'invalid_grant' } });
    // 30 days on, a refresh token is gone too.
    const fresh = await tokensFor();
    srv.advance(30 * 24 * 3600 + 1);
    const late = await token(srv.baseUrl, {
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: fresh.refresh,
    });
    expect(late.json).toMatchObject({ error: 'invalid_grant', error_description: 'refresh token has expired' });
  });

  it("revoking a user's tokens ends their access and refresh tokens", async () => {
    const t = await tokensFor('reader');
    expect((await mcpInit(srv.mcpUrl, t.access)).status).toBe(200);
    expect(await revokeUserTokens(srv.app.store.sql, 'reader')).toBeGreaterThanOrEqual(2);
    expect((await mcpInit(srv.mcpUrl, t.access)).status).toBe(401);
    expect(
      (await token(srv.baseUrl, { grant_type: 'refresh_token', client_id: clientId, refresh_token: t.refresh })).json
        .error,
    ).toBe('invalid_grant');
  });

  it('/revoke ends a token of the calling client', async () => {
    const t = await tokensFor();
    const res = await fetch(`${srv.baseUrl}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: clientId, token: t.refresh }).toString(),
    });
    expect(res.status).toBe(200);
    expect((await mcpInit(srv.mcpUrl, t.access)).status).toBe(401);
  });
});

describe('what keeps working', () => {
  it('static user tokens on /mcp, and API keys on /v1', async () => {
    expect((await mcpInit(srv.mcpUrl, srv.tokens.admin)).status).toBe(200);
    const bad = await mcpInit(srv.mcpUrl, 'svc_user_nope');
    expect(bad.status).toBe(401);
    expect(bad.wwwAuthenticate).toContain('resource_metadata=');
    const key = (await createApiKey(srv.app.store.sql, srv.app.backend.publicToken, 't')).key;
    const v1 = await fetch(`${srv.baseUrl}/v1/projects/${encodeURIComponent(srv.app.backend.publicToken)}/crawls`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(v1.status).toBe(200);
    const noKey = await fetch(`${srv.baseUrl}/v1/projects/${encodeURIComponent(srv.app.backend.publicToken)}/crawls`, {
      headers: { authorization: `Bearer ${srv.tokens.admin}` },
    });
    expect(noKey.status).toBe(401);
  });

  it('with mcp_auth optional, a request without a token runs as no user', async () => {
    const open = await startOAuthServer({ mcpAuth: 'optional' });
    try {
      expect((await mcpInit(open.mcpUrl)).status).toBe(200);
      expect((await mcpInit(open.mcpUrl, 'svc_oat_nope')).status).toBe(401);
    } finally {
      await open.close();
    }
  });
});

describe('rate limits', () => {
  // A server of its own: these tests make many requests, and the SDK's handlers limit those per address too.
  let lim: OAuthServer;
  let url: () => string;
  beforeAll(async () => {
    lim = await startOAuthServer();
    const reg = await registerClient(lim.baseUrl, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    url = () =>
      authorizeUrl(lim.baseUrl, {
        clientId: reg.json.client_id as string,
        redirectUri: REDIRECT,
        challenge: pkce().challenge,
      });
  });
  afterAll(async () => {
    await lim?.close();
  });

  it('after 5 failed sign-ins a login is locked for a while (429), even with the right password', async () => {
    for (let i = 0; i < 5; i++) expect((await signIn(url(), 'admin', `wrong ${i} password`)).status).toBe(401);
    const locked = await signIn(url(), 'admin', PASSWORDS.admin);
    expect(locked.status).toBe(429);
    expect(locked.location).toBeNull();
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(locked.html).toContain('Too many failed sign-ins');
    lim.advance(15 * 60 + 1);
    expect((await signIn(url(), 'admin', PASSWORDS.admin)).status).toBe(302);
  });

  it('after 20 failures from one address, every login from it waits', async () => {
    for (let i = 0; i < 20; i++) expect((await signIn(url(), `someone${i}`, 'wrong password')).status).toBe(401);
    expect((await signIn(url(), 'reader', PASSWORDS.reader)).status).toBe(429);
    lim.advance(15 * 60 + 1);
    expect((await signIn(url(), 'reader', PASSWORDS.reader)).status).toBe(302);
  });

  it('counts sign-ins sent together: 12 parallel guesses of one login get at most 5 checks', {
    timeout: 300_000,
  }, async () => {
    lim.advance(15 * 60 + 1);
    const forms = await Promise.all(Array.from({ length: 12 }, () => fetchForm(url())));
    const answers = await Promise.all(
      forms.map((f, i) =>
        postForm(
          lim.baseUrl,
          { ...f.fields, login: 'reader', password: `wrong guess ${i}`, decision: 'allow' },
          f.cookie,
        ),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
    expect((await signIn(url(), 'reader', PASSWORDS.reader)).status).toBe(429);
  });
});
