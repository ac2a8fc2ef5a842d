// What the HTTP entries need, handed down by the composition root (src/app/).
import type { AuthorizationServer } from '../auth/oauth/authorization-server.js';
import type { Backend } from '../backend/backend.js';
import type { Logger } from '../lib/log.js';
import type { Config } from '../model/config.js';
import type { ApiKeyInfo } from '../model/users.js';
import type { RateCounter } from '../model/rate-limits.js';
import type { ConsoleDeps } from './console/deps.js';
import type { BearerVerifier } from './oauth-bearer.js';
import type { AuthorizePage } from './oauth-page.js';

export interface HttpDeps {
  /** The backend of the project with this public token, or null when this service serves no such project. */
  projectBackend(token: string): Backend | null;
  logger: Logger;
  /** The config's `server` section: limits and the allowed Host/Origin headers. */
  server: Config['server'];
  /** `host.rest_root`, where the ability routes live (default /wp-json). */
  restRoot: string;
  /**
   * The stored record of a /v1 API key of any project served here (it names its project), or null for an unknown one.
   * `project`: the project the request names, whose keys are looked at first.
   */
  verifyApiKey(key: string, project?: string): Promise<ApiKeyInfo | null>;
  /** The config's `rate_limits`, and where the counts are kept. */
  rateLimits: Config['rate_limits'];
  rateCounter: RateCounter;
  /** Clock of the rate limit's windows (ms); tests move it. */
  now?: () => number;
  /**
   * OAuth sign-in for /mcp; null when off. `server`: svc as the authorization server, `page` its sign-in page;
   * `provider`: the bearer check's view of it (the resource and the access token verifier) that /mcp uses.
   */
  oauth: { server: AuthorizationServer; page: AuthorizePage; provider: BearerVerifier; issuer: URL } | null;
  /** The console at /console/: the projects, users and sessions it acts on. */
  console: ConsoleDeps;
}
