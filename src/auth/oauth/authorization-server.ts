// svc as the OAuth 2.1 authorization server of its own /mcp: the decisions of every endpoint, with the HTTP
// layer (src/http/oauth.ts and the sign-in page) doing only I/O. Clients are public (PKCE S256 is their proof;
// no secret is issued, so none is stored): they register themselves (RFC 7591) or, with an https URL as their
// client_id, publish a Client ID Metadata Document. A sign-in yields a one-use code; the code, with the PKCE
// verifier, yields an access token (1 h) and a refresh token (30 d, rotated on every use). Codes and tokens are
// random, stored only as sha256 hashes, and bound to one client, one user and the /mcp resource. A code or a
// refresh token used twice ends every token of its sign-in: someone else may hold what the first use gave.
import { createHash, randomUUID } from 'node:crypto';
import type { User } from '../../model/users.js';
import {
  clientInfoJson,
  codeByHash,
  deleteExpired,
  deleteGrantTokens,
  deleteUserTokens,
  insertClient,
  insertCode,
  insertTokens,
  markCodeUsed,
  markRefreshRotated,
  tokenByHash,
  upsertClient,
  type CodeRow,
  type TokenRow,
} from '../../store/oauth.js';
import type { Sql } from '../../store/sql.js';
import { getUser } from '../../store/users.js';
import { PasswordSignIn, type SignInResult } from '../password-sign-in.js';
import { hashSecret, newSecret, sameHash } from '../secrets.js';
import { checkClientMetadata, redirectUriMatches, type OAuthClient } from './client-metadata.js';
import { OAuthError } from './errors.js';
import { isDocumentClientId, MetadataDocuments, type DocumentClient, type DocumentFetch } from './metadata-document.js';

/** The one scope: what a token lets its client do is what the user's role allows on /mcp. */
export const MCP_SCOPE = 'mcp';
export const SCOPE_DESCRIPTIONS: Record<string, string> = {
  [MCP_SCOPE]: "use svc's MCP tools as you, with what your role allows",
};
const ACCESS_TOKEN_PREFIX = 'svc_oat_';
const REFRESH_TOKEN_PREFIX = 'svc_ort_';
const CODE_PREFIX = 'svc_oac_';

const ACCESS_TOKEN_TTL_S = 3600;
const REFRESH_TOKEN_TTL_S = 30 * 24 * 3600;
const CODE_TTL_S = 120;
const MAX_TOKEN_LENGTH = 256;
const MAX_STATE_LENGTH = 2000;

export type { OAuthClient } from './client-metadata.js';
export type { DocumentClient } from './metadata-document.js';

/** What the sign-in page shows and, once signed in, turns into a code. */
export interface SignInRequest {
  client: OAuthClient | DocumentClient;
  redirectUri: string;
  codeChallenge: string;
  state?: string;
  scopes: string[];
  /** Always the /mcp resource (the client's `resource`, checked, or that by default). */
  resource: string;
}

/**
 * What /authorize does with a request: show the page, refuse it on the spot (the client or its redirect URI is
 * unknown, so nothing may be sent there), or send the client an error at its redirect URI.
 */
export type AuthorizeOutcome = { page: SignInRequest } | { refuse: OAuthError } | { redirect: string };

export type { SignInResult } from '../password-sign-in.js';

export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/** A valid access token: the client, the scopes, the resource, and the user it acts for. */
export interface AccessGrant {
  token: string;
  clientId: string;
  scopes: string[];
  expiresAt: number;
  resource: URL;
  extra: { user: User };
}

export interface AuthorizationServerOptions {
  sql: Sql;
  /** The issuer identifier, as the metadata gives it (sent as `iss` with every authorization response). */
  issuer: string;
  /** The protected resource: <public URL>/mcp. */
  resource: URL;
  /** Fetches a Client ID Metadata Document (through the crawler's address policy). */
  fetchDocument: DocumentFetch;
  /** Clock in ms (tests move it). */
  now?: () => number;
  /**
   * The password check with its limit of failed attempts, shared with the console's sign-in so guesses on either
   * count together; by default one of its own on `sql`.
   */
  passwordSignIn?: PasswordSignIn;
}

/** Two resource indicators name the same thing: fragment and one trailing slash aside. */
function sameResource(a: string, b: string): boolean {
  const norm = (s: string) => s.split('#')[0]!.replace(/\/$/, '');
  return norm(a) === norm(b);
}

function redirectWith(uri: string, params: Record<string, string | undefined>): string {
  const u = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v);
  return u.href;
}

/** One request parameter: a string, absent, or (given twice, or as something else) an invalid_request. */
function param(params: Record<string, unknown>, name: string): string | undefined {
  const v = params[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new OAuthError('invalid_request', `${name}: must be given once, as a string`);
  return v;
}

function required(params: Record<string, unknown>, name: string): string {
  const v = param(params, name);
  if (!v) throw new OAuthError('invalid_request', `${name}: is required`);
  return v;
}

/** RFC 7636: base64url(sha256(verifier)) is the S256 challenge. */
function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

export class AuthorizationServer {
  readonly issuer: string;
  readonly resource: string;
  private readonly sql: Sql;
  private readonly now: () => number;
  private readonly documents: MetadataDocuments;
  private readonly passwords: PasswordSignIn;
  private lastSweep = 0;

  constructor(opts: AuthorizationServerOptions) {
    this.sql = opts.sql;
    this.issuer = opts.issuer;
    this.resource = opts.resource.href;
    this.now = opts.now ?? Date.now;
    this.documents = new MetadataDocuments({ fetch: opts.fetchDocument, now: this.now });
    this.passwords = opts.passwordSignIn ?? new PasswordSignIn({ sql: opts.sql, now: this.now });
  }

  private nowS(): number {
    return Math.floor(this.now() / 1000);
  }

  /** A registered client (the store) by its client_id, or null. */
  private async registeredClient(clientId: string): Promise<OAuthClient | null> {
    const json = clientId.length <= 2000 ? await clientInfoJson(this.sql, clientId) : null;
    return json ? (JSON.parse(json) as OAuthClient) : null;
  }

  /** RFC 7591 registration: the client as stored (public: no secret, whatever it asked for). */
  async register(body: unknown): Promise<OAuthClient> {
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new OAuthError('invalid_client_metadata', 'the body must be a JSON object of client metadata');
    const client: OAuthClient = {
      ...checkClientMetadata(body, randomUUID(), { secretRefused: false, nameRequired: false }),
      client_id_issued_at: this.nowS(),
    };
    await insertClient(this.sql, client.client_id, JSON.stringify(client));
    return client;
  }

  /** The client an authorization request names: a metadata document's (fetched, or kept) or a registered one. */
  private async clientOf(clientId: string): Promise<OAuthClient | DocumentClient> {
    if (isDocumentClientId(clientId)) return this.documents.client(clientId);
    const client = await this.registeredClient(clientId);
    if (!client)
      throw new OAuthError(
        'invalid_client',
        'client_id: no client is registered with this id (register at /register, or use a Client ID Metadata Document URL)',
      );
    return client;
  }

  /** Checks an authorization request (GET query or POST form) and says what /authorize answers. */
  async authorizationRequest(params: Record<string, unknown>): Promise<AuthorizeOutcome> {
    // First the client and where answers go: until both are known, errors are answered here, not sent anywhere.
    let client: OAuthClient | DocumentClient;
    let redirectUri: string;
    try {
      client = await this.clientOf(required(params, 'client_id'));
      const asked = param(params, 'redirect_uri');
      if (asked !== undefined) {
        if (!client.redirect_uris.some((registered) => redirectUriMatches(asked, registered)))
          throw new OAuthError('invalid_request', 'Unregistered redirect_uri');
        redirectUri = asked;
      } else if (client.redirect_uris.length === 1) {
        redirectUri = client.redirect_uris[0]!;
      } else {
        throw new OAuthError('invalid_request', 'redirect_uri: is required when the client has several');
      }
    } catch (err) {
      if (err instanceof OAuthError) return { refuse: err };
      throw err;
    }
    const rawState = params.state;
    const state = typeof rawState === 'string' && rawState ? rawState.slice(0, MAX_STATE_LENGTH) : undefined;
    try {
      const responseType = param(params, 'response_type');
      if (responseType !== 'code')
        throw new OAuthError(
          'unsupported_response_type',
          `response_type: must be "code" (got ${JSON.stringify(responseType ?? null)})`,
        );
      if (typeof rawState === 'string' && rawState.length > MAX_STATE_LENGTH)
        throw new OAuthError('invalid_request', `state: at most ${MAX_STATE_LENGTH} characters`);
      const method = param(params, 'code_challenge_method');
      if (method !== 'S256')
        throw new OAuthError(
          'invalid_request',
          `code_challenge_method: must be S256 (PKCE is required; "plain" is not accepted), got ${JSON.stringify(method ?? null)}`,
        );
      const codeChallenge = required(params, 'code_challenge');
      if (!/^[A-Za-z0-9_-]{43}$/.test(codeChallenge))
        throw new OAuthError(
          'invalid_request',
          'code_challenge: must be the 43-character base64url SHA-256 of the code verifier',
        );
      const scopeText = param(params, 'scope');
      const asked = scopeText?.split(' ').filter(Boolean) ?? [];
      const scopes = asked.length ? [...new Set(asked)] : [MCP_SCOPE];
      const unknown = scopes.filter((s) => !(s in SCOPE_DESCRIPTIONS));
      if (unknown.length)
        throw new OAuthError(
          'invalid_scope',
          `scope: unknown ${unknown.map((s) => `"${s}"`).join(', ')} (supported: ${Object.keys(SCOPE_DESCRIPTIONS).join(' ')})`,
        );
      const resource = param(params, 'resource');
      if (resource !== undefined) {
        if (!URL.canParse(resource)) throw new OAuthError('invalid_request', 'resource: must be an absolute URL');
        if (!sameResource(resource, this.resource))
          throw new OAuthError(
            'invalid_target',
            `resource: "${resource}" is not served here (this server's resource is ${this.resource})`,
          );
      }
      return { page: { client, redirectUri, codeChallenge, state, scopes, resource: this.resource } };
    } catch (err) {
      if (!(err instanceof OAuthError)) throw err;
      return { redirect: redirectWith(redirectUri, { ...err.toResponseObject(), state, iss: this.issuer }) };
    }
  }

  /** Checks a login and password, with the shared limit of failed attempts (see PasswordSignIn). */
  signIn(login: string, password: string, address: string): Promise<SignInResult> {
    return this.passwords.signIn(login, password, address);
  }

  /** The redirect that ends a sign-in: a new code for `user`, with the request's state and our `iss`. */
  async issueCode(request: SignInRequest, user: User): Promise<string> {
    await this.sweep();
    // A metadata document's client gets a row too: codes and tokens name their client, and /token finds it there.
    if ('metadata_document_host' in request.client)
      await upsertClient(this.sql, request.client.client_id, JSON.stringify(request.client));
    const code = newSecret(CODE_PREFIX);
    await insertCode(this.sql, {
      codeHash: hashSecret(code),
      grantId: randomUUID(),
      clientId: request.client.client_id,
      login: user.login,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      scopes: request.scopes.join(' '),
      resource: request.resource,
      expiresAt: this.nowS() + CODE_TTL_S,
    });
    return redirectWith(request.redirectUri, { code, state: request.state, iss: this.issuer });
  }

  /** The redirect of a refused consent: access_denied, with the request's state and our `iss`. */
  denied(request: SignInRequest): string {
    return redirectWith(request.redirectUri, {
      error: 'access_denied',
      error_description: 'the user did not allow access',
      state: request.state,
      iss: this.issuer,
    });
  }

  /** The client of a /token or /revoke request (public: its client_id is all it shows). */
  private async requestingClient(params: Record<string, unknown>): Promise<OAuthClient> {
    const clientId = required(params, 'client_id');
    const client = await this.registeredClient(clientId);
    if (!client)
      throw new OAuthError(
        'invalid_client',
        "client_id: unknown client (a metadata document's client is known once it has signed someone in)",
      );
    return client;
  }

  /** POST /token: an authorization_code or a refresh_token grant. */
  async token(params: Record<string, unknown>): Promise<TokenAnswer> {
    const client = await this.requestingClient(params);
    const grantType = required(params, 'grant_type');
    if (grantType === 'authorization_code') return this.exchangeCode(client, params);
    if (grantType === 'refresh_token') return this.exchangeRefreshToken(client, params);
    throw new OAuthError(
      'unsupported_grant_type',
      `grant_type: "${grantType}" is not supported (authorization_code, refresh_token)`,
    );
  }

  private async findCode(client: OAuthClient, code: string): Promise<CodeRow> {
    const hash = code.length <= MAX_TOKEN_LENGTH ? hashSecret(code) : '';
    const row = hash ? await codeByHash(this.sql, hash) : null;
    if (!row || !sameHash(row.codeHash, hash) || row.clientId !== client.client_id)
      throw new OAuthError('invalid_grant', 'authorization code is not valid');
    if (row.usedAt !== null) await this.replayed(row.grantId, 'authorization code');
    if (row.expiresAt < this.nowS()) throw new OAuthError('invalid_grant', 'authorization code has expired');
    return row;
  }

  /** A code or refresh token used twice: someone else may hold the first use's tokens. End them all. */
  private async replayed(grantId: string, what: string): Promise<never> {
    await deleteGrantTokens(this.sql, grantId);
    throw new OAuthError('invalid_grant', `${what} was already used; the tokens issued from it are revoked`);
  }

  private async exchangeCode(client: OAuthClient, params: Record<string, unknown>): Promise<TokenAnswer> {
    const code = required(params, 'code');
    const verifier = required(params, 'code_verifier');
    const redirectUri = param(params, 'redirect_uri');
    const resource = param(params, 'resource');
    const row = await this.findCode(client, code);
    if (s256(verifier) !== row.codeChallenge)
      throw new OAuthError('invalid_grant', 'code_verifier does not match the challenge');
    if (redirectUri !== undefined && redirectUri !== row.redirectUri)
      throw new OAuthError('invalid_grant', 'redirect_uri does not match the one of the authorization request');
    if (resource !== undefined && !sameResource(resource, row.resource))
      throw new OAuthError('invalid_target', `resource: "${resource}" is not the resource this code was issued for`);
    if (!(await markCodeUsed(this.sql, row.codeHash, this.nowS())))
      await this.replayed(row.grantId, 'authorization code');
    if (!(await getUser(this.sql, row.login)))
      throw new OAuthError('invalid_grant', 'the user of this code no longer exists');
    return this.issueTokens({
      grantId: row.grantId,
      clientId: row.clientId,
      login: row.login,
      scopes: row.scopes,
      resource: row.resource,
    });
  }

  private async exchangeRefreshToken(client: OAuthClient, params: Record<string, unknown>): Promise<TokenAnswer> {
    const refreshToken = required(params, 'refresh_token');
    const resource = param(params, 'resource');
    const scopeText = param(params, 'scope');
    const row = await this.findToken(refreshToken, 'refresh');
    if (!row || row.clientId !== client.client_id) throw new OAuthError('invalid_grant', 'refresh token is not valid');
    if (row.rotatedAt !== null) await this.replayed(row.grantId, 'refresh token');
    if (row.expiresAt < this.nowS()) throw new OAuthError('invalid_grant', 'refresh token has expired');
    if (resource !== undefined && !sameResource(resource, row.resource))
      throw new OAuthError('invalid_target', `resource: "${resource}" is not the resource this token was issued for`);
    const granted = row.scopes.split(' ');
    const asked = scopeText?.split(' ').filter(Boolean) ?? [];
    const wanted = asked.length ? asked : granted;
    const extra = wanted.filter((s) => !granted.includes(s));
    if (extra.length) throw new OAuthError('invalid_scope', `scope: ${extra.join(' ')} was not granted to this token`);
    // Rotation: the old refresh token is marked, not deleted, so that a second use of it is seen for what it is.
    if (!(await markRefreshRotated(this.sql, row.tokenHash, this.nowS())))
      await this.replayed(row.grantId, 'refresh token');
    return this.issueTokens({
      grantId: row.grantId,
      clientId: row.clientId,
      login: row.login,
      scopes: wanted.join(' '),
      resource: row.resource,
    });
  }

  private async issueTokens(
    g: Pick<TokenRow, 'grantId' | 'clientId' | 'login' | 'scopes' | 'resource'>,
  ): Promise<TokenAnswer> {
    const access = newSecret(ACCESS_TOKEN_PREFIX);
    const refresh = newSecret(REFRESH_TOKEN_PREFIX);
    const now = this.nowS();
    await insertTokens(this.sql, [
      { ...g, tokenHash: hashSecret(access), kind: 'access', expiresAt: now + ACCESS_TOKEN_TTL_S },
      { ...g, tokenHash: hashSecret(refresh), kind: 'refresh', expiresAt: now + REFRESH_TOKEN_TTL_S },
    ]);
    return {
      access_token: access,
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_TTL_S,
      refresh_token: refresh,
      scope: g.scopes,
    };
  }

  /** The stored token of that kind (of either kind when none is given), or null. */
  private async findToken(token: string, kind?: TokenRow['kind']): Promise<TokenRow | null> {
    if (!token || token.length > MAX_TOKEN_LENGTH) return null;
    const hash = hashSecret(token);
    const row = await tokenByHash(this.sql, hash);
    return row && (kind === undefined || row.kind === kind) && sameHash(row.tokenHash, hash) ? row : null;
  }

  /** The access token's grant, with the user it acts for (as the user is now: a changed role applies at once). */
  async verifyAccessToken(token: string): Promise<AccessGrant> {
    const row = await this.findToken(token, 'access');
    if (!row) throw new OAuthError('invalid_token', 'invalid access token', 401);
    if (row.expiresAt < this.nowS()) throw new OAuthError('invalid_token', 'access token has expired', 401);
    const user = await getUser(this.sql, row.login);
    if (!user) throw new OAuthError('invalid_token', 'invalid access token', 401);
    return {
      token,
      clientId: row.clientId,
      scopes: row.scopes.split(' '),
      expiresAt: row.expiresAt,
      resource: new URL(row.resource),
      extra: { user },
    };
  }

  /** POST /revoke (RFC 7009): ends the token and every other of its sign-in; an unknown token is no error. */
  async revoke(params: Record<string, unknown>): Promise<void> {
    const client = await this.requestingClient(params);
    const row = await this.findToken(required(params, 'token'));
    if (row && row.clientId === client.client_id) await deleteGrantTokens(this.sql, row.grantId);
  }

  /** Expired codes and tokens are deleted now and then, on the way. */
  private async sweep(): Promise<void> {
    if (this.now() - this.lastSweep < 3600_000) return;
    this.lastSweep = this.now();
    await deleteExpired(this.sql, this.nowS());
  }
}

/** Ends every OAuth token and pending code of a user (`svc users revoke-tokens`); returns the tokens ended. */
export function revokeUserTokens(sql: Sql, login: string): Promise<number> {
  return deleteUserTokens(sql, login);
}
