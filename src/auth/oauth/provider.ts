// svc as an OAuth 2.1 authorization server for its own /mcp, behind the MCP SDK's handlers (mcpAuthRouter's
// parts validate every request's shape, PKCE S256 included; this class decides). Clients register themselves
// and are public (PKCE is their proof; no secret is issued, so none is stored). A sign-in (the page, in the HTTP
// layer) yields a one-use code; the code, with the PKCE verifier, yields an access token (1 h) and a refresh
// token (30 d, rotated on every use). Codes and tokens are random, stored only as sha256 hashes, and bound to
// one client, one user and the /mcp resource. A code exchanged twice revokes everything issued from it.
import { randomUUID } from 'node:crypto';
import type { Response } from 'express';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import {
  AccessDeniedError,
  CustomOAuthError,
  InvalidClientMetadataError,
  InvalidGrantError,
  InvalidScopeError,
  InvalidTargetError,
  InvalidTokenError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type {
  OAuthClientInformationFull,
  OAuthTokenRevocationRequest,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { User } from '../../model/users.js';
import {
  clientInfoJson,
  codeByHash,
  deleteExpired,
  deleteGrantTokens,
  deleteToken,
  deleteUserTokens,
  insertClient,
  insertCode,
  insertTokens,
  markCodeUsed,
  tokenByHash,
  type TokenRow,
} from '../../store/oauth.js';
import type { Sql } from '../../store/sql.js';
import { getUser } from '../../store/users.js';
import { verifyPassword } from '../passwords.js';
import { hashSecret, newSecret, sameHash } from '../secrets.js';
import { AttemptLimiter } from './attempt-limiter.js';

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

/** What the sign-in page shows and, once signed in, turns into a code. */
export interface SignInRequest {
  client: OAuthClientInformationFull;
  redirectUri: string;
  codeChallenge: string;
  state?: string;
  scopes: string[];
  /** Always the /mcp resource (the client's `resource`, checked, or that by default). */
  resource: string;
}

/** Renders the sign-in and consent page for an authorization request (GET), or handles its form (POST). */
export type AuthorizePage = (provider: SvcOAuthProvider, request: SignInRequest, res: Response) => Promise<void>;

export type SignInResult =
  | { user: User }
  | { error: 'invalid_credentials' }
  | { error: 'rate_limited'; retryAfter: number };

export interface SvcOAuthProviderOptions {
  sql: Sql;
  /** The protected resource: <public URL>/mcp. */
  resource: URL;
  authorizePage: AuthorizePage;
  /** Clock in ms (tests move it). */
  now?: () => number;
  /** Failed sign-ins allowed per login and per address in 15 minutes (default 5 and 20). */
  maxFailuresPerLogin?: number;
  maxFailuresPerAddress?: number;
}

/** Two resource indicators name the same thing: fragment and one trailing slash aside. */
function sameResource(a: string, b: string): boolean {
  const norm = (s: string) => s.split('#')[0]!.replace(/\/$/, '');
  return norm(a) === norm(b);
}

/** Redirect URIs a client may register: https, http only on loopback (native apps), or a private-use scheme. */
function redirectUriProblem(uri: string): string | null {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return `redirect_uris: "${uri}" is not a URL`;
  }
  if (u.hash) return `redirect_uris: "${uri}" must not have a fragment`;
  if (u.protocol === 'http:' && !['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname)) {
    return `redirect_uris: "${uri}" must use https (http only on a loopback address)`;
  }
  return null;
}

export class SvcOAuthProvider implements OAuthServerProvider {
  readonly resource: string;
  private readonly sql: Sql;
  private readonly now: () => number;
  private readonly page: AuthorizePage;
  private readonly byLogin: AttemptLimiter;
  private readonly byAddress: AttemptLimiter;
  private lastSweep = 0;

  constructor(opts: SvcOAuthProviderOptions) {
    this.sql = opts.sql;
    this.resource = opts.resource.href;
    this.page = opts.authorizePage;
    this.now = opts.now ?? Date.now;
    const windowMs = 15 * 60 * 1000;
    this.byLogin = new AttemptLimiter({ max: opts.maxFailuresPerLogin ?? 5, windowMs, now: this.now });
    this.byAddress = new AttemptLimiter({ max: opts.maxFailuresPerAddress ?? 20, windowMs, now: this.now });
  }

  private nowS(): number {
    return Math.floor(this.now() / 1000);
  }

  readonly clientsStore: OAuthRegisteredClientsStore = {
    getClient: async (clientId) => {
      const json = clientId.length <= 200 ? await clientInfoJson(this.sql, clientId) : null;
      return json ? (JSON.parse(json) as OAuthClientInformationFull) : undefined;
    },
    registerClient: async (client) => {
      for (const uri of client.redirect_uris) {
        const problem = redirectUriProblem(uri);
        if (problem) throw new CustomOAuthError('invalid_redirect_uri', problem);
      }
      if (client.redirect_uris.length === 0)
        throw new CustomOAuthError('invalid_redirect_uri', 'redirect_uris: at least one is required');
      if (client.grant_types?.some((g) => g !== 'authorization_code' && g !== 'refresh_token')) {
        throw new InvalidClientMetadataError('grant_types: only authorization_code and refresh_token are supported');
      }
      if ((client.client_name?.length ?? 0) > 200)
        throw new InvalidClientMetadataError('client_name: at most 200 characters');
      // Every client is public: the SDK's handler made a secret for a client that asked for one; drop it.
      const {
        client_secret: _secret,
        client_secret_expires_at: _expires,
        ...rest
      } = client as OAuthClientInformationFull;
      const info: OAuthClientInformationFull = {
        ...rest,
        client_id: (client as OAuthClientInformationFull).client_id ?? randomUUID(),
        client_id_issued_at: (client as OAuthClientInformationFull).client_id_issued_at ?? this.nowS(),
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      };
      await insertClient(this.sql, info.client_id, JSON.stringify(info));
      return info;
    },
  };

  /** The SDK's /authorize handler has checked the client, redirect URI and PKCE method; check scope and resource. */
  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
    const scopes = params.scopes?.filter(Boolean).length ? [...new Set(params.scopes.filter(Boolean))] : [MCP_SCOPE];
    const unknown = scopes.filter((s) => !(s in SCOPE_DESCRIPTIONS));
    if (unknown.length)
      throw new InvalidScopeError(
        `scope: unknown ${unknown.map((s) => `"${s}"`).join(', ')} (supported: ${Object.keys(SCOPE_DESCRIPTIONS).join(' ')})`,
      );
    if (params.resource && !sameResource(params.resource.href, this.resource)) {
      throw new InvalidTargetError(
        `resource: "${params.resource.href}" is not served here (this server's resource is ${this.resource})`,
      );
    }
    await this.page(
      this,
      {
        client,
        redirectUri: params.redirectUri,
        codeChallenge: params.codeChallenge,
        state: params.state,
        scopes,
        resource: this.resource,
      },
      res,
    );
  }

  /** Checks a login and password, counting failures per login and per client address. */
  async signIn(login: string, password: string, address: string): Promise<SignInResult> {
    const loginKey = `login:${login.toLowerCase()}`;
    const addressKey = `addr:${address}`;
    const wait = Math.max(this.byLogin.retryAfter(loginKey), this.byAddress.retryAfter(addressKey));
    if (wait > 0) return { error: 'rate_limited', retryAfter: wait };
    const user = await verifyPassword(this.sql, login, password);
    if (!user) {
      this.byLogin.fail(loginKey);
      this.byAddress.fail(addressKey);
      return { error: 'invalid_credentials' };
    }
    this.byLogin.reset(loginKey);
    return { user };
  }

  /** The redirect that ends a sign-in: a new code for `user`, with the request's state. */
  async issueCode(request: SignInRequest, user: User): Promise<string> {
    await this.sweep();
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
    return redirectWith(request.redirectUri, { code, state: request.state });
  }

  /** The redirect of a refused consent: access_denied, with the request's state. */
  denied(request: SignInRequest): string {
    const err = new AccessDeniedError('the user did not allow access');
    return redirectWith(request.redirectUri, {
      error: err.errorCode,
      error_description: err.message,
      state: request.state,
    });
  }

  private async findCode(client: OAuthClientInformationFull, code: string) {
    const hash = code.length <= MAX_TOKEN_LENGTH ? hashSecret(code) : '';
    const row = hash ? await codeByHash(this.sql, hash) : null;
    if (!row || !sameHash(row.codeHash, hash) || row.clientId !== client.client_id)
      throw new InvalidGrantError('authorization code is not valid');
    if (row.usedAt !== null) await this.replayed(row.grantId);
    if (row.expiresAt < this.nowS()) throw new InvalidGrantError('authorization code has expired');
    return row;
  }

  /** A code used twice: someone else may hold the first exchange's tokens. End them all. */
  private async replayed(grantId: string): Promise<never> {
    await deleteGrantTokens(this.sql, grantId);
    throw new InvalidGrantError('authorization code was already used; the tokens issued from it are revoked');
  }

  async challengeForAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<string> {
    return (await this.findCode(client, code)).codeChallenge;
  }

  async exchangeAuthorizationCode(
    client: OAuthClientInformationFull,
    code: string,
    _verifier?: string,
    redirectUri?: string,
    resource?: URL,
  ): Promise<OAuthTokens> {
    const row = await this.findCode(client, code);
    if (redirectUri !== undefined && redirectUri !== row.redirectUri)
      throw new InvalidGrantError('redirect_uri does not match the one of the authorization request');
    if (resource && !sameResource(resource.href, row.resource))
      throw new InvalidTargetError(`resource: "${resource.href}" is not the resource this code was issued for`);
    if (!(await markCodeUsed(this.sql, row.codeHash, this.nowS()))) await this.replayed(row.grantId);
    if (!(await getUser(this.sql, row.login))) throw new InvalidGrantError('the user of this code no longer exists');
    return this.issueTokens({
      grantId: row.grantId,
      clientId: row.clientId,
      login: row.login,
      scopes: row.scopes,
      resource: row.resource,
    });
  }

  async exchangeRefreshToken(
    client: OAuthClientInformationFull,
    refreshToken: string,
    scopes?: string[],
    resource?: URL,
  ): Promise<OAuthTokens> {
    const row = await this.findToken(refreshToken, 'refresh');
    if (!row || row.clientId !== client.client_id) throw new InvalidGrantError('refresh token is not valid');
    if (row.expiresAt < this.nowS()) throw new InvalidGrantError('refresh token has expired');
    if (resource && !sameResource(resource.href, row.resource))
      throw new InvalidTargetError(`resource: "${resource.href}" is not the resource this token was issued for`);
    const granted = row.scopes.split(' ');
    const wanted = scopes?.filter(Boolean).length ? scopes.filter(Boolean) : granted;
    const extra = wanted.filter((s) => !granted.includes(s));
    if (extra.length) throw new InvalidScopeError(`scope: ${extra.join(' ')} was not granted to this token`);
    // Rotation: the old refresh token goes; a concurrent second use finds it gone and fails.
    if (!(await deleteToken(this.sql, row.tokenHash))) throw new InvalidGrantError('refresh token is not valid');
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
  ): Promise<OAuthTokens> {
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
  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const row = await this.findToken(token, 'access');
    if (!row) throw new InvalidTokenError('invalid access token');
    if (row.expiresAt < this.nowS()) throw new InvalidTokenError('access token has expired');
    const user = await getUser(this.sql, row.login);
    if (!user) throw new InvalidTokenError('invalid access token');
    return {
      token,
      clientId: row.clientId,
      scopes: row.scopes.split(' '),
      expiresAt: row.expiresAt,
      resource: new URL(row.resource),
      extra: { user },
    };
  }

  async revokeToken(client: OAuthClientInformationFull, request: OAuthTokenRevocationRequest): Promise<void> {
    const row = await this.findToken(request.token);
    if (row && row.clientId === client.client_id) await deleteGrantTokens(this.sql, row.grantId);
  }

  /** Expired codes and tokens are deleted now and then, on the way. */
  private async sweep(): Promise<void> {
    if (this.now() - this.lastSweep < 3600_000) return;
    this.lastSweep = this.now();
    await deleteExpired(this.sql, this.nowS());
  }
}

function redirectWith(uri: string, params: Record<string, string | undefined>): string {
  const u = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v);
  return u.href;
}

/** Ends every OAuth token and pending code of a user (`svc users revoke-tokens`); returns the tokens ended. */
export function revokeUserTokens(sql: Sql, login: string): Promise<number> {
  return deleteUserTokens(sql, login);
}
