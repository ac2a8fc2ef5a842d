// Shared by the OAuth tests: svc's routes in-process on loopback (with a clock the test moves), users with
// passwords, a client registered over HTTP, PKCE pairs, the sign-in page driven over plain HTTP, and an
// in-memory client provider for the SDK's OAuth client.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { join } from 'node:path';
import type { App } from '../../src/app/open-app.js';
import { openAbilityHost, type AbilityHost } from '../../src/app/ability-host.js';
import { addUser } from '../../src/auth/users.js';
import { parseConfig } from '../../src/cli/load-config.js';
import type { HttpDeps } from '../../src/http/deps.js';
import type { HttpHandler } from '../../src/http/io.js';
import { createHttpServer } from '../../src/http/http-server.js';
import { silentLogger } from '../../src/lib/log.js';
import { httpDeps, serveHandlers } from '../../src/app/http.js';
import { openApp } from './app.js';

export const PASSWORDS = { admin: 'correct horse battery', reader: 'reader password 1' } as const;

export interface OAuthServer {
  app: App;
  host: AbilityHost;
  deps: HttpDeps;
  baseUrl: string;
  mcpUrl: string;
  /** Static bearer tokens by login. */
  tokens: Record<keyof typeof PASSWORDS, string>;
  /** Moves the clock of codes, tokens and forms forward. */
  advance(seconds: number): void;
  /** Another server on the same store, with another public URL: its /mcp is another resource. */
  twin(): Promise<{ baseUrl: string; mcpUrl: string; close(): Promise<void> }>;
  close(): Promise<void>;
}

async function listen(handlers: HttpHandler[]): Promise<{ server: Server; baseUrl: string }> {
  const server = createHttpServer({ logger: silentLogger, handlers });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

export interface OAuthServerOptions {
  mcpAuth?: 'optional' | 'required';
  /** oauth.cimd_allow_hosts: document hosts allowed on loopback. */
  cimdAllowHosts?: string[];
  /** The CA the fetch of metadata documents trusts (a test's own). */
  documentCa?: string;
}

export async function startOAuthServer(opts: OAuthServerOptions = {}): Promise<OAuthServer> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-oauth-'));
  const config = parseConfig({
    data_dir: dir,
    log_level: 'silent',
    server: { mcp_auth: opts.mcpAuth ?? 'required' },
    oauth: { cimd_allow_hosts: opts.cimdAllowHosts ?? [] },
  });
  const app = await openApp(config);
  const tokens = {
    admin: await addUser(app.store.sql, 'admin', 'administrator'),
    reader: await addUser(app.store.sql, 'reader', 'subscriber'),
  };
  await app.passwords.set(app.store.sql, 'admin', PASSWORDS.admin);
  await app.passwords.set(app.store.sql, 'reader', PASSWORDS.reader);
  const host = await openAbilityHost(app);
  let offset = 0;
  const now = () => Date.now() + offset;
  const handlers: HttpHandler[] = [];
  const { server, baseUrl } = await listen(handlers);
  const documentTls = opts.documentCa ? { ca: opts.documentCa } : undefined;
  const deps = httpDeps(app, { publicUrl: baseUrl, now, documentTls });
  handlers.push(...serveHandlers(deps, host));
  const twins: Server[] = [];
  return {
    app,
    host,
    deps,
    baseUrl,
    mcpUrl: `${baseUrl}/mcp`,
    tokens,
    advance: (s) => void (offset += s * 1000),
    async twin() {
      const list: HttpHandler[] = [];
      const t = await listen(list);
      // `localhost` instead of 127.0.0.1: another origin, so another issuer and resource.
      const url = t.baseUrl.replace('127.0.0.1', 'localhost');
      list.push(...serveHandlers(httpDeps(app, { publicUrl: url, now, documentTls }), host));
      twins.push(t.server);
      return { baseUrl: url, mcpUrl: `${url}/mcp`, close: () => closeServer(t.server) };
    },
    async close() {
      await Promise.all([server, ...twins].map(closeServer));
      host.close();
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export async function registerClient(
  baseUrl: string,
  body: Record<string, unknown>,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${baseUrl}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

export interface AuthorizeRequest {
  clientId: string;
  redirectUri: string;
  challenge: string;
  state?: string;
  scope?: string;
  resource?: string;
  method?: string;
}

export function authorizeUrl(baseUrl: string, r: AuthorizeRequest): string {
  const u = new URL('/authorize', baseUrl);
  const p: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: r.clientId,
    redirect_uri: r.redirectUri,
    code_challenge: r.challenge,
    code_challenge_method: r.method ?? 'S256',
    state: r.state,
    scope: r.scope,
    resource: r.resource,
  };
  for (const [k, v] of Object.entries(p)) if (v !== undefined) u.searchParams.set(k, v);
  return u.href;
}

/** The hidden and text inputs of the page's form. */
export function formFields(html: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="(?:hidden|text)" (?:id="[^"]*" )?name="([^"]+)" value="([^"]*)"/g)) {
    out[m[1]!] = m[2]!
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  }
  return out;
}

export interface SignInAnswer {
  status: number;
  /** The Location of a redirect (the client's redirect URI with code or error), else null. */
  location: string | null;
  html: string;
  headers: Headers;
}

/** The page as a browser gets it: status, body, the form's fields and the cookie it sets. */
export async function fetchForm(
  url: string,
  cookie?: string,
): Promise<{ status: number; html: string; headers: Headers; fields: Record<string, string>; cookie: string }> {
  const res = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
  const html = await res.text();
  return {
    status: res.status,
    html,
    headers: res.headers,
    fields: formFields(html),
    cookie: (res.headers.get('set-cookie') ?? '').split(';')[0]!,
  };
}

/** Posts the form back as a browser would (the cookie included), with the given changes. */
export async function postForm(baseUrl: string, fields: Record<string, string>, cookie: string): Promise<SignInAnswer> {
  const res = await fetch(`${baseUrl}/authorize`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: res.status, location: res.headers.get('location'), html: await res.text(), headers: res.headers };
}

/** Fetches the sign-in page, signs in and allows; the answer (a redirect when it worked). */
export async function signIn(
  url: string,
  login: string,
  password: string,
  decision: 'allow' | 'deny' = 'allow',
): Promise<SignInAnswer> {
  const form = await fetchForm(url);
  if (form.status !== 200)
    return { status: form.status, location: form.headers.get('location'), html: form.html, headers: form.headers };
  return postForm(new URL(url).origin, { ...form.fields, login, password, decision }, form.cookie);
}

export async function token(
  baseUrl: string,
  params: Record<string, string>,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${baseUrl}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params).toString(),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/** An MCP initialize on /mcp with this bearer token (none: no header): the status and WWW-Authenticate. */
export async function mcpInit(
  mcpUrl: string,
  bearer?: string,
): Promise<{ status: number; wwwAuthenticate: string | null; body: string }> {
  const res = await fetch(mcpUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
    },
    body: JSON.stringify(INIT),
  });
  return { status: res.status, wwwAuthenticate: res.headers.get('www-authenticate'), body: await res.text() };
}

/**
 * An OAuth client provider of the SDK's client that keeps everything in memory and records where it was sent to
 * sign in. With `clientMetadataUrl` it is a Client ID Metadata Document client (the SDK then never registers).
 */
export class MemoryProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier?: string;
  authUrl?: URL;
  /** True once the SDK registered (saved client information with an id of ours). */
  registered = false;
  readonly stateValue = `state-${Math.random().toString(36).slice(2)}`;
  readonly clientMetadataUrl?: string;
  constructor(private readonly opts: { redirectUri: string; clientName: string; clientMetadataUrl?: string }) {
    this.clientMetadataUrl = opts.clientMetadataUrl;
  }
  get redirectUrl() {
    return this.opts.redirectUri;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.opts.clientName,
      redirect_uris: [this.opts.redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state() {
    return this.stateValue;
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
    if (info.client_id !== this.clientMetadataUrl) this.registered = true;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(t: OAuthTokens) {
    this.saved = t;
  }
  redirectToAuthorization(url: URL) {
    this.authUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    if (!this.verifier) throw new Error('no code verifier saved');
    return this.verifier;
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    if (scope === 'all' || scope === 'tokens') this.saved = undefined;
    if (scope === 'all' || scope === 'client') this.client = undefined;
  }
}
