// What the abilities live in at run time: the registry, the plain functions and the users of the host, built from
// what the composition root hands over. The plain functions work on every host version; the abilities exist
// only from 6.9 on.
import type { Backend } from '../backend/backend.js';
import type { CrawlTasks } from '../backend/crawl-tasks.js';
import { ABILITIES_MIN_VERSION, hasAbilitiesApi } from '../cms/version.js';
import { userCan } from '../cms/roles.js';
import type { Logger } from '../lib/log.js';
import type { TargetConfig } from '../model/config.js';
import { targetOrigin } from '../model/site-urls.js';
import type { User } from '../model/users.js';
import { CrawlTaskService } from './crawl-tasks.js';
import { deleteConfirmer, type DeleteConfirmer } from './delete-confirmation.js';
import { createSvcFunctions, type SvcFunctions } from './functions.js';
import { registerSvcAbilities } from './index.js';
import { LinkReportCache } from './link-report-cache.js';
import { Registry } from './registry.js';
import type { AbilityRegistry } from './types.js';
import type { Post } from '../model/posts.js';

export interface AbilityHost {
  /** host.version from the config. */
  version: string;
  /** The registry; empty (no abilities) when the host version is below 6.9. */
  registry: AbilityRegistry & Pick<Registry, 'categories'>;
  abilitiesEnabled: boolean;
  /** Why there are no abilities, when there are none. */
  disabledReason: string | null;
  /** The plain functions (no capability checks): available on every host version. */
  functions: SvcFunctions;
  /** The crawl abilities run as tasks kept in the store; null without abilities or without a store for them. */
  tasks: CrawlTaskService | null;
  /** Asks a person before svc/delete-pages deletes (clients that can show a form); null without a signing key. */
  deleteConfirmer: DeleteConfirmer | null;
  userByLogin(login: string): Promise<User | null>;
  /** The user whose bearer token this is (compared by hash), or null. */
  userByToken(token: string): Promise<User | null>;
  /** The configured target hosts (host or host:port), in config order. */
  targetHosts: readonly string[];
  /** The configured targets' origins (scheme://host[:port]), in config order: where the pages svc can read live. */
  targetOrigins: readonly string[];
  /** Whether the user holds the capability (what the abilities check before they run). */
  can(user: User | null, capability: 'read' | 'manage_options'): boolean;
  /** Stops listening to the backend (crawl ends). */
  close(): void;
}

export interface AbilityHostDeps {
  version: string;
  backend: Backend;
  targets: readonly TargetConfig[];
  logger: Logger;
  getPost(id: number): Promise<Post | null>;
  userByLogin(login: string): Promise<User | null>;
  userByToken(token: string): Promise<User | null>;
  /** Where crawl tasks are kept (the store the users live in). */
  crawlTasks?: CrawlTasks;
  /** The key that signs a confirmation's requestState (shared by every process on the store). */
  requestStateKey?: Buffer;
  /** Spends a confirmation's state for its one deletion (false when spent before); without it, states are not kept. */
  spendRequestState?: (requestState: string, now: number) => Promise<boolean>;
  /** The project's public token, bound into each confirmation so one project's cannot serve another's. */
  project?: string;
  /** Clock of the link-report cache (ms); tests move it. */
  now?: () => number;
}

export function createAbilityHost(deps: AbilityHostDeps): AbilityHost {
  const { version } = deps;
  const functions = createSvcFunctions({
    backend: deps.backend,
    getPost: deps.getPost,
    cache: new LinkReportCache({ now: deps.now }),
  });
  const registry = new Registry({ fns: functions, targets: deps.targets });
  const abilitiesEnabled = hasAbilitiesApi(version);
  let disabledReason: string | null = null;
  if (abilitiesEnabled) {
    registerSvcAbilities(registry);
  } else {
    disabledReason = `host version ${version} is older than ${ABILITIES_MIN_VERSION}, the first version with the abilities API: no abilities are registered (the plain svc_* functions still work); set host.version to ${ABILITIES_MIN_VERSION} or newer`;
    deps.logger.warn({ host_version: version }, disabledReason);
  }
  return {
    version,
    registry,
    abilitiesEnabled,
    disabledReason,
    functions,
    tasks: abilitiesEnabled && deps.crawlTasks ? new CrawlTaskService(registry, deps.crawlTasks) : null,
    deleteConfirmer:
      abilitiesEnabled && deps.requestStateKey
        ? deleteConfirmer(deps.requestStateKey, {
            tool: 'svc/delete-pages',
            project: deps.project,
            spend: deps.spendRequestState,
          })
        : null,
    userByLogin: deps.userByLogin,
    userByToken: deps.userByToken,
    targetHosts: deps.targets.map((t) => t.host),
    targetOrigins: deps.targets.map((t) => targetOrigin(t.host, t.scheme)),
    can: (user, capability) => userCan(user, capability),
    close: () => functions.close(),
  };
}
