// The HTTP edges of the OAuth endpoints, ahead of the authorization server's decisions: which methods each answers,
// CORS for browser apps, the bodies it reads (form or JSON, capped, parsed strictly) and the per-address limit, all
// answered as OAuth error objects, never a stack or an HTML page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOAuthServer, type OAuthServer } from '../support/oauth.js';

let srv: OAuthServer;

beforeAll(async () => {
  srv = await startOAuthServer();
});

afterAll(async () => {
  await srv?.close();
});

const post = (path: string, body: string, type: string, headers: Record<string, string> = {}) =>
  fetch(`${srv.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': type, ...headers }, body });

async function oauthError(res: Response): Promise<{ error: string; error_description: string }> {
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.headers.get('cache-control')).toBe('no-store');
  return (await res.json()) as { error: string; error_description: string };
}

describe('methods and CORS', () => {
  it('metadata: GET for anyone (cacheable), a preflight answered, any other method 405 with Allow', async () => {
    const path = '/.well-known/oauth-authorization-server';
    const got = await fetch(`${srv.baseUrl}${path}`);
    expect(got.status).toBe(200);
    expect(got.headers.get('access-control-allow-origin')).toBe('*');
    expect(got.headers.get('cache-control')).toBeNull();
    expect(((await got.json()) as { issuer: string }).issuer).toBe(`${srv.baseUrl}/`);

    const pre = await fetch(`${srv.baseUrl}${path}`, { method: 'OPTIONS' });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-methods')).toBe('GET');
    expect(pre.headers.get('access-control-allow-headers')).toContain('mcp-protocol-version');

    const refused = await post(path, '{}', 'application/json');
    expect(refused.status).toBe(405);
    expect(refused.headers.get('allow')).toBe('GET');
    expect(await oauthError(refused)).toMatchObject({ error: 'method_not_allowed' });
  });

  it('the protected resource metadata answers at the root and at the path-suffixed URL alike', async () => {
    const root = await fetch(`${srv.baseUrl}/.well-known/oauth-protected-resource`);
    const suffixed = await fetch(`${srv.baseUrl}/.well-known/oauth-protected-resource/mcp`);
    expect(root.status).toBe(200);
    expect(suffixed.status).toBe(200);
    expect(await suffixed.json()).toEqual(await root.json());
  });

  it('/token: POST only, a preflight for browser apps; /authorize has no CORS and answers no preflight', async () => {
    const get = await fetch(`${srv.baseUrl}/token`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(get.headers.get('access-control-allow-origin')).toBe('*');
    const pre = await fetch(`${srv.baseUrl}/token`, { method: 'OPTIONS' });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-methods')).toBe('POST');

    const authorize = await fetch(`${srv.baseUrl}/authorize`, { method: 'OPTIONS' });
    expect(authorize.status).toBe(405);
    expect(authorize.headers.get('allow')).toBe('GET, POST');
    expect(authorize.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('bodies', () => {
  it('/register: JSON that does not parse, or is not an object or array, is invalid_request', async () => {
    for (const body of ['{"client_name":', '"a string"', '42']) {
      const res = await post('/register', body, 'application/json');
      expect(res.status, body).toBe(400);
      expect(await oauthError(res), body).toEqual({
        error: 'invalid_request',
        error_description: 'request body does not parse',
      });
    }
  });

  it('/register: a body that is not JSON is not read, and the server says what registration needs', async () => {
    const res = await post('/register', 'client_name=x', 'application/x-www-form-urlencoded');
    expect(res.status).toBe(400);
    expect(await oauthError(res)).toMatchObject({ error: 'invalid_client_metadata' });
  });

  it('a body over 64 KiB is refused with 413 before the server decides anything', async () => {
    const big = JSON.stringify({ client_name: 'x'.repeat(70 * 1024), redirect_uris: ['http://127.0.0.1:9/cb'] });
    const res = await post('/register', big, 'application/json');
    expect(res.status).toBe(413);
    expect(await oauthError(res)).toMatchObject({ error: 'invalid_request' });
    const form = await post('/token', `grant_type=${'x'.repeat(70 * 1024)}`, 'application/x-www-form-urlencoded');
    expect(form.status).toBe(413);
  });

  it('a charset other than UTF-8, or a compressed body, is 415', async () => {
    const latin = await post('/token', 'grant_type=refresh_token', 'application/x-www-form-urlencoded; charset=latin1');
    expect(latin.status).toBe(415);
    expect((await oauthError(latin)).error_description).toContain('LATIN1');
    const gz = await post('/register', '{}', 'application/json', { 'content-encoding': 'gzip' });
    expect(gz.status).toBe(415);
  });

  it('/token: a form parameter given twice is refused by name; a body of another type reads as no parameters', async () => {
    const twice = await post(
      '/token',
      'client_id=a&client_id=b&grant_type=refresh_token',
      'application/x-www-form-urlencoded',
    );
    expect(twice.status).toBe(400);
    expect(await oauthError(twice)).toEqual({
      error: 'invalid_request',
      error_description: 'client_id: must be given once, as a string',
    });

    const json = await post('/token', '{"client_id":"a"}', 'application/json');
    expect(json.status).toBe(400);
    expect(await oauthError(json)).toEqual({ error: 'invalid_request', error_description: 'client_id: is required' });
  });
});

describe('the limit per address', () => {
  it('registrations past 20 an hour from one address get 429 with Retry-After, before the body is read', async () => {
    let res: Response | undefined;
    for (let i = 0; i < 25; i++) {
      res = await post('/register', '{', 'application/json');
      if (res.status === 429) break;
      expect(res.status).toBe(400);
      await res.body?.cancel();
    }
    expect(res!.status).toBe(429);
    expect(Number(res!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await oauthError(res!)).toMatchObject({ error: 'too_many_requests' });
  });
});
