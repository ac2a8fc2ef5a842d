// What a review of the authorization server got through, each as the attack it tried: a login locked for
// everyone by anyone, a reused rotated refresh token that left the newer tokens alive, a redirect URI that
// matched loosely, userinfo and bidi controls in client metadata, a consent form posted twice, and a login that
// differs from another only in letter case.
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../../src/auth/users.js';
import {
  authorizeUrl,
  fetchForm,
  formFields,
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
    client_name: 'Review',
    redirect_uris: [REDIRECT, 'https://app.example/cb'],
    token_endpoint_auth_method: 'none',
  });
  expect(reg.status).toBe(201);
  clientId = reg.json.client_id as string;
});

afterAll(async () => {
  await srv?.close();
});

const url = (over: Partial<{ redirectUri: string; state: string }> = {}) =>
  authorizeUrl(srv.baseUrl, {
    clientId,
    redirectUri: over.redirectUri ?? REDIRECT,
    challenge: pkce().challenge,
    state: over.state ?? 's',
  });

/** The sign-in page fetched and posted from another loopback address (the server sees 127.0.0.2). */
async function signInFrom(
  localAddress: string,
  pageUrl: string,
  login: string,
  password: string,
): Promise<{ status: number; location: string | null }> {
  const dispatcher = new Agent({ localAddress });
  try {
    const page = await undiciFetch(pageUrl, { dispatcher, redirect: 'manual' });
    const fields = formFields(await page.text());
    const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0]!;
    const res = await undiciFetch(new URL('/authorize', pageUrl), {
      dispatcher,
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({ ...fields, login, password, decision: 'allow' }).toString(),
    });
    await res.text();
    return { status: res.status, location: res.headers.get('location') };
  } finally {
    await dispatcher.close();
  }
}

describe('the review of the authorization server', () => {
  it('(1) failed sign-ins from one address do not lock the login for another address', async () => {
    const own = await startOAuthServer();
    try {
      const reg = await registerClient(own.baseUrl, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
      const u = () =>
        authorizeUrl(own.baseUrl, {
          clientId: reg.json.client_id as string,
          redirectUri: REDIRECT,
          challenge: pkce().challenge,
        });
      for (let i = 0; i < 5; i++) expect((await signIn(u(), 'admin', `wrong ${i} password`)).status).toBe(401);
      // The attacker's address waits...
      expect((await signIn(u(), 'admin', PASSWORDS.admin)).status).toBe(429);
      // ...the owner, elsewhere, signs in.
      const r = await signInFrom('127.0.0.2', u(), 'admin', PASSWORDS.admin);
      expect(r.status).toBe(302);
      expect(new URL(r.location!).searchParams.get('code')).toMatch(/^svc_oac_/);
    } finally {
      await own.close();
    }
  });

  it('(2) a reused rotated refresh token revokes the whole family, the newer tokens included', async () => {
    const p = pkce();
    const r = await signIn(
      authorizeUrl(srv.baseUrl, { clientId, redirectUri: REDIRECT, challenge: p.challenge }),
      'admin',
      PASSWORDS.admin,
    );
    const code = new URL(r.location!).searchParams.get('code')!;
    const t0 = await token(srv.baseUrl, {
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      code_verifier: p.verifier,
    });
    expect(t0.status).toBe(200);
    const t1 = await token(srv.baseUrl, {
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: t0.json.refresh_token as string,
    });
    expect(t1.status).toBe(200);
    expect((await mcpInit(srv.mcpUrl, t1.json.access_token as string)).status).toBe(200);
    const reused = await token(srv.baseUrl, {
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: t0.json.refresh_token as string,
    });
    expect(reused.status).toBe(400);
    expect(reused.json.error).toBe('invalid_grant');
    expect(reused.json.error_description).toMatch(/already used/);
    expect((await mcpInit(srv.mcpUrl, t1.json.access_token as string)).status).toBe(401);
    const newer = await token(srv.baseUrl, {
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: t1.json.refresh_token as string,
    });
    expect(newer.json.error).toBe('invalid_grant');
  });

  it('(3) /authorize matches the redirect URI exactly: no added fragment, no other letter case; a loopback port may differ', async () => {
    for (const bad of [
      `${REDIRECT}#frag`,
      'HTTP://127.0.0.1:9/callback',
      'http://127.0.0.1:9/Callback',
      'HTTPS://app.example/cb',
      'https://app.example/cb#x',
      'https://app.example/cb/',
    ]) {
      const f = await fetchForm(url({ redirectUri: bad }));
      expect(f.status, bad).toBe(400);
      expect(f.headers.get('location'), bad).toBeNull();
      expect(JSON.parse(f.html), bad).toMatchObject({ error: 'invalid_request' });
    }
    const otherPort = await fetchForm(url({ redirectUri: 'http://127.0.0.1:4711/callback' }));
    expect(otherPort.status).toBe(200);
  });

  it('(4) registration refuses userinfo in a redirect URI and bidi controls in the client name', async () => {
    for (const uri of ['https://user:pw@app.example/cb', 'https://user@app.example/cb', 'http://evil@127.0.0.1:9/cb']) {
      const r = await registerClient(srv.baseUrl, { redirect_uris: [uri], token_endpoint_auth_method: 'none' });
      expect(r.status, uri).toBe(400);
      expect(r.json.error, uri).toBe('invalid_redirect_uri');
      expect(r.json.error_description, uri).toMatch(/user name or password/);
    }
    for (const name of ['Good \u202Eloot', 'a\u2066b\u2069', 'x\u200Fy', 'bell\u0007']) {
      const r = await registerClient(srv.baseUrl, {
        client_name: name,
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
      });
      expect(r.status, JSON.stringify(name)).toBe(400);
      expect(r.json.error).toBe('invalid_client_metadata');
      expect(r.json.error_description).toMatch(/^client_name: /);
    }
  });

  it('(5) a consent form is good for one post: not again after allow, nor after deny', async () => {
    const creds = { login: 'admin', password: PASSWORDS.admin };
    const f = await fetchForm(url({ state: 'once' }));
    const first = await postForm(srv.baseUrl, { ...f.fields, ...creds, decision: 'allow' }, f.cookie);
    expect(first.status).toBe(302);
    const again = await postForm(srv.baseUrl, { ...f.fields, ...creds, decision: 'allow' }, f.cookie);
    expect(again.status).toBe(400);
    expect(again.location).toBeNull();
    const g = await fetchForm(url({ state: 'deny-then-allow' }));
    const deny = await postForm(srv.baseUrl, { ...g.fields, decision: 'deny' }, g.cookie);
    expect(new URL(deny.location!).searchParams.get('error')).toBe('access_denied');
    const after = await postForm(srv.baseUrl, { ...g.fields, ...creds, decision: 'allow' }, g.cookie);
    expect(after.status).toBe(400);
    expect(after.location).toBeNull();
  });

  it('(6) a login that differs from another only in letter case is refused', async () => {
    await expect(addUser(srv.app.store.sql, 'ADMIN', 'administrator')).rejects.toThrow(
      /login "ADMIN": a user with this login already exists \(logins are case-insensitive: "admin"\)/,
    );
    await expect(addUser(srv.app.store.sql, 'Reader', 'subscriber')).rejects.toThrow(/already exists/);
    expect(
      (await srv.app.store.sql.all('SELECT login FROM users ORDER BY login')).map(
        (r) => (r as { login: string }).login,
      ),
    ).toEqual(['admin', 'reader']);
  });
});
