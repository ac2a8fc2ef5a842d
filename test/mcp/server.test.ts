// The MCP server in-process (SDK Client ⇄ InMemoryTransport ⇄ server): what no ability can be made to do on
// demand — a crash below the ability layer — must still reach the model as a tool result, and the log.
import { Writable } from 'node:stream';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { loadApp } from '../../src/app/open-app.js';
import { parseConfig } from '../../src/cli/load-config.js';
import { silentLogger } from '../../src/lib/log.js';
import { createMcpServer, type McpServerOptions } from '../../src/mcp/mcp-server.js';
import { openAbilityHost } from '../../src/app/ability-host.js';
import type { AbilityHost } from '../../src/abilities/runtime.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-mcp-server-'));
const app = await loadApp(parseConfig({ data_dir: dir, log_level: 'silent' }), { logger: silentLogger });
const host = await openAbilityHost(app);

afterAll(async () => {
  host.close();
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

async function connect(
  h: AbilityHost,
  lines: string[],
  beforeToolCall?: McpServerOptions['beforeToolCall'],
): Promise<Client> {
  const logger = pino({ level: 'debug' }, new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }));
  const server = createMcpServer({ host: h, user: { login: 'root', role: 'administrator' }, logger, beforeToolCall });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 't', version: '1' });
  await client.connect(b);
  return client;
}

/** The host with its registry's execute replaced (the rest of the registry stays the real one). */
function withExecute(execute: AbilityHost['registry']['execute']): AbilityHost {
  return {
    ...host,
    registry: { ...host.registry, list: () => host.registry.list(), get: (n) => host.registry.get(n), execute },
  };
}

describe('mcp server in-process', () => {
  it('turns an unexpected failure below the abilities into an internal_error result and an error log', async () => {
    const lines: string[] = [];
    const broken = withExecute(async () => Promise.reject(new TypeError('disk on fire')));
    const client = await connect(broken, lines);
    const r = (await client.callTool({ name: 'svc-search', arguments: { terms: 'x' } })) as CallToolResult;
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toBeUndefined();
    expect(r.content[0]).toEqual({
      type: 'text',
      text: 'internal_error: svc-search failed unexpectedly; the server log has the details',
    });
    expect(lines.join('')).toMatch(/"level":50.*disk on fire.*tool call failed unexpectedly/s);
    await client.close();
  });

  it('runs a tool as the connection user and logs the call at debug', async () => {
    const lines: string[] = [];
    const client = await connect(host, lines);
    const r = (await client.callTool({
      name: 'svc-search',
      arguments: { terms: 'nothing indexed yet' },
    })) as CallToolResult;
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ success: true, results: { total: 0, hits: [] } });
    expect(lines.join('')).toMatch(/"tool":"svc-search".*"msg":"tool call"/);
    await client.close();
  });

  it('lets the step before a tool call answer instead of the tool, which then does not run', async () => {
    const lines: string[] = [];
    let ran = 0;
    const counting = withExecute(async (...a) => (ran++, host.registry.execute(...a)));
    const seen: string[] = [];
    const client = await connect(counting, lines, async ({ spec, args, user }) => {
      seen.push(`${spec.name} ${JSON.stringify(args)} ${user?.login}`);
      return spec.name === 'svc-delete-pages'
        ? { isError: true, content: [{ type: 'text', text: 'not confirmed' }] }
        : undefined;
    });
    const r = (await client.callTool({
      name: 'svc-delete-pages',
      arguments: { urls: ['http://x.test/a'] },
    })) as CallToolResult;
    expect(r.content[0]).toEqual({ type: 'text', text: 'not confirmed' });
    expect(ran).toBe(0);
    const s = (await client.callTool({ name: 'svc-search', arguments: { terms: 'x' } })) as CallToolResult;
    expect(s.isError).toBeFalsy();
    expect(ran).toBe(1);
    expect(seen).toEqual(['svc-delete-pages {"urls":["http://x.test/a"]} root', 'svc-search {"terms":"x"} root']);
    await client.close();
  });
});
