// The HTTP half of the composition root, apart from open-app.ts so that only `svc serve` (and tests of HTTP) load
// the HTTP stack, Express and the OAuth server: a crawl or a report from the CLI never does.
import type { AbilityHost } from './ability-host.js';
import type { App } from './open-app.js';
import { ConsoleSessions } from '../auth/console-sessions.js';
import { API_KEY_PREFIX, createApiKey, listApiKeys, revokeApiKey, verifyApiKey } from '../auth/keys.js';
import { PasswordSignIn } from '../auth/password-sign-in.js';
import { checkPasswordRules } from '../auth/passwords.js';
import type { FormStore } from '../auth/sign-in-forms.js';
import { addUser, listUsers, USER_TOKEN_PREFIX } from '../auth/users.js';
import { AuthorizationServer } from '../auth/oauth/authorization-server.js';
import { addWebhookReceiver, listWebhookReceivers, removeWebhookReceiver } from '../backend/webhooks/receivers.js';
import { createAddressPolicy, targetEndpoint } from '../crawler/address-policy.js';
import { createDocumentFetch } from '../crawler/document-fetch.js';
import { createRateLimitHandler } from '../http/rate-limit.js';
import { memoryRateCounter, sqlRateCounter } from '../store/rate-limits.js';
import { inSearchPageCount, storedPageCount } from '../store/operator-reads.js';
import { createAbilityRoutesHandler } from '../http/ability-routes.js';
import { consoleSessionSecret, createConsoleHandler } from '../http/console/handler.js';
import type { ConsoleDeps } from '../http/console/deps.js';
import type { HttpDeps } from '../http/deps.js';
import { MCP_PATH, type HttpHandler } from '../http/io.js';
import { createMcpHttpHandler } from '../http/mcp.js';
import { createSignInPage } from '../http/oauth-page.js';
import { createOAuthHandler } from '../http/oauth.js';
import { bearerVerifier } from '../http/oauth-bearer.js';
import { createV1Handler } from '../http/v1.js';
import { packageVersion } from '../lib/package-version.js';
import { BackendError } from '../model/errors.js';

export interface HttpDepsOptions {
  /**
   * The origin clients reach the server at (server.public_url, else the listening address): with it, /mcp is an
   * OAuth protected resource and svc its authorization server. Without it (or when it cannot be an issuer:
   * plain http on a name other than localhost or 127.0.0.1), OAuth is off and /mcp takes static tokens only.
   */
  publicUrl?: string;
  /** Clock of the OAuth codes, tokens and sign-in forms, and of the rate limit's windows (ms); tests move it. */
  now?: () => number;
  /** More TLS options of the fetch of Client ID Metadata Documents (a test's own CA). */
  documentTls?: { ca: string | Buffer };
}

/** Why this URL cannot be the OAuth issuer, or null when it can (https, or http on localhost/127.0.0.1). */
export function issuerProblem(url: URL): string | null {
  if (url.protocol === 'https:' || url.hostname === 'localhost' || url.hostname === '127.0.0.1') return null;
  return `OAuth needs an https issuer (or http on localhost or 127.0.0.1), not ${url.origin}: set server.public_url`;
}

/** What the HTTP entries (/v1, the ability routes, /mcp, OAuth) need of this app. Build it once per server. */
export function httpDeps(app: App, opts: HttpDepsOptions = {}): HttpDeps {
  let oauth: HttpDeps['oauth'] = null;
  // One password check for the OAuth page and the console: failed attempts on either count for both.
  const passwordSignIn = new PasswordSignIn({ sql: app.store.sql, passwords: app.passwords, now: opts.now });
  // The sign-in forms of the OAuth page and the console: signed and spent in the host side's store.
  const forms: FormStore = { sql: app.store.sql, dataDir: app.dataDir, now: opts.now };
  if (opts.publicUrl) {
    const issuer = new URL(opts.publicUrl);
    const problem = issuerProblem(issuer);
    if (problem) app.logger.warn({ public_url: issuer.origin }, `OAuth sign-in is off: ${problem}`);
    else {
      const origin = new URL(issuer.origin);
      // A metadata document is fetched as the crawler fetches: public addresses only, unless a host is allowed.
      const policy = createAddressPolicy(app.config.oauth.cimd_allow_hosts.map((h) => targetEndpoint(h, 'https')));
      const server = new AuthorizationServer({
        sql: app.store.sql,
        issuer: origin.href,
        resource: new URL(MCP_PATH, issuer),
        fetchDocument: createDocumentFetch({ policy, tls: opts.documentTls }),
        now: opts.now,
        passwordSignIn,
      });
      oauth = { server, page: createSignInPage({ forms }), provider: bearerVerifier(server), issuer: origin };
    }
  }
  return {
    projectBackend: (token) => app.project(token)?.backend ?? null,
    logger: app.logger,
    server: app.config.server,
    restRoot: app.config.host.rest_root,
    // Each project's keys live in its own database; a key found in one names that project, so a valid key of
    // another project is told apart from an invalid one (404, not 401), as when all keys were in one database. The
    // project the request names is asked first: a right key costs one lookup however many projects there are.
    verifyApiKey: async (key, project) => {
      const named = project === undefined ? null : app.project(project);
      for (const p of named ? [named, ...app.projects.filter((q) => q !== named)] : app.projects) {
        const info = await verifyApiKey(p.store.sql, key);
        if (info) return info;
      }
      return null;
    },
    oauth,
    console: consoleDeps(app, passwordSignIn, forms, opts),
    rateLimits: app.config.rate_limits,
    rateCounter: app.store.dialect === 'pg' ? sqlRateCounter(app.store.sql) : memoryRateCounter(),
    now: opts.now,
  };
}

/** What the console acts on: every project's backend and keys, and the users of the host side (the first store). */
function consoleDeps(
  app: App,
  passwordSignIn: PasswordSignIn,
  signInForms: FormStore,
  opts: HttpDepsOptions,
): ConsoleDeps {
  const sql = app.store.sql;
  return {
    projects: app.projects.map((p) => ({
      token: p.token,
      backend: p.backend,
      figures:
        p.backend.kind === 'embedded'
          ? async () => {
              const [pages, inSearch, size] = await Promise.all([
                storedPageCount(p.store.sql),
                inSearchPageCount(p.store.sql),
                p.store.sizeOnDisk(),
              ]);
              return { pages, inSearch, bytes: size.bytes, counted: size.counted };
            }
          : null,
      targets: p.config.targets,
      webhooks: {
        configured: p.config.webhooks.map((w) => ({ url: w.url, events: w.events })),
        list: () => listWebhookReceivers(p.webhookReceivers),
        async add(input) {
          if (p.backend.kind !== 'embedded')
            throw new BackendError(
              'conflict',
              'webhooks are sent by the /v1 service at api.base_url: add this receiver in its console',
            );
          return addWebhookReceiver(p.webhookReceivers, input);
        },
        remove: (id) => removeWebhookReceiver(p.webhookReceivers, id),
      },
      keys: {
        create: (name) => createApiKey(p.store.sql, p.token, name),
        list: () => listApiKeys(p.store.sql, p.token),
        revoke: (id) => revokeApiKey(p.store.sql, p.token, id),
      },
    })),
    signIn: (login, password, address) => passwordSignIn.signIn(login, password, address),
    sessions: new ConsoleSessions(sql, { now: opts.now }),
    signInForms,
    users: {
      list: () => listUsers(sql),
      async add(login, role, password) {
        // The password's rules first, so a refused one leaves no user without a password behind.
        checkPasswordRules(password);
        await addUser(sql, login, role);
        await app.passwords.set(sql, login, password);
      },
    },
    secureCookies: opts.publicUrl ? new URL(opts.publicUrl).protocol === 'https:' : false,
    toolVersion: packageVersion(),
  };
}

/**
 * The rate limit's key of a bearer token valid here: its subject, so that a user's many tokens (a static one, an
 * OAuth access token per sign-in or refresh) share one budget. A user token or an OAuth access token counts as
 * its user; an API key (a project's, no user's) as that key. null for a token valid for nothing here.
 */
async function tokenKey(deps: HttpDeps, host: AbilityHost, token: string): Promise<string | null> {
  if (token.startsWith(API_KEY_PREFIX)) {
    const key = await deps.verifyApiKey(token);
    return key ? `key:${key.project}:${key.id}` : null;
  }
  if (token.startsWith(USER_TOKEN_PREFIX)) {
    const user = await host.userByToken(token);
    return user ? `user:${user.login}` : null;
  }
  if (!deps.oauth) return null;
  const grant = await deps.oauth.provider.verifyAccessToken(token).catch(() => null);
  const user = grant?.extra?.user as { login: string } | undefined;
  return user ? `user:${user.login}` : null;
}

/** The routes of `svc serve`, in order: the rate limit, /v1, the ability routes, the console, OAuth (when on), /mcp. */
export function serveHandlers(deps: HttpDeps, host: AbilityHost): HttpHandler[] {
  const handlers = [
    createRateLimitHandler({
      limits: deps.rateLimits,
      counter: deps.rateCounter,
      abilitiesRoot: `${deps.restRoot}/abilities/v1`,
      tokenKey: (token) => tokenKey(deps, host, token),
      sessionKey: async (req) => {
        const secret = consoleSessionSecret(req);
        const user = secret ? await deps.console.sessions.user(secret) : null;
        return user ? `user:${user.login}` : null;
      },
      logger: deps.logger,
      now: deps.now,
    }),
    createV1Handler(deps),
    createAbilityRoutesHandler(deps, host),
    createConsoleHandler(deps.console, { logger: deps.logger }),
  ];
  if (deps.oauth) {
    handlers.push(
      createOAuthHandler({
        server: deps.oauth.server,
        page: deps.oauth.page,
        issuer: deps.oauth.issuer,
        logger: deps.logger,
      }),
    );
  }
  handlers.push(createMcpHttpHandler(deps, host));
  return handlers;
}
