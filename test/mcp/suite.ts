// The tool behaviour both transports must show, written once: listing, every tool as administrator, as
// subscriber and with no user, invalid inputs, and every successful structuredContent checked against the
// tool's published outputSchema.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { expect, it } from 'vitest';
import { textOf, waitFor, type Fixture } from './fixture.js';

export const TOOL_NAMES = ['svc-search', 'svc-get-page-meta', 'svc-link-report', 'svc-full-crawl', 'svc-partial-crawl', 'svc-manual-crawl', 'svc-delete-pages'];

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const CRAWL = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };
export const HINTS: Record<string, Record<string, boolean>> = {
  'svc-search': READ,
  'svc-get-page-meta': READ,
  'svc-link-report': READ,
  'svc-full-crawl': CRAWL,
  'svc-partial-crawl': CRAWL,
  'svc-manual-crawl': CRAWL,
  'svc-delete-pages': { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
};

export interface Clients {
  admin: Client;
  sub: Client;
  alice: Client;
  none: Client;
}

const validator = new AjvJsonSchemaValidator();

/** Calls a tool; a success must carry structuredContent valid against the tool's outputSchema, and the same JSON as text. */
export async function call(client: Client, tools: Tool[], name: string, args?: Record<string, unknown>): Promise<CallToolResult> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) {
    expect(result.structuredContent).toBeUndefined();
    expect(textOf(result)).toMatch(/^[a-z_]+: /);
    return result;
  }
  const tool = tools.find((t) => t.name === name)!;
  const check = validator.getValidator(tool.outputSchema!)(result.structuredContent);
  expect(check.errorMessage ?? null, `${name} output vs outputSchema`).toBeNull();
  expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
  return result;
}

export function errorCode(result: CallToolResult): string | null {
  return result.isError ? textOf(result).split(':')[0]! : null;
}

/** Starts a crawl, retrying while another crawl still runs (svc_api_error, 409). */
async function startCrawl(client: Client, tools: Tool[], name: string, args?: Record<string, unknown>): Promise<CallToolResult> {
  return waitFor(
    async () => {
      const r = await call(client, tools, name, args);
      return errorCode(r) === 'svc_api_error' && /running|409|conflict/i.test(textOf(r)) ? undefined : r;
    },
    20_000,
    `${name} to start`,
  );
}

/** Registers the shared tests; `get` hands over the clients and fixture set up by the transport's beforeAll. */
export function toolCallSuite(get: () => { clients: Clients; fx: Fixture }): void {
  let tools: Tool[] = [];

  it('lists the seven tools with title, description, all four hints and object schemas', async () => {
    const { clients } = get();
    tools = (await clients.none.listTools()).tools;
    expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES);
    for (const t of tools) {
      expect(t.title, t.name).toBeTruthy();
      expect(t.description!.length, t.name).toBeGreaterThan(80);
      expect(t.description, t.name).not.toMatch(/svc\/[a-z]/); // siblings are named by their tool names
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema?.type).toBe('object');
      expect(t.annotations).toEqual({ title: t.title, ...HINTS[t.name] });
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName['svc-delete-pages']!.description).toMatch(/50/);
    expect(byName['svc-link-report']!.description).toMatch(/15 minutes/);
    expect(byName['svc-link-report']!.description).toMatch(/refresh/);
    // Every user sees the same list; listing also makes each client check structuredContent against outputSchema.
    for (const c of [clients.admin, clients.sub, clients.alice]) expect((await c.listTools()).tools).toEqual(tools);
  });

  it('answers ability_invalid_permissions for every tool without a current user', async () => {
    const { clients, fx } = get();
    const valid: Record<string, Record<string, unknown>> = {
      'svc-search': { terms: 'quokka' },
      'svc-get-page-meta': { post_id: 101 },
      'svc-link-report': {},
      'svc-full-crawl': {},
      'svc-partial-crawl': {},
      'svc-manual-crawl': { urls: [fx.site.url('/about')] },
      'svc-delete-pages': { urls: [fx.site.url('/about')] },
    };
    for (const name of TOOL_NAMES) {
      const r = await call(clients.none, tools, name, valid[name]);
      expect(errorCode(r), name).toBe('ability_invalid_permissions');
    }
  });

  it('refuses the manage_options tools to a subscriber', async () => {
    const { clients, fx } = get();
    for (const [name, args] of [
      ['svc-link-report', {}],
      ['svc-full-crawl', {}],
      ['svc-partial-crawl', {}],
      ['svc-manual-crawl', { urls: [fx.site.url('/about')] }],
      ['svc-delete-pages', { urls: [fx.site.url('/about')] }],
    ] as const) {
      const r = await call(clients.sub, tools, name, args);
      expect(errorCode(r), name).toBe('ability_invalid_permissions');
      expect(textOf(r)).toMatch(/manage_options/);
    }
  });

  it('runs a full crawl as administrator and returns at once with the crawl record', async () => {
    const { clients } = get();
    const r = await startCrawl(clients.admin, tools, 'svc-full-crawl');
    expect(r.structuredContent).toMatchObject({ mode: 'full' });
    expect(['queued', 'running', 'completed']).toContain(r.structuredContent!.status);
    // The crawl ends in the background: the report's last_full_crawl says when.
    const report = await waitFor(async () => {
      const rep = await call(clients.admin, tools, 'svc-link-report', { refresh: true });
      return rep.structuredContent?.last_full_crawl ? rep : undefined;
    }, 25_000, 'the full crawl to complete');
    const summary = report.structuredContent!.summary as Record<string, number>;
    expect(summary.not_found).toBeGreaterThanOrEqual(2); // /missing, /gone
    expect(summary.forbidden).toBe(1);
    expect(summary.server_error).toBe(1);
    expect(summary.redirect).toBe(1);
    expect(report.structuredContent!.targets).toEqual([expect.objectContaining({ link_tracking: 'all' })]);
  });

  it('searches as administrator and as subscriber', async () => {
    const { clients, fx } = get();
    for (const c of [clients.admin, clients.sub]) {
      const r = await call(c, tools, 'svc-search', { terms: 'wombat', search_params: { size: 5 } });
      const results = r.structuredContent!.results as { total: number; hits: { url: string }[] };
      expect(r.structuredContent!.success).toBe(true);
      expect(results.hits.map((h) => h.url)).toContain(fx.site.url('/news/one'));
    }
  });

  it('returns page meta by the post visibility rules', async () => {
    const { clients, fx } = get();
    const pub = await call(clients.sub, tools, 'svc-get-page-meta', { post_id: 101 });
    expect(pub.structuredContent).toMatchObject({ title: 'About the sanctuary', url: fx.site.url('/about'), showInSearch: true });
    expect(errorCode(await call(clients.sub, tools, 'svc-get-page-meta', { post_id: 102 }))).toBe('svc_post_not_found');
    expect(errorCode(await call(clients.sub, tools, 'svc-get-page-meta', { post_id: 999 }))).toBe('svc_post_not_found');
    expect((await call(clients.alice, tools, 'svc-get-page-meta', { post_id: 102 })).structuredContent).toMatchObject({ title: 'Draft about otters' });
    expect((await call(clients.admin, tools, 'svc-get-page-meta', { post_id: 102 })).isError).toBeFalsy();
  });

  it('starts partial and manual crawls as administrator', async () => {
    const { clients, fx } = get();
    const partial = await startCrawl(clients.admin, tools, 'svc-partial-crawl');
    expect(partial.structuredContent).toMatchObject({ mode: 'partial' });
    const manual = await startCrawl(clients.admin, tools, 'svc-manual-crawl', { urls: [fx.site.url('/about')] });
    expect(manual.structuredContent).toMatchObject({ mode: 'manual', urls: [fx.site.url('/about')] });
  });

  it('deletes pages from the index as administrator', async () => {
    const { clients, fx } = get();
    const url = fx.site.url('/news/one');
    const r = await call(clients.admin, tools, 'svc-delete-pages', { urls: [url, fx.site.url('/never-indexed')] });
    expect(r.structuredContent).toEqual({ deleted: [url], not_found: [fx.site.url('/never-indexed')] });
    const after = await call(clients.sub, tools, 'svc-search', { terms: 'wombat census' });
    expect((after.structuredContent!.results as { hits: { url: string }[] }).hits.map((h) => h.url)).not.toContain(url);
  });

  it('answers invalid input with isError naming the field', async () => {
    const { clients, fx } = get();
    const cases: [string, Record<string, unknown> | undefined, RegExp][] = [
      ['svc-search', { terms: 5 }, /terms/],
      ['svc-search', undefined, /terms|input/],
      ['svc-search', { terms: 'x', colour: 'red' }, /colour/],
      ['svc-search', { terms: 'x', search_params: { size: 101 } }, /search_params\.size/],
      ['svc-get-page-meta', { post_id: 'abc' }, /post_id/],
      ['svc-link-report', { limit: 0 }, /limit/],
      ['svc-full-crawl', { mode: 'full' }, /mode/],
      ['svc-manual-crawl', { urls: ['http://elsewhere.invalid/x'] }, /urls\[0\]/],
      ['svc-delete-pages', { urls: Array.from({ length: 51 }, (_, i) => fx.site.url(`/p${i}`)) }, /urls/],
    ];
    for (const [name, args, field] of cases) {
      const r = await call(clients.admin, tools, name, args);
      expect(errorCode(r), `${name} ${JSON.stringify(args)?.slice(0, 60)}`).toBe('ability_invalid_input');
      expect(textOf(r)).toMatch(field);
    }
    // Same answer without a user: input is validated before the permission check, as the host does.
    expect(errorCode(await call(clients.none, tools, 'svc-search', { terms: 5 }))).toBe('ability_invalid_input');
  });

  it('answers an unknown tool with a protocol error', async () => {
    const { clients } = get();
    await expect(clients.admin.callTool({ name: 'svc-nope', arguments: {} })).rejects.toThrow(/unknown tool: svc-nope/);
  });
}
