// server.json (the MCP Registry entry) checked against the registry's published schema (vendored in test/fixtures,
// see its README), and kept in step with package.json (name, version, mcpName) and manifest.json (the MCP Bundle).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/paths.js';
import { TOOL_NAMES } from '../support/mcp-tool-suite.js';

// ajv-formats is CommonJS: its function is the default export or the module itself, by loader.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (a: Ajv) => Ajv;

const read = <T>(path: string): T => JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as T;

interface ServerJson {
  $schema: string;
  name: string;
  version: string;
  packages: { registryType: string; identifier: string; version: string; transport: { type: string } }[];
  remotes: { type: string; url: string }[];
}

describe('server.json', () => {
  const server = read<ServerJson>('server.json');
  const pkg = read<{ name: string; version: string; mcpName: string }>('package.json');
  const schema = read<{ $id: string }>('test/fixtures/mcp-registry/server.schema.json');

  it("validates against the MCP Registry's schema it names", () => {
    expect(server.$schema).toBe(schema.$id);
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    const validate = ajv.compile(schema);
    expect(validate(server), JSON.stringify(validate.errors, null, 2)).toBe(true);
  });

  it('the schema catches a broken entry (so the check above can fail)', () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    const validate = ajv.compile(schema);
    expect(validate({ ...server, name: 'no slash here' })).toBe(false);
    expect(
      validate({ ...server, packages: [{ ...server.packages[0], transport: { type: 'stdio' }, version: 'latest' }] }),
    ).toBe(false);
  });

  it('names the npm package, its version and mcpName as package.json does; stdio and the remote /mcp', () => {
    expect(server.name).toBe(pkg.mcpName);
    expect(server.version).toBe(pkg.version);
    expect(server.packages).toEqual([
      expect.objectContaining({
        registryType: 'npm',
        identifier: pkg.name,
        version: pkg.version,
        transport: { type: 'stdio' },
      }),
    ]);
    expect(server.remotes).toEqual([
      expect.objectContaining({ type: 'streamable-http', url: 'https://{svc_host}/mcp' }),
    ]);
  });
});

describe('manifest.json', () => {
  const manifest = read<{ version: string; tools: { name: string }[]; user_config: Record<string, unknown> }>(
    'manifest.json',
  );

  it('has the package version, every tool of the inventory, and the config file and user as settings', () => {
    expect(manifest.version).toBe(read<{ version: string }>('package.json').version);
    expect(manifest.tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
    expect(Object.keys(manifest.user_config).sort()).toEqual(['config_file', 'user']);
  });
});
