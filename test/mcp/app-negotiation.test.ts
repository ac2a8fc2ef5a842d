// Capability negotiation of the link report App: a client that declares the MCP Apps extension
// (io.modelcontextprotocol/ui) is listed ui://svc/link-report and sees _meta.ui.resourceUri on svc-link-report and
// svc-get-crawl, in both eras (2026-07-28: in every request's _meta; 2025: in initialize, which only a connection
// keeps: stdio). A client without it gets exactly the lists it always got; the tool results never change.
import { Client, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFixture, startServe, type Fixture, type McpServe } from '../support/mcp.js';
import { SERVER_JS } from '../support/paths.js';

const UI = { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } };
const APP_URI = 'ui://svc/link-report';
const MODES = [
  { name: 'legacy (2025-11-25)', mode: 'legacy' },
  { name: 'pinned 2026-07-28', mode: { pin: '2026-07-28' } },
] as const;

let fx: Fixture;
let serve: McpServe;

beforeAll(async () => {
  fx = await makeFixture();
  serve = await startServe(fx);
});

afterAll(async () => {
  await serve?.stop();
  await fx?.cleanup();
});

async function connect(
  transport: 'http' | 'stdio',
  mode: (typeof MODES)[number]['mode'],
  ui: boolean,
  login: 'admin' | 'sub' = 'admin',
): Promise<Client> {
  const client = new Client(
    { name: 'app-host', version: '1.0.0' },
    { versionNegotiation: { mode }, capabilities: ui ? { extensions: UI } : {} },
  );
  let t: Transport;
  if (transport === 'http') {
    t = new StreamableHTTPClientTransport(new URL(serve.mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${fx.tokens[login]}` } },
    });
  } else {
    t = new StdioClientTransport({
      command: process.execPath,
      args: [SERVER_JS, 'mcp', '--config', fx.configPath],
      env: { PATH: process.env.PATH ?? '', SVC_LOG_LEVEL: 'warn', SVC_USER: login },
      stderr: 'pipe',
      cwd: fx.dir,
    });
  }
  await client.connect(t);
  return client;
}

for (const transport of ['http', 'stdio'] as const) {
  for (const m of MODES) {
    // A 2025 client over stateless HTTP declares its capabilities in an initialize no later request remembers.
    const linked = !(transport === 'http' && m.mode === 'legacy');
    describe(`${transport}, ${m.name}`, () => {
      it(`a client declaring the extension ${linked ? 'is' : 'cannot be'} shown the App`, async () => {
        const client = await connect(transport, m.mode, true);
        try {
          const tools = (await client.listTools()).tools;
          const links = Object.fromEntries(
            tools.map((t) => [t.name, (t._meta as { ui?: { resourceUri?: string } } | undefined)?.ui?.resourceUri]),
          );
          expect(links['svc-link-report']).toBe(linked ? APP_URI : undefined);
          expect(links['svc-get-crawl']).toBe(linked ? APP_URI : undefined);
          expect(links['svc-search']).toBeUndefined();
          const listed = (await client.listResources()).resources.map((r) => r.uri);
          expect(listed.includes(APP_URI)).toBe(linked);
          // Readable by URI either way: a host fetches it when it sees the link.
          const read = await client.readResource({ uri: APP_URI });
          const doc = read.contents[0] as { mimeType?: string; text?: string };
          expect(doc.mimeType).toBe('text/html;profile=mcp-app');
          expect(doc.text).toMatch(/^<!doctype html>/);
          // Self-contained: no script, style or frame from elsewhere.
          expect(doc.text).not.toMatch(/<(script|img|iframe)[^>]+src=|<link\b/i);
          expect(doc.text!.match(/<script\b/g)).toHaveLength(1);
        } finally {
          await client.close();
        }
      });

      it('a client without the extension sees no link and no App resource', async () => {
        const client = await connect(transport, m.mode, false);
        try {
          const tools = (await client.listTools()).tools;
          for (const t of tools) expect(t._meta?.ui).toBeUndefined();
          expect((await client.listResources()).resources.map((r) => r.uri)).not.toContain(APP_URI);
        } finally {
          await client.close();
        }
      });
    });
  }
}
