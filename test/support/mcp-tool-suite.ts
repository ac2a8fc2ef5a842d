// The tool behaviour both transports must show, written once: listing, every tool as administrator, as
// subscriber and with no user, invalid inputs, and every successful structuredContent checked against the
// tool's published outputSchema.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CallToolResultSchema,
  type CallToolResult,
  type Progress,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { expect, it } from 'vitest';
import { textOf, type Fixture } from './mcp.js';
import { until } from './wait.js';

export const TOOL_NAMES = [
  'svc-search',
  'svc-get-page',
  'svc-list-pages',
  'svc-get-page-meta',
  'svc-link-report',
  'svc-full-crawl',
  'svc-partial-crawl',
  'svc-manual-crawl',
  'svc-delete-pages',
  'svc-get-crawl',
];

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const CRAWL = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };
export const HINTS: Record<string, Record<string, boolean>> = {
  'svc-search': READ,
  'svc-get-page': READ,
  'svc-list-pages': READ,
  'svc-get-page-meta': READ,
  'svc-link-report': READ,
  'svc-full-crawl': CRAWL,
  'svc-partial-crawl': CRAWL,
  'svc-manual-crawl': CRAWL,
  'svc-delete-pages': { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  'svc-get-crawl': READ,
};

export interface Clients {
  admin: Client;
  sub: Client;
  alice: Client;
  none: Client;
}

const validator = new AjvJsonSchemaValidator();

/** Calls a tool; a success must carry structuredContent valid against the tool's outputSchema, and the same JSON as text. */
export async function call(
  client: Client,
  tools: Tool[],
  name: string,
  args?: Record<string, unknown>,
): Promise<CallToolResult> {
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
async function startCrawl(
  client: Client,
  tools: Tool[],
  name: string,
  args?: Record<string, unknown>,
): Promise<CallToolResult> {
  return until(
    `${name} to start`,
    async () => {
      const r = await call(client, tools, name, args);
      return errorCode(r) === 'svc_api_error' && /running|409|conflict/i.test(textOf(r)) ? undefined : r;
    },
    20_000,
    { everyMs: 150 },
  );
}

/** Registers the shared tests; `get` hands over the clients and fixture set up by the transport's beforeAll. */
export function toolCallSuite(get: () => { clients: Clients; fx: Fixture; signIn: RegExp }): void {
  let tools: Tool[] = [];

  it('lists the ten tools with title, description, all four hints and object schemas', async () => {
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
    // The crawl tools say how to see a crawl through, and what stdio does to it.
    for (const name of ['svc-full-crawl', 'svc-partial-crawl', 'svc-manual-crawl']) {
      expect(byName[name]!.description, name).toMatch(/svc-get-crawl.*wait_seconds/);
      expect(byName[name]!.description, name).toMatch(
        /stdio.*inside the `svc mcp` process: a client that exits stops it/,
      );
    }
    // Counts and ids are non-negative: no schema says otherwise.
    expect(JSON.stringify(tools)).not.toMatch(/-9007199254740991/);
    // Every user sees the same list; listing also makes each client check structuredContent against outputSchema.
    for (const c of [clients.admin, clients.sub, clients.alice]) expect((await c.listTools()).tools).toEqual(tools);
  });

  it('answers ability_invalid_permissions for every tool without a current user', async () => {
    const { clients, fx } = get();
    const valid: Record<string, Record<string, unknown>> = {
      'svc-search': { terms: 'quokka' },
      'svc-get-page': { url: fx.site.url('/about') },
      'svc-list-pages': {},
      'svc-get-page-meta': { post_id: 101 },
      'svc-link-report': {},
      'svc-full-crawl': {},
      'svc-partial-crawl': {},
      'svc-manual-crawl': { urls: [fx.site.url('/about')] },
      'svc-delete-pages': { urls: [fx.site.url('/about')] },
      'svc-get-crawl': {},
    };
    for (const name of TOOL_NAMES) {
      const r = await call(clients.none, tools, name, valid[name]);
      expect(errorCode(r), name).toBe('ability_invalid_permissions');
      // The transport says how to set a user: SVC_USER over stdio, the Authorization header over HTTP.
      expect(textOf(r), name).toMatch(get().signIn);
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
      ['svc-get-crawl', {}],
    ] as const) {
      const r = await call(clients.sub, tools, name, args);
      expect(errorCode(r), name).toBe('ability_invalid_permissions');
      expect(textOf(r)).toMatch(/manage_options/);
    }
  });

  it('before any crawl: search, report and get-crawl say so and name svc-full-crawl', async () => {
    const { clients } = get();
    const search = await call(clients.sub, tools, 'svc-search', { terms: 'quokka' });
    expect(search.structuredContent!.notice).toMatch(/index is empty: no crawl has run yet.*svc-full-crawl/);
    const report = await call(clients.admin, tools, 'svc-link-report', {});
    // Not crawled is its own status: the empty report is no all-clear, and the notice says which tools fill it.
    expect(report.structuredContent!.status).toBe('not_crawled');
    expect(report.structuredContent!.notice).toMatch(
      /^Not crawled yet: .*not an all-clear.*svc-full-crawl.*svc-get-crawl/,
    );
    const crawl = await call(clients.admin, tools, 'svc-get-crawl', {});
    expect(errorCode(crawl)).toBe('svc_crawl_not_found');
    expect(textOf(crawl)).toMatch(/svc-full-crawl/);
    const meta = await call(clients.sub, tools, 'svc-get-page-meta', { post_id: 101 });
    // The post asks to be in search, but no crawl has put it there.
    expect(meta.structuredContent).toMatchObject({
      showInSearch: true,
      index: { indexed: false, in_search: false, last_crawled: null },
    });
  });

  it('runs a full crawl, follows it with svc-get-crawl and progress notifications to its end, then reports its findings', async () => {
    const { clients } = get();
    const r = await startCrawl(clients.admin, tools, 'svc-full-crawl');
    expect(r.structuredContent).toMatchObject({ mode: 'full' });
    expect(['queued', 'running', 'completed']).toContain(r.structuredContent!.status);
    const id = r.structuredContent!.id as number;
    const progress: Progress[] = [];
    const waited = (await clients.admin.callTool(
      { name: 'svc-get-crawl', arguments: { id, wait_seconds: 60 } },
      CallToolResultSchema,
      {
        onprogress: (p) => void progress.push(p),
        timeout: 90_000,
      },
    )) as CallToolResult;
    expect(waited.isError, textOf(waited)).toBeFalsy();
    expect(waited.structuredContent).toMatchObject({
      id,
      mode: 'full',
      status: 'completed',
      finished_at: expect.any(String),
    });
    expect((waited.structuredContent!.stats as { pages: number }).pages).toBeGreaterThanOrEqual(3);
    // The site answers slowly (see the fixture), so the crawl lasts long enough to be followed.
    expect(progress.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < progress.length; i++) expect(progress[i]!.progress).toBeGreaterThan(progress[i - 1]!.progress);
    // Issue 39's one vocabulary of counts: pages stored so far (the progress), links and broken ones.
    const said = new RegExp(`^crawl ${id}: (\\d+) pages?, \\d+ links? \\(\\d+ broken\\)`).exec(
      progress.at(-1)!.message ?? '',
    );
    expect(said, progress.at(-1)!.message).not.toBeNull();
    // The pages said are the progress's whole part: a keep-alive while no page moved adds a thousandth (seen as 3.001
    // with "3 pages" on a loaded machine).
    expect(Number(said![1])).toBe(Math.floor(progress.at(-1)!.progress));
    expect(progress.every((p) => p.total === undefined || p.total >= p.progress)).toBe(true);
    // Without id: the latest crawl, the one just followed.
    expect((await call(clients.admin, tools, 'svc-get-crawl', {})).structuredContent).toMatchObject({
      id,
      status: 'completed',
    });
    const report = await call(clients.admin, tools, 'svc-link-report', { refresh: true });
    expect(report.structuredContent!.last_full_crawl).toEqual(expect.any(String));
    expect(report.structuredContent!.notice).toBeUndefined();
    const summary = report.structuredContent!.summary as Record<string, number>;
    expect(summary.not_found).toBeGreaterThanOrEqual(2); // /missing, /gone
    expect(summary.forbidden).toBe(1);
    expect(summary.server_error).toBe(1);
    expect(summary.redirect).toBe(1);
    expect(report.structuredContent!.targets).toEqual([expect.objectContaining({ link_tracking: 'all' })]);
    const top = report.structuredContent!.top_links as { link: string; reason: string; pages: number }[];
    // /missing is linked from the home page only; the home page is on every page: nothing is carried by more pages than it.
    expect(top.map((t) => t.link)).toEqual(
      expect.arrayContaining([get().fx.site.url('/missing'), get().fx.site.url('/gone')]),
    );
    const broken = await call(clients.admin, tools, 'svc-link-report', { refresh: true, reasons: ['server_error'] });
    expect((broken.structuredContent!.links as { link: string }[]).map((l) => l.link)).toEqual([
      get().fx.site.url('/broken'),
    ]);
  });

  it('searches as administrator and as subscriber', async () => {
    const { clients, fx } = get();
    for (const c of [clients.admin, clients.sub]) {
      const r = await call(c, tools, 'svc-search', { terms: 'wombat', search_params: { size: 5 } });
      const results = r.structuredContent!.results as { total: number; hits: { url: string; title: string }[] };
      expect(r.structuredContent!.success).toBe(true);
      expect(results.hits.map((h) => h.url)).toContain(fx.site.url('/news/one'));
      // Each hit is also a resource_link to the page, after the JSON text.
      const links = r.content.filter((c) => c.type === 'resource_link');
      expect(links).toHaveLength(results.hits.length);
      expect(links).toContainEqual(
        expect.objectContaining({
          type: 'resource_link',
          uri: fx.site.url('/news/one'),
          name: 'Wombat census results',
          mimeType: 'text/html',
        }),
      );
    }
  });

  it('searches, then reads the page found: its best section, the page by chunks, the list, and resources/read', async () => {
    const { clients, fx } = get();
    const found = await call(clients.sub, tools, 'svc-search', { terms: 'wombat census' });
    const hit = (found.structuredContent!.results as { hits: { url: string; section: { anchor: string } | null }[] })
      .hits[0]!;
    expect(hit.url).toBe(fx.site.url('/news/one'));
    expect(hit.section).toEqual({ heading: 'Wombat census results', anchor: 'wombat-census-results' });
    const read = await call(clients.sub, tools, 'svc-get-page', { url: hit.url, section: hit.section!.anchor });
    expect(read.structuredContent).toMatchObject({
      url: hit.url,
      title: 'Wombat census results',
      section: 'wombat-census-results',
      next_start_index: null,
    });
    expect(read.structuredContent!.markdown).toMatch(
      /^# Wombat census results\n\nThis year the wombat census found forty burrows\./,
    );
    const chunk = await call(clients.sub, tools, 'svc-get-page', { url: hit.url, max_length: 100 });
    expect(chunk.structuredContent).toMatchObject({ start_index: 0, next_start_index: 100 });
    const list = await call(clients.sub, tools, 'svc-list-pages', { prefix: '/news/' });
    expect(list.structuredContent).toMatchObject({
      total: 1,
      next_cursor: null,
      pages: [{ url: hit.url, in_search: true }],
    });
    const resource = await clients.sub.readResource({ uri: hit.url });
    const content = resource.contents[0] as { uri: string; mimeType: string; text: string };
    expect(content).toMatchObject({ uri: hit.url, mimeType: 'application/json' });
    expect(JSON.parse(content.text)).toEqual(
      (await call(clients.sub, tools, 'svc-get-page', { url: hit.url })).structuredContent,
    );
    const missing = await call(clients.sub, tools, 'svc-get-page', { url: fx.site.url('/nowhere') });
    expect(textOf(missing)).toMatch(/^svc_page_not_found: no stored page at .*svc-search.*svc-list-pages/);
    await expect(clients.sub.readResource({ uri: fx.site.url('/nowhere') })).rejects.toThrow(/svc_page_not_found/);
  });

  it('pages the link report by cursor: three pages make the whole report', async () => {
    const { clients } = get();
    const whole = await call(clients.admin, tools, 'svc-link-report', { refresh: true, limit: 100 });
    const all = (whole.structuredContent!.links as { page: string; link: string }[]).map((l) => `${l.page} ${l.link}`);
    expect(all.length).toBeGreaterThanOrEqual(5);
    const size = Math.ceil(all.length / 3);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const r = await call(clients.admin, tools, 'svc-link-report', { limit: size, ...(cursor ? { cursor } : {}) });
      expect(r.isError, textOf(r)).toBeFalsy();
      seen.push(...(r.structuredContent!.links as { page: string; link: string }[]).map((l) => `${l.page} ${l.link}`));
      expect(r.structuredContent!.summary).toEqual(whole.structuredContent!.summary);
      cursor = (r.structuredContent!.next_cursor as string | null) ?? undefined;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(all);
    const bad = await call(clients.admin, tools, 'svc-link-report', { cursor: 'bm9wZQ' });
    expect(textOf(bad)).toMatch(/^ability_invalid_input: .*cursor: is not a cursor svc gave/);
  });

  it('returns page meta by the post visibility rules', async () => {
    const { clients, fx } = get();
    const pub = await call(clients.sub, tools, 'svc-get-page-meta', { post_id: 101 });
    expect(pub.structuredContent).toMatchObject({
      title: 'About the sanctuary',
      url: fx.site.url('/about'),
      showInSearch: true,
      index: { indexed: true, in_search: true },
    });
    expect(textOf(await call(clients.sub, tools, 'svc-get-page-meta', { post_id: 102 }))).toBe(
      'svc_post_not_found: no post 102 that you can read',
    );
    expect(errorCode(await call(clients.sub, tools, 'svc-get-page-meta', { post_id: 102 }))).toBe('svc_post_not_found');
    expect(errorCode(await call(clients.sub, tools, 'svc-get-page-meta', { post_id: 999 }))).toBe('svc_post_not_found');
    expect((await call(clients.alice, tools, 'svc-get-page-meta', { post_id: 102 })).structuredContent).toMatchObject({
      title: 'Draft about otters',
    });
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
      [
        'svc-search',
        undefined,
        /^ability_invalid_input: invalid input for svc-search: terms: is required \(must be a string\)$/,
      ],
      ['svc-get-crawl', { wait_seconds: 61 }, /wait_seconds: must be at most 60/],
      ['svc-link-report', { reasons: ['broken'] }, /reasons\[0\]/],
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

  it('lists a resource for the latest crawl and one link report per target, and reads them', async () => {
    const { clients, fx } = get();
    const templates = (await clients.admin.listResourceTemplates()).resourceTemplates;
    expect(templates.map((t) => t.uriTemplate).sort()).toEqual(
      [`${fx.site.origin}{+path}`, 'svc://crawls/{id}', 'svc://link-report/{target}'].sort(),
    );
    expect(templates.every((t) => t.mimeType === 'application/json')).toBe(true);
    const listed = (await clients.admin.listResources()).resources;
    const crawl = listed.find((r) => r.uri.startsWith('svc://crawls/'));
    expect(crawl, 'the latest crawl is listed').toBeDefined();
    expect(listed.map((r) => r.uri)).toContain(`svc://link-report/${encodeURIComponent(fx.site.host)}`);
    const read = await clients.admin.readResource({ uri: crawl!.uri });
    expect(read.contents[0]).toMatchObject({ uri: crawl!.uri, mimeType: 'application/json' });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({
      id: Number(crawl!.uri.split('/').pop()),
      mode: expect.any(String),
    });
    const report = await clients.admin.readResource({ uri: `svc://link-report/${encodeURIComponent(fx.site.host)}` });
    expect(JSON.parse((report.contents[0] as { text: string }).text)).toMatchObject({
      summary: expect.any(Object),
      top_links: expect.any(Array),
    });
    await expect(clients.admin.readResource({ uri: 'svc://crawls/999999' })).rejects.toThrow(/no crawl 999999/);
    // Without manage_options: nothing listed, nothing read, no target completed.
    expect((await clients.sub.listResources()).resources).toEqual([]);
    await expect(clients.sub.readResource({ uri: crawl!.uri })).rejects.toThrow(/manage_options/);
  });

  it('offers the prompt audit-broken-links with target completions', async () => {
    const { clients, fx } = get();
    expect(clients.admin.getServerCapabilities()).toMatchObject({
      resources: { listChanged: false },
      prompts: { listChanged: false },
      completions: {},
    });
    const prompts = (await clients.admin.listPrompts()).prompts;
    expect(prompts.map((p) => p.name)).toEqual(['audit-broken-links']);
    expect(prompts[0]!.arguments).toEqual([expect.objectContaining({ name: 'target', required: true })]);
    const done = await clients.admin.complete({
      ref: { type: 'ref/prompt', name: 'audit-broken-links' },
      argument: { name: 'target', value: '127.' },
    });
    expect(done.completion.values).toEqual([fx.site.host]);
    expect(
      (
        await clients.admin.complete({
          ref: { type: 'ref/prompt', name: 'audit-broken-links' },
          argument: { name: 'target', value: 'zzz' },
        })
      ).completion.values,
    ).toEqual([]);
    expect(
      (
        await clients.sub.complete({
          ref: { type: 'ref/prompt', name: 'audit-broken-links' },
          argument: { name: 'target', value: '' },
        })
      ).completion.values,
    ).toEqual([]);
    const prompt = await clients.admin.getPrompt({ name: 'audit-broken-links', arguments: { target: fx.site.host } });
    const text = (prompt.messages[0]!.content as { text: string }).text;
    expect(text).toContain(`"target": "${fx.site.host}"`);
    expect(text).toMatch(/svc-link-report.*svc-full-crawl.*svc-get-crawl/s);
  });

  it('answers an unknown tool with a protocol error', async () => {
    const { clients } = get();
    await expect(clients.admin.callTool({ name: 'svc-nope', arguments: {} })).rejects.toThrow(/unknown tool: svc-nope/);
  });
}
