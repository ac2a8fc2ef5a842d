// The Backend contract, run against the embedded engine and against the remote client talking to a facade on loopback.
import { RemoteBackend } from '../../src/backend/remote.js';
import { silentLogger } from '../../src/lib/log.js';
import { backendContract } from './contract.js';
import { makeApp, startFacade } from './helpers.js';

backendContract('embedded', async () => {
  const engine = makeApp();
  return { backend: engine.backend, engine, close: () => engine.close() };
});

backendContract('remote (undici → /v1 facade on loopback)', async () => {
  const engine = makeApp();
  const facade = await startFacade(engine);
  const backend = new RemoteBackend({ baseUrl: facade.baseUrl, apiKey: facade.key, publicToken: engine.backend.publicToken, logger: silentLogger });
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
