// The Backend contract, run against the embedded engine and against the remote client talking to a facade on
// loopback, each on SQLite and on PostgreSQL (an engine on database_url).
import { afterAll, describe } from 'vitest';
import { RemoteBackend } from '../../src/backend/remote.js';
import { silentLogger } from '../../src/lib/log.js';
import { DIALECTS, storeKit } from '../support/stores.js';
import { backendContract } from '../support/backend-contract.js';
import { makeAppOn, startFacade } from '../support/app.js';

describe.each(DIALECTS)('on %s', (dialect) => {
  const kit = storeKit(dialect);
  afterAll(() => kit.stop());

  backendContract('embedded', async () => {
    const engine = await makeAppOn(kit);
    return { backend: engine.backend, engine, close: () => engine.close() };
  });

  backendContract('remote (undici → /v1 facade on loopback)', async () => {
    const engine = await makeAppOn(kit);
    const facade = await startFacade(engine);
    const backend = new RemoteBackend({
      baseUrl: facade.baseUrl,
      apiKey: facade.key,
      publicToken: engine.backend.publicToken,
      logger: silentLogger,
    });
    return {
      backend,
      engine,
      close: async () => {
        await backend.close();
        await facade.close();
        await engine.close();
      },
    };
  });
});
