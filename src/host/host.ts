// STUB — owned by the ability-layer work (issue 5). The host: users, posts, version gate, ability registry.
import type { App } from '../app.js';
import { AbilityError, type AbilityRegistry } from '../abilities/types.js';
import type { User } from './types.js';

export interface Host {
  /** host.version from the config. */
  version: string;
  /** The registry; empty (no abilities) when the host version is below 6.9. */
  registry: AbilityRegistry;
  abilitiesEnabled: boolean;
  /** Why there are no abilities, when there are none. */
  disabledReason: string | null;
  userByLogin(login: string): User | null;
  /** The user whose bearer token this is (compared by hash), or null. */
  userByToken(token: string): User | null;
}

export function createHost(app: App): Host {
  return {
    version: app.config.host.version,
    registry: {
      list: () => [],
      get: () => undefined,
      execute: async (name) => {
        throw new AbilityError('ability_not_found', `no ability named ${name}`, 404);
      },
    },
    abilitiesEnabled: false,
    disabledReason: 'the ability layer is not implemented yet',
    userByLogin: () => null,
    userByToken: () => null,
  };
}
