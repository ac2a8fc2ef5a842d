// Client ID Metadata Documents and `iss`: a client whose client_id is an https URL signs in without registering.
// Its document is served by a loopback HTTPS server with a throw-away CA made here (openssl), which only the
// server's document fetch trusts (given through the options; TLS checking stays on everywhere). The whole flow
// runs with raw HTTP and with the SDK's own OAuth client; every way a document can be bad gets a clear OAuth error
// and leaves nothing stored.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authorizeUrl,
  fetchForm,
  mcpInit,
  MemoryProvider,
  PASSWORDS,
  pkce,
  postForm,
  registerClient,
  signIn,
  startOAuthServer,
  token,
  type OAuthServer,
} from '../support/oauth.js';

const REDIRECT = 'http://127.0.0.1:9/callback';

interface Doc {
  status?: number;
  headers?: Record<string, string>;
  body: string;
  delayMs?: number;
}

let dir: string;
let ca: string;
let docs: Server;
let docsOrigin: string;
/** What the document server answers, by path; and how often each path was asked. */
const served = new Map<string, Doc>();
const hits = new Map<string, number>();
let srv: OAuthServer;

function openssl(args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

/** A CA and a certificate for 127.0.0.1 and localhost signed by it, valid for a day. */
function makeCertificates(): { ca: string; key: string; cert: string } {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl([
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
    '-days',
    '1',
    '-subj',
    '/CN=svc test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign',
  ]);
  openssl(['req', ...ec, '-keyout', 'srv.key', '-out', 'srv.csr', '-subj', '/CN=127.0.0.1']);
  writeFileSync(join(dir, 'ext.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n');
  openssl([
    'x509',
    '-req',
    '-in',
    'srv.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'srv.crt',
    '-days',
    '1',
    '-extfile',
    'ext.cnf',
  ]);
  const read = (f: string) => readFileSync(join(dir, f), 'utf8');
  return { ca: read('ca.crt'), key: read('srv.key'), cert: read('srv.crt') };
}

/** Serves `doc` at a fresh path and returns its URL (the client_id). */
function publish(name: string, make: (url: string) => Doc): string {
  const url = `${docsOrigin}/clients/${name}.json`;
  served.set(`/clients/${name}.json`, make(url));
  return url;
}

const goodDoc = (url: string, over: Record<string, unknown> = {}, headers: Record<string, string> = {}): Doc => ({
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify({
    client_id: url,
    client_name: 'Doc Agent',
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: 'none',
    ...over,
  }),
});

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-cimd-'));
  const certs = makeCertificates();
  ca = certs.ca;
  docs = createServer({ key: certs.key, cert: certs.cert }, (req, res) => {
    const path = new URL(req.url!, 'https://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const d = served.get(path);
    const answer = () => {
      if (!d) return void res.writeHead(404).end('not found');
      res.writeHead(d.status ?? 200, d.headers ?? {});
      res.end(d.body);
    };
    if (d?.delayMs) setTimeout(answer, d.delayMs);
    else answer();
  });
  await new Promise<void>((resolve) => docs.listen(0, '127.0.0.1', resolve));
  const port = (docs.address() as AddressInfo).port;
  docsOrigin = `https://127.0.0.1:${port}`;
  srv = await startOAuthServer({ cimdAllowHosts: [`127.0.0.1:${port}`], documentCa: ca });
}, 60_000);

afterAll(async () => {
  await srv?.close();
  docs?.closeAllConnections();
  await new Promise<void>((resolve) => (docs ? docs.close(() => resolve()) : resolve()));
  rmSync(dir, { recursive: true, force: true });
});

const clientRow = (clientId: string) =>
  srv.app.sqlite.db.prepare('SELECT info FROM oauth_clients WHERE client_id = ?').get(clientId) as
    | { info: string }
    | undefined;

describe('metadata', () => {
  it('announces metadata documents and iss in the authorization response', async () => {
    const m = (await (await fetch(`${srv.baseUrl}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    expect(m).toMatchObject({
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
      registration_endpoint: `${srv.baseUrl}/register`,
    });
  });
});

describe('a client known by its metadata document', () => {
  it('signs in over raw HTTP: the page shows the document host, the code comes with iss, and it gives working tokens', async () => {
    const clientId = publish('raw', (url) => goodDoc(url, {}, { 'cache-control': 'max-age=60' }));
    const p = pkce();
    const url = authorizeUrl(srv.baseUrl, {
      clientId,
      redirectUri: REDIRECT,
      challenge: p.challenge,
      state: 'doc-state',
      resource: srv.mcpUrl,
    });
    const f = await fetchForm(url);
    expect(f.status, f.html).toBe(200);
    expect(f.html).toContain('<strong id="client-name">Doc Agent</strong>');
    expect(f.html).toContain(`<strong id="client-host">${new URL(docsOrigin).host}</strong>`);
    expect(clientRow(clientId)).toBeUndefined(); // nothing stored before the user allows
    const r = await postForm(
      srv.baseUrl,
      { ...f.fields, login: 'admin', password: PASSWORDS.admin, decision: 'allow' },
      f.cookie,
    );
    expect(r.status, r.html).toBe(302);
    const loc = new URL(r.location!);
    expect(`${loc.origin}${loc.pathname}`).toBe(REDIRECT);
    expect(loc.searchParams.get('state')).toBe('doc-state');
    expect(loc.searchParams.get('iss')).toBe(`${srv.baseUrl}/`);
    const t = await token(srv.baseUrl, {
      grant_type: 'authorization_code',
      client_id: clientId,
      code: loc.searchParams.get('code')!,
      code_verifier: p.verifier,
      redirect_uri: REDIRECT,
    });
    expect(t.status, JSON.stringify(t.json)).toBe(200);
    expect((await mcpInit(srv.mcpUrl, t.json.access_token as string)).status).toBe(200);
    const refreshed = await token(srv.baseUrl, {
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: t.json.refresh_token as string,
    });
    expect(refreshed.status).toBe(200);
    expect(JSON.parse(clientRow(clientId)!.info)).toMatchObject({
      client_id: clientId,
      client_name: 'Doc Agent',
      token_endpoint_auth_method: 'none',
    });
  });

  it('signs in with the SDK client (clientMetadataUrl): no registration, the tools are listed', async () => {
    const clientId = publish('sdk', (url) =>
      goodDoc(url, {
        client_name: 'SDK doc agent',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      }),
    );
    const provider = new MemoryProvider({
      redirectUri: REDIRECT,
      clientName: 'SDK doc agent',
      clientMetadataUrl: clientId,
    });
    const transport = new StreamableHTTPClientTransport(new URL(srv.mcpUrl), { authProvider: provider });
    await expect(new Client({ name: 'cimd', version: '1' }).connect(transport)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    expect(provider.registered).toBe(false);
    expect(provider.authUrl!.searchParams.get('client_id')).toBe(clientId);
    const answer = await signIn(provider.authUrl!.href, 'reader', PASSWORDS.reader);
    expect(answer.status, answer.html).toBe(302);
    const landed = new URL(answer.location!);
    expect(landed.searchParams.get('iss')).toBe(`${srv.baseUrl}/`);
    await transport.finishAuth(landed.searchParams.get('code')!);
    const client = new Client({ name: 'cimd', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(srv.mcpUrl), { authProvider: provider }));
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('svc-search');
    await client.close();
  });

  it('keeps a document as long as its cache headers say, at most 24 hours; no-store means every time', async () => {
    const asked = (id: string) => hits.get(new URL(id).pathname) ?? 0;
    const open = (id: string) =>
      fetchForm(authorizeUrl(srv.baseUrl, { clientId: id, redirectUri: REDIRECT, challenge: pkce().challenge }));
    const minute = publish('minute', (url) => goodDoc(url, {}, { 'cache-control': 'public, max-age=60' }));
    expect((await open(minute)).status).toBe(200);
    expect((await open(minute)).status).toBe(200);
    expect(asked(minute)).toBe(1);
    srv.advance(61);
    expect((await open(minute)).status).toBe(200);
    expect(asked(minute)).toBe(2);
    const long = publish('long', (url) => goodDoc(url, {}, { 'cache-control': 'max-age=31536000' }));
    await open(long);
    srv.advance(23 * 3600);
    await open(long);
    expect(asked(long)).toBe(1);
    srv.advance(3600 + 1);
    await open(long);
    expect(asked(long)).toBe(2);
    const never = publish('never', (url) => goodDoc(url, {}, { 'cache-control': 'no-store, max-age=600' }));
    await open(never);
    await open(never);
    expect(asked(never)).toBe(2);
  });

  it('refuses a redirect_uri the document does not list, on the page itself', async () => {
    const clientId = publish('redirects', (url) => goodDoc(url));
    const f = await fetchForm(
      authorizeUrl(srv.baseUrl, { clientId, redirectUri: 'http://127.0.0.1:9/elsewhere', challenge: pkce().challenge }),
    );
    expect(f.status).toBe(400);
    expect(f.headers.get('location')).toBeNull();
    expect(JSON.parse(f.html)).toMatchObject({
      error: 'invalid_request',
      error_description: 'Unregistered redirect_uri',
    });
  });

  it('sends iss with errors and with a denial too (RFC 9207)', async () => {
    const clientId = publish('errors', (url) => goodDoc(url));
    const bad = await fetch(
      authorizeUrl(srv.baseUrl, {
        clientId,
        redirectUri: REDIRECT,
        challenge: pkce().challenge,
        scope: 'nope',
        state: 'e',
      }),
      { redirect: 'manual' },
    );
    const loc = new URL(bad.headers.get('location')!);
    expect(loc.searchParams.get('error')).toBe('invalid_scope');
    expect(loc.searchParams.get('iss')).toBe(`${srv.baseUrl}/`);
    const deny = await signIn(
      authorizeUrl(srv.baseUrl, { clientId, redirectUri: REDIRECT, challenge: pkce().challenge, state: 'd' }),
      'admin',
      '',
      'deny',
    );
    expect(new URL(deny.location!).searchParams.get('iss')).toBe(`${srv.baseUrl}/`);
  });
});

describe('a bad metadata document gets a clear OAuth error and nothing is stored', () => {
  const attempt = async (clientId: string) => {
    const f = await fetchForm(
      authorizeUrl(srv.baseUrl, { clientId, redirectUri: REDIRECT, challenge: pkce().challenge }),
    );
    expect(f.headers.get('location')).toBeNull();
    expect(clientRow(clientId)).toBeUndefined();
    return { status: f.status, json: JSON.parse(f.html) as { error: string; error_description: string } };
  };

  const cases: [string, (url: string) => Doc, RegExp][] = [
    [
      'not JSON',
      () => ({ headers: { 'content-type': 'application/json' }, body: '<html>hello</html>' }),
      /is not JSON/,
    ],
    ['a JSON array', () => ({ body: '[1,2]' }), /is not a JSON object/],
    [
      'too large',
      (url) => ({ body: JSON.stringify({ client_id: url, client_name: 'x'.repeat(6000), redirect_uris: [REDIRECT] }) }),
      /could not be fetched: it is larger than 5120 bytes/,
    ],
    [
      'another client_id',
      () => goodDoc('https://elsewhere.example/client.json'),
      /names another client_id \("https:\/\/elsewhere\.example\/client\.json"\)/,
    ],
    [
      'a secret-based method',
      (url) => goodDoc(url, { token_endpoint_auth_method: 'client_secret_basic' }),
      /token_endpoint_auth_method: "client_secret_basic" needs a shared secret/,
    ],
    ['a client secret', (url) => goodDoc(url, { client_secret: 's3cret' }), /must not contain a client_secret/],
    ['no client_name', (url) => goodDoc(url, { client_name: undefined }), /client_name: is required/],
    ['no redirect_uris', (url) => goodDoc(url, { redirect_uris: undefined }), /redirect_uris: /],
    [
      'userinfo in a redirect URI',
      (url) => goodDoc(url, { redirect_uris: ['https://me:pw@app.example/cb'] }),
      /must not carry a user name or password/,
    ],
    [
      'bidi controls in the name',
      (url) => goodDoc(url, { client_name: 'Trusted \u202Etneilc' }),
      /client_name: must not contain bidirectional control characters/,
    ],
    ['HTTP 404', (url) => ({ ...goodDoc(url), status: 404 }), /answered HTTP 404/],
  ];
  it.each(cases)('%s', async (name, make, why) => {
    const clientId = publish(name.replace(/\W+/g, '-'), make);
    const r = await attempt(clientId);
    expect(r.status).toBe(400);
    expect(r.json.error).toBe('invalid_client');
    expect(r.json.error_description).toMatch(why);
    expect(r.json.error_description).toContain(clientId);
  });

  it('a slow document times out after 5 s', async () => {
    const clientId = publish('slow', (url) => ({ ...goodDoc(url), delayMs: 7000 }));
    const started = Date.now();
    const r = await attempt(clientId);
    expect(Date.now() - started).toBeLessThan(6900);
    expect(r.json).toMatchObject({ error: 'invalid_client' });
    expect(r.json.error_description).toMatch(/no answer within 5 s/);
  }, 15_000);

  it('a document on a loopback or private address that cimd_allow_hosts does not list is not fetched', async () => {
    // localhost is the same server, but not the host the allow list names.
    const clientId = publish('private', (url) => goodDoc(url)).replace('127.0.0.1', 'localhost');
    served.set(new URL(clientId).pathname, goodDoc(clientId));
    const before = hits.get(new URL(clientId).pathname) ?? 0;
    const r = await attempt(clientId);
    expect(r.json.error).toBe('invalid_client');
    // Said without what the name resolves to: the caller is not signed in, and may be mapping the network.
    expect(r.json.error_description).toMatch(/its host is not one svc may fetch from/);
    expect(r.json.error_description).not.toMatch(/resolves|127\.0\.0\.1|::1|loopback/);
    expect(hits.get(new URL(clientId).pathname) ?? 0).toBe(before);
  });

  it('a URL client_id that is not https, has no path, or carries a fragment or userinfo is refused without a fetch', async () => {
    for (const [id, why] of [
      [`http://127.0.0.1:9/client.json`, /must use https/],
      [`${docsOrigin}/`, /must have a path/],
      [`${docsOrigin}/c.json#x`, /must not have a fragment/],
      [`https://me@127.0.0.1:9/c.json`, /must not carry a user name or password/],
      [`${docsOrigin}/a/../c.json`, /"\." or "\.\." path segments/],
    ] as const) {
      const r = await attempt(id);
      expect(r.status, id).toBe(400);
      expect(r.json.error, id).toBe('invalid_client');
      expect(r.json.error_description, id).toMatch(why);
    }
  });

  it('dynamic registration keeps working beside documents', async () => {
    const reg = await registerClient(srv.baseUrl, {
      client_name: 'Old style',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
    });
    expect(reg.status).toBe(201);
    const r = await signIn(
      authorizeUrl(srv.baseUrl, {
        clientId: reg.json.client_id as string,
        redirectUri: REDIRECT,
        challenge: pkce().challenge,
      }),
      'admin',
      PASSWORDS.admin,
    );
    expect(r.status).toBe(302);
    expect(new URL(r.location!).searchParams.get('iss')).toBe(`${srv.baseUrl}/`);
  });
});
