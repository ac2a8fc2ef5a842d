// Schema snapshots, one committed file per tool (like github-mcp-server's __toolsnaps__): a change to a tool's
// name, title, description, schemas or hints shows up as a changed file under __snapshots__, on purpose.
// Run `npx vitest run test/mcp/schemas.test.ts -u` to accept a deliberate change, and commit the files.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadApp } from '../../src/app/open-app.js';
import { parseConfig } from '../../src/cli/load-config.js';
import { toolInventory, TOOLS } from '../../src/tools/index.js';
import { createMcpServer, serverInstructions } from '../../src/mcp/mcp-server.js';
import { silentLogger } from '../../src/lib/log.js';
import { openAbilityHost } from '../../src/app/ability-host.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-mcp-schemas-'));
const app = await loadApp(
  parseConfig({ data_dir: dir, log_level: 'silent', targets: [{ host: 'example.org', track_links: 'all' }] }),
  { logger: silentLogger },
);
const host = await openAbilityHost(app);

afterAll(async () => {
  host.close();
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('tool definitions', () => {
  const inv = toolInventory(host.registry);

  it('has one tool per svc/* ability, named with a dash', () => {
    expect(TOOLS.map((t) => t.ability).sort()).toEqual(
      host.registry
        .list()
        .map((a) => a.name)
        .sort(),
    );
    expect(inv.definitions.map((d) => d.name)).toEqual(TOOLS.map((t) => t.name));
    for (const d of inv.definitions) expect(d.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
  });

  it('publishes the ability registry schemas themselves (one source of truth)', () => {
    for (const spec of TOOLS) {
      const ability = host.registry.get(spec.ability)!;
      const def = inv.definitions.find((d) => d.name === spec.name)!;
      expect(def.inputSchema).toBe(ability.inputJsonSchema);
      expect(def.outputSchema).toBe(ability.outputJsonSchema);
      expect(def.title).toBe(ability.label);
      expect(def.annotations).toMatchObject({
        readOnlyHint: ability.annotations.readonly,
        destructiveHint: ability.annotations.destructive,
        idempotentHint: ability.annotations.idempotent,
      });
      expect(typeof def.annotations!.openWorldHint).toBe('boolean');
    }
  });

  for (const spec of TOOLS) {
    it(`${spec.name} matches its committed snapshot`, async () => {
      const def = inv.definitions.find((d) => d.name === spec.name);
      expect(def, `${spec.name} is listed`).toBeDefined();
      await expect(`${JSON.stringify(def, null, 2)}\n`).toMatchFileSnapshot(`./__snapshots__/${spec.name}.json`);
    });
  }

  it('builds a server whose instructions describe the tools, or say why there are none', () => {
    expect(serverInstructions(host)).toMatch(/svc-search/);
    expect(createMcpServer({ host, user: null, logger: silentLogger })).toBeDefined();
    expect(
      serverInstructions({ ...host, abilitiesEnabled: false, disabledReason: 'host version 6.8 is older than 6.9' }),
    ).toMatch(/^This server lists no tools: host version 6\.8/);
  });
});
