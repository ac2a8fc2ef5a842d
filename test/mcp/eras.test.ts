// Both protocol eras on both transports, driven by the SDK's v2 client: `legacy` (the 2025 `initialize`
// handshake), `auto` (probes with server/discover, then speaks 2026-07-28) and pinned to 2026-07-28. Each does
// every job end to end: list the tools, call one, read resources, get a prompt, complete its argument, and run a
// crawl followed by svc-get-crawl with progress. Then raw 2026-07-28 requests: the header checks, the unknown
// version, resultType and the cache hints.
import {
  Client,
  StreamableHTTPClientTransport,
  type CallToolResult,
  type Progress,
  type Transport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFixture, startServe, type Fixture, type McpServe } from '../support/mcp.js';
import { TOOL_NAMES } from '../support/mcp-tool-suite.js';
import { legacyInitialize } from '../support/mcp-raw.js';
import { SERVER_JS } from '../support/paths.js';

const MODERN = '2026-07-28';
const MODES = [
  { name: 'legacy', mode: 'legacy', era: 'legacy', version: '2025-11-25' },
  { name: 'auto', mode: 'auto', era: 'modern', version: MODERN },
  { name: `pinned ${MODERN}`, mode: { pin: MODERN }, era: 'modern', version: MODERN },
] as const;

let fx: Fixture;
let serve: McpServe;

beforeAll(async () => {
  fx = await makeFixture({ siteDelayMs: 150 });
  serve = await startServe(fx);
});

afterAll(async () => {
  await serve?.stop();
  await fx?.cleanup();
});

type Mode = (typeof MODES)[number]['mode'];

async function connect(transport: 'http' | 'stdio', mode: Mode): Promise<Client> {
  const client = new Client({ name: 'eras', version: '1.0.0' }, { versionNegotiation: { mode } });
  let t: Transport;
  if (transport === 'http') {
    t = new StreamableHTTPClientTransport(new URL(serve.mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${fx.tokens.admin}` } },
    });
  } else {
    const env = { PATH: process.env.PATH ?? '', SVC_LOG_LEVEL: 'warn', SVC_USER: 'admin' };
    t = new StdioClientTransport({
      command: process.execPath,
      args: [SERVER_JS, 'mcp', '--config', fx.configPath],
      env,
      stderr: 'pipe',
      cwd: fx.dir,
    });
  }
  await client.connect(t);
  return client;
}

const text = (r: CallToolResult) => (r.content[0]?.type === 'text' ? r.content[0].text : '');

for (const transport of ['http', 'stdio'] as const) {
  describe(`v2 client over ${transport}`, () => {
    for (const m of MODES) {
      it(`${m.name}: negotiates the ${m.era} era and does every job, a crawl with progress included`, async () => {
        const client = await connect(transport, m.mode);
        try {
          expect(client.getProtocolEra()).toBe(m.era);
          expect(client.getNegotiatedProtocolVersion()).toBe(m.version);
          expect(client.getInstructions()).toMatch(/svc-search/);

          const tools = (await client.listTools()).tools;
          expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES);

          const search = (await client.callTool({
            name: 'svc-search',
            arguments: { terms: 'quokka' },
          })) as CallToolResult;
          expect(search.isError, text(search)).toBeFalsy();
          expect(search.structuredContent).toMatchObject({ success: true });

          const prompts = (await client.listPrompts()).prompts;
          expect(prompts.map((p) => p.name)).toEqual(['audit-broken-links']);
          const prompt = await client.getPrompt({ name: 'audit-broken-links', arguments: { target: fx.site.host } });
          expect(prompt.messages[0]!.content).toMatchObject({
            type: 'text',
            text: expect.stringContaining(`Audit the broken links of the site ${fx.site.host}.`),
          });
          const completion = await client.complete({
            ref: { type: 'ref/prompt', name: 'audit-broken-links' },
            argument: { name: 'target', value: '' },
          });
          expect(completion.completion.values).toEqual([fx.site.host]);

          const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
          expect(templates).toEqual(['svc://crawls/{id}', 'svc://link-report/{target}', `${fx.site.origin}{+path}`]);
          const reportUri = `svc://link-report/${encodeURIComponent(fx.site.host)}`;
          expect((await client.listResources()).resources.map((r) => r.uri)).toContain(reportUri);
          const report = await client.readResource({ uri: reportUri });
          expect(report.contents[0]).toMatchObject({ uri: reportUri, mimeType: 'application/json' });
          expect(JSON.parse((report.contents[0] as { text: string }).text)).toHaveProperty('summary');

          const started = (await client.callTool({ name: 'svc-full-crawl', arguments: {} })) as CallToolResult;
          expect(started.isError, text(started)).toBeFalsy();
          const id = (started.structuredContent as { id: number }).id;
          const progress: Progress[] = [];
          let status = 'running';
          for (let round = 0; round < 10 && (status === 'queued' || status === 'running'); round++) {
            const r = (await client.callTool(
              { name: 'svc-get-crawl', arguments: { id, wait_seconds: 30 } },
              { onprogress: (p) => void progress.push(p), timeout: 60_000 },
            )) as CallToolResult;
            status = (r.structuredContent as { status: string }).status;
          }
          expect(status).toBe('completed');
          expect(progress.length, 'progress notifications').toBeGreaterThanOrEqual(1);
          // Issue 39's one vocabulary of counts: pages stored so far, links and broken ones, as every surface says them.
          const last = progress.at(-1)!;
          const said = new RegExp(`^crawl ${id}: (\\d+) pages?, \\d+ links? \\(\\d+ broken\\)`).exec(
            last.message ?? '',
          );
          expect(said, last.message).not.toBeNull();
          expect(Number(said![1])).toBe(last.progress);
          expect(progress.every((p) => p.total === undefined || p.total >= p.progress)).toBe(true);
          expect((await client.readResource({ uri: `svc://crawls/${id}` })).contents[0]).toMatchObject({
            mimeType: 'application/json',
          });
          // Search, then read: the hit's section by svc-get-page, the hit's URL by resources/read.
          const found = (await client.callTool({
            name: 'svc-search',
            arguments: { terms: 'wombat census' },
          })) as CallToolResult;
          const hit = (found.structuredContent as { results: { hits: { url: string; section: { anchor: string } }[] } })
            .results.hits[0]!;
          const page = (await client.callTool({
            name: 'svc-get-page',
            arguments: { url: hit.url, section: hit.section.anchor },
          })) as CallToolResult;
          expect(page.isError, text(page)).toBeFalsy();
          expect(page.structuredContent).toMatchObject({ url: hit.url, section: hit.section.anchor });
          const resource = await client.readResource({ uri: hit.url });
          expect(JSON.parse((resource.contents[0] as { text: string }).text)).toMatchObject({ url: hit.url });
        } finally {
          await client.close();
        }
      }, 90_000);
    }
  });
}

describe(`raw ${MODERN} requests on /mcp`, () => {
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  let id = 0;

  interface PostOptions {
    /** Replaces the standard MCP headers the request would carry. */
    headers?: Record<string, string>;
    meta?: Record<string, unknown>;
    accept?: string;
    token?: string;
  }

  /** A POST of one request with the headers a 2026-07-28 client sends, as admin unless told otherwise. */
  function post(method: string, params: Record<string, unknown>, opts: PostOptions = {}): Promise<Response> {
    const standard: Record<string, string> = { 'mcp-protocol-version': MODERN, 'mcp-method': method };
    if (typeof params.name === 'string') standard['mcp-name'] = params.name;
    if (typeof params.uri === 'string') standard['mcp-name'] = params.uri;
    return fetch(serve.mcpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: opts.accept ?? 'application/json',
        authorization: `Bearer ${opts.token ?? fx.tokens.admin}`,
        ...(opts.headers ?? standard),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params: { ...params, _meta: opts.meta ?? envelope } }),
    });
  }

  /** post, read as one JSON-RPC answer. */
  async function rpc(method: string, params: Record<string, unknown>, opts?: PostOptions) {
    const res = await post(method, params, opts);
    return {
      status: res.status,
      body: (await res.json()) as {
        result?: Record<string, unknown>;
        error?: { code: number; message: string; data?: Record<string, unknown> };
      },
    };
  }

  it('answers server/discover with the version, instructions, resultType and cache hints', async () => {
    const r = await rpc('server/discover', {});
    expect(r.status).toBe(200);
    expect(r.body.result).toMatchObject({
      supportedVersions: [MODERN],
      resultType: 'complete',
      ttlMs: expect.any(Number),
      cacheScope: 'public',
    });
    expect(r.body.result!.instructions).toMatch(/svc-search/);
  });

  it('puts resultType on every result and ttlMs/cacheScope on lists and reads, public only where every user sees the same', async () => {
    const tools = await rpc('tools/list', {});
    expect(tools.body.result).toMatchObject({
      resultType: 'complete',
      cacheScope: 'public',
      ttlMs: expect.any(Number),
    });
    expect((tools.body.result!.tools as { name: string }[]).map((t) => t.name)).toEqual(TOOL_NAMES);
    expect((await rpc('prompts/list', {})).body.result).toMatchObject({ resultType: 'complete', cacheScope: 'public' });
    expect((await rpc('resources/templates/list', {})).body.result).toMatchObject({
      resultType: 'complete',
      cacheScope: 'public',
    });
    // What a user may read depends on the user.
    expect((await rpc('resources/list', {})).body.result).toMatchObject({
      resultType: 'complete',
      cacheScope: 'private',
      ttlMs: 0,
    });
    const read = await rpc('resources/read', { uri: `svc://link-report/${encodeURIComponent(fx.site.host)}` });
    expect(read.body.result).toMatchObject({ resultType: 'complete', cacheScope: 'private', ttlMs: 0 });
    const call = await rpc('tools/call', { name: 'svc-search', arguments: { terms: 'quokka' } });
    expect(call.body.result).toMatchObject({ resultType: 'complete', structuredContent: { success: true } });
  });

  it('answers a missing or mismatched MCP-Protocol-Version, Mcp-Method or Mcp-Name with -32020 and HTTP 400', async () => {
    const cases: [string, string, Record<string, unknown>, Record<string, string>][] = [
      ['no MCP-Protocol-Version', 'tools/list', {}, { 'mcp-method': 'tools/list' }],
      ['no Mcp-Method', 'tools/list', {}, { 'mcp-protocol-version': MODERN }],
      ['another Mcp-Method', 'tools/list', {}, { 'mcp-protocol-version': MODERN, 'mcp-method': 'prompts/list' }],
      [
        'another MCP-Protocol-Version',
        'tools/list',
        {},
        { 'mcp-protocol-version': '2025-11-25', 'mcp-method': 'tools/list' },
      ],
      [
        'no Mcp-Name',
        'tools/call',
        { name: 'svc-search', arguments: { terms: 'x' } },
        { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call' },
      ],
      [
        'another Mcp-Name',
        'tools/call',
        { name: 'svc-search', arguments: { terms: 'x' } },
        { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'svc-delete-pages' },
      ],
    ];
    for (const [what, method, params, headers] of cases) {
      const r = await rpc(method, params, { headers });
      expect(r.status, what).toBe(400);
      expect(r.body.error?.code, what).toBe(-32020);
    }
  });

  it('answers an unknown protocol version with -32022 naming the supported ones', async () => {
    const r = await rpc(
      'tools/list',
      {},
      {
        headers: { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'tools/list' },
        meta: { ...envelope, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' },
      },
    );
    expect(r.body.error).toMatchObject({ code: -32022, data: { supported: [MODERN], requested: '2099-01-01' } });
  });

  it('keeps no state between requests: a call needs no discover first, and a tool error is a result', async () => {
    const r = await rpc('tools/call', { name: 'svc-get-page-meta', arguments: { post_id: 999 } });
    expect(r.status).toBe(200);
    expect(r.body.result).toMatchObject({ resultType: 'complete', isError: true });
  });

  it("filters logging notifications by the level in the request's _meta (none when it names none)", async () => {
    const call = async (meta: Record<string, unknown>, name: string, args: Record<string, unknown>) =>
      (
        await post('tools/call', { name, arguments: args }, { meta, accept: 'application/json, text/event-stream' })
      ).text();
    const search = (meta: Record<string, unknown>) => call(meta, 'svc-search', { terms: 'quokka' });
    // A tool error is a warning: sent when the request asks for warnings, not when it names no level.
    const failing = (meta: Record<string, unknown>) => call(meta, 'svc-get-page-meta', { post_id: 999 });
    expect(await failing({ ...envelope, 'io.modelcontextprotocol/logLevel': 'warning' })).toMatch(
      /"method":"notifications\/message".*"level":"warning"/,
    );
    expect(await failing(envelope)).not.toMatch(/notifications\/message/);
    expect(await search({ ...envelope, 'io.modelcontextprotocol/logLevel': 'info' })).toMatch(
      /"method":"notifications\/message".*"level":"info".*svc-search answered/,
    );
    const quiet = await search(envelope);
    expect(quiet).not.toMatch(/notifications\/message/);
    expect(quiet).toMatch(/"resultType":"complete"/);
  });

  it('serves 2025-06-18 and 2025-11-25 clients their own version on the same path', async () => {
    for (const version of ['2025-06-18', '2025-11-25']) {
      const body = { result: await legacyInitialize(serve.mcpUrl, version) };
      expect(body.result, version).toMatchObject({ protocolVersion: version, serverInfo: { name: 'svc' } });
      expect(body.result, version).not.toHaveProperty('resultType');
    }
  });

  it('still challenges a request without a valid token before reading it', async () => {
    const res = await post('tools/list', {}, { token: 'svc_user_wrong' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer.*invalid_token/);
  });
});
