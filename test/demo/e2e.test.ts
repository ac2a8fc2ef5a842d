// What the README promises a newcomer: `svc serve` with no config starts the demo site, crawls it once and prints
// credentials; an assistant connected over MCP (HTTP) then sees the site's known broken links, can search it, read
// page meta as a subscriber (but not a private post) and start a crawl. Runs the BUILT CLI (dist/), as `npm start` does.
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_FAULTS } from '../../src/demo/routes.js';
import { parsePostsFile } from '../../src/cms/posts.js';
import { runHere, spawnSvc, type SvcProcess } from '../support/cli.js';
import { SERVER_JS } from '../support/paths.js';
import { until } from '../support/wait.js';

const CLI = SERVER_JS;

interface Credentials {
  mcp_url: string;
  base_url: string;
  public_token: string;
  api_key: string;
  users: { login: string; role: string; token: string }[];
}

interface ToolResult {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
}

interface LinkEntry {
  page: string;
  link: string;
  http_status: number;
  reason: string;
  message: string;
  redirects_to: string | null;
}

interface Running {
  proc: ChildProcess;
  stderr: () => string;
  exited: Promise<number | null>;
}

const INFO = { SVC_LOG_LEVEL: 'info' };

/** Waits until `p` has written `text` on stderr; an error with its stderr if it exits first. */
async function stderrSays(p: SvcProcess, text: string, ms: number): Promise<void> {
  await until(
    `"${text}" on stderr`,
    () => {
      if (p.child.exitCode !== null) throw new Error(`svc exited with ${p.child.exitCode}:\n${p.stderr()}`);
      return p.stderr().includes(text);
    },
    ms,
  );
}

/** Starts `svc serve --port 0` in `cwd` and waits for the banner. */
async function startServe(cwd: string): Promise<Running> {
  const p = spawnSvc(['serve', '--port', '0'], INFO, { cwd });
  // Below the tests' 60 s: the first start crawls the demo before it prints; a loaded machine took over 20 s.
  // A start that never says it is up is stopped here: nothing else holds it to stop it after.
  await stderrSays(p, 'mcp.json for an assistant', 45_000).catch((err: unknown) => {
    p.child.kill('SIGKILL');
    throw err;
  });
  await new Promise((r) => setTimeout(r, 100));
  expect(p.stdout()).toBe(''); // stdout stays clean: everything goes to stderr
  return { proc: p.child, stderr: p.stderr, exited: p.exited };
}

async function stop(r: Running): Promise<void> {
  if (r.proc.exitCode === null) r.proc.kill('SIGTERM');
  const code = await r.exited;
  expect(code).toBe(0);
}

async function connect(mcpUrl: string, token: string): Promise<Client> {
  const client = new Client({ name: 'svc-e2e', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as ToolResult;
const text = (r: ToolResult) => r.content.map((c) => c.text ?? '').join('');

describe('svc serve with no config (npm start)', () => {
  let dir: string;
  let serve: Running;
  let creds: Credentials;
  let admin: Client;
  let reader: Client;
  let origin: string;
  let partnerOrigin: string;
  let report: {
    summary: Record<string, number>;
    links: LinkEntry[];
    targets: { host: string; link_tracking: string }[];
    last_full_crawl: string | null;
    truncated: boolean;
  };

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first (npm test does)`);
    dir = mkdtempSync(join(tmpdir(), 'svc-e2e-'));
    serve = await startServe(dir);
    creds = JSON.parse(readFileSync(join(dir, 'data', 'credentials.json'), 'utf8')) as Credentials;
    const state = JSON.parse(readFileSync(join(dir, 'data', 'demo-site.json'), 'utf8')) as {
      site_port: number;
      partner_port: number;
    };
    origin = `http://127.0.0.1:${state.site_port}`;
    partnerOrigin = `http://127.0.0.1:${state.partner_port}`;
    admin = await connect(creds.mcp_url, creds.users.find((u) => u.login === 'admin')!.token);
    reader = await connect(creds.mcp_url, creds.users.find((u) => u.login === 'reader')!.token);
  }, 60_000);

  afterAll(async () => {
    await admin?.close().catch(() => {});
    await reader?.close().catch(() => {});
    if (serve && serve.proc.exitCode === null) serve.proc.kill('SIGKILL');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('prints the MCP URL, the API key, both tokens, a curl and mcp.json once on stderr, and writes credentials.json (0600)', () => {
    expect(statSync(join(dir, 'data', 'credentials.json')).mode & 0o777).toBe(0o600);
    expect(creds.mcp_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(creds.base_url).toBe(creds.mcp_url.replace(/\/mcp$/, ''));
    expect(creds.public_token).toMatch(/^[A-Za-z0-9_-]+:[a-z0-9-]+$/);
    expect(creds.users.map((u) => [u.login, u.role])).toEqual([
      ['admin', 'administrator'],
      ['reader', 'subscriber'],
    ]);
    const err = serve.stderr();
    const once = (s: string) => expect(err.split(s).length - 1, s).toBe(1);
    once(`MCP (HTTP)   ${creds.mcp_url}`);
    once(`console      ${creds.base_url}/console/`);
    once(`API key      ${creds.api_key}`);
    for (const u of creds.users) expect(err).toContain(u.token);
    once(
      `curl -s -H 'Authorization: Bearer ${creds.api_key}' '${creds.base_url}/v1/projects/${creds.public_token}/link-report?limit=50'`,
    );
    once('"mcpServers"');
    // The stdio entry starts this very node and this build by absolute path: it can only ever run svc.
    const printed = err.split('mcp.json for an assistant')[1]!.split('\n\n')[0]!.split('\n').slice(1).join('\n');
    const mcpJson = JSON.parse(printed) as { mcpServers: Record<string, { command?: string; args?: string[] }> };
    expect(mcpJson.mcpServers['svc-stdio']).toMatchObject({
      command: process.execPath,
      args: [SERVER_JS, 'mcp', '--config', expect.stringMatching(/^\//)],
    });
  });

  it('gets a link report over MCP with every known broken link of the demo site, each reason present', async () => {
    // The first full crawl runs in the background; refresh until it has completed.
    const deadline = Date.now() + 45_000;
    for (;;) {
      const r = await call(admin, 'svc-link-report', { refresh: true, limit: 5000 });
      expect(r.isError, text(r)).toBeFalsy();
      report = r.structuredContent as typeof report;
      if (report.last_full_crawl) break;
      if (Date.now() > deadline) throw new Error('the first full crawl did not complete within 45 s');
      await new Promise((res) => setTimeout(res, 250));
    }
    expect(report.targets).toEqual([
      expect.objectContaining({ host: new URL(origin).host, link_tracking: 'all', walk_links: true }),
      expect.objectContaining({ host: new URL(partnerOrigin).host, link_tracking: 'all' }),
    ]);
    for (const reason of ['not_found', 'forbidden', 'server_error', 'redirect', 'unknown'])
      expect(report.summary[reason], reason).toBeGreaterThan(0);
    const find = (link: string) => report.links.filter((l) => l.link === link);
    const one = (path: string, reason: string) => {
      const hits = find(new URL(path, origin).href);
      expect(hits.length, `${path} in the report`).toBeGreaterThan(0);
      for (const h of hits) expect(h.reason, path).toBe(reason);
      return hits[0]!;
    };
    for (const p of DEMO_FAULTS.not_found) one(p, 'not_found');
    expect(one('/events/midsummer-2023/', 'not_found').http_status).toBe(410);
    expect(one('/board/archive/', 'forbidden').http_status).toBe(403);
    expect(one('/intranet/', 'forbidden').http_status).toBe(401);
    expect(one('/events/booking/', 'server_error').http_status).toBe(500);
    for (const [from, to] of Object.entries(DEMO_FAULTS.redirect))
      expect(one(from, 'redirect').redirects_to, from).toBe(new URL(to, origin).href);
    // A chain ending at a missing page: reported as broken by its final answer (the crawler's rule), naming where it ends.
    for (const [from, to] of Object.entries(DEMO_FAULTS.redirect_to_missing)) {
      const hit = one(from, 'not_found');
      expect(hit.http_status).toBe(404);
      expect(hit.message).toContain(new URL(to, origin).href);
    }
    expect(find(new URL('/news/old-bulletin-2019/', origin).href).map((l) => l.page)).toContain(`${origin}/about/`);
    // The link to the second loopback host's missing page.
    expect(find(`${partnerOrigin}/old-grants/`)).toEqual([
      expect.objectContaining({ page: `${origin}/about/`, reason: 'not_found', http_status: 404 }),
    ]);
    // The robots.txt-disallowed members' area is neither fetched nor reported.
    expect(find(`${origin}/members/login/`)).toEqual([]);
    // Unknown: the endless events calendar was cut by max_pages.
    expect(
      report.links.filter((l) => l.reason === 'unknown').every((l) => l.link.startsWith(`${origin}/events/calendar/`)),
    ).toBe(true);
    // Nothing else is broken on the demo site.
    const known = new Set(
      [
        ...DEMO_FAULTS.not_found,
        ...DEMO_FAULTS.forbidden,
        ...DEMO_FAULTS.server_error,
        ...Object.keys(DEMO_FAULTS.redirect),
        ...Object.keys(DEMO_FAULTS.redirect_to_missing),
      ].map((p) => new URL(p, origin).href),
    );
    known.add(`${partnerOrigin}/old-grants/`);
    const unexpected = report.links.filter((l) => l.reason !== 'unknown' && !known.has(l.link));
    expect(unexpected).toEqual([]);
  }, 60_000);

  it('searches the demo site and finds its posts, in both languages, never a hidden page', async () => {
    const r = await call(reader, 'svc-search', { terms: 'compost workshop' });
    expect(r.isError, text(r)).toBeFalsy();
    const { results } = r.structuredContent as {
      results: { total: number; hits: { url: string; title: string; language: string | null }[] };
    };
    expect(results.hits.map((h) => h.url)).toContain(`${origin}/news/composting-workshop/`);
    const sv = (await call(reader, 'svc-search', { terms: 'mördarsniglar', search_params: { lang: 'sv' } }))
      .structuredContent as typeof r.structuredContent & { results: typeof results };
    expect(sv.results.hits.map((h) => h.url)).toContain(`${origin}/sv/nyheter/sniglar/`);
    expect(sv.results.hits.every((h) => h.language === 'sv')).toBe(true);
    // The privacy page is crawled but says showInSearch: false; the private board minutes are never served.
    const hidden = (await call(reader, 'svc-search', { terms: 'cookies' })).structuredContent as {
      results: typeof results;
    };
    expect(hidden.results.hits.map((h) => h.url)).not.toContain(`${origin}/privacy/`);
    const minutes = (await call(admin, 'svc-search', { terms: 'treasurer remind' })).structuredContent as {
      results: typeof results;
    };
    // No page holds both words: the pages holding one of them may follow (marked), never the private minutes.
    const found = minutes.results.hits as unknown as { url: string; matched_terms?: string[] }[];
    expect(found.map((h) => h.url)).not.toContain(`${origin}/news/board-minutes-march/`);
    expect(found.every((h) => h.matched_terms?.length === 1)).toBe(true);
  }, 30_000);

  it('gives a subscriber the page meta of a public post, and refuses a private one exactly like a missing one', async () => {
    const ok = await call(reader, 'svc-get-page-meta', { post_id: 103 });
    expect(ok.isError, text(ok)).toBeFalsy();
    expect(ok.structuredContent).toMatchObject({
      title: 'Composting workshop on 18 April',
      url: `${origin}/news/composting-workshop/`,
      language: 'en',
      showInSearch: true,
      customFields: { postId: { type: 'number', value: 103 } },
    });
    expect((ok.structuredContent as { tags: string[] }).tags).toEqual(
      expect.arrayContaining(['public', 'taxonomy/category/events']),
    );
    const priv = await call(reader, 'svc-get-page-meta', { post_id: 113 });
    const missing = await call(reader, 'svc-get-page-meta', { post_id: 999_113 });
    expect(priv.isError).toBe(true);
    expect(priv.structuredContent).toBeUndefined();
    expect(text(priv)).toContain('svc_post_not_found');
    expect(text(priv).replace(/113/g, 'N')).toBe(text(missing).replace(/999113/g, 'N'));
    // The administrator may read it.
    const asAdmin = await call(admin, 'svc-get-page-meta', { post_id: 113 });
    expect(asAdmin.isError, text(asAdmin)).toBeFalsy();
    expect(asAdmin.structuredContent).toMatchObject({ title: 'Board minutes, March', showInSearch: false });
  }, 30_000);

  it('starts a manual crawl as administrator (and not as subscriber)', async () => {
    const url = `${origin}/news/composting-workshop/`;
    const denied = await call(reader, 'svc-manual-crawl', { urls: [url] });
    expect(denied.isError).toBe(true);
    expect(text(denied)).toContain('ability_invalid_permissions');
    const r = await call(admin, 'svc-manual-crawl', { urls: [url] });
    expect(r.isError, text(r)).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ mode: 'manual', urls: [url] });
    expect(['queued', 'running', 'completed']).toContain((r.structuredContent as { status: string }).status);
    const id = (r.structuredContent as { id: number }).id;
    // Let it finish, via the /v1 API and the printed key.
    const deadline = Date.now() + 20_000;
    for (;;) {
      const res = await fetch(`${creds.base_url}/v1/projects/${creds.public_token}/crawls/${id}`, {
        headers: { authorization: `Bearer ${creds.api_key}` },
      });
      expect(res.status).toBe(200);
      const rec = (await res.json()) as { status: string };
      if (rec.status === 'completed') break;
      expect(['queued', 'running']).toContain(rec.status);
      if (Date.now() > deadline) throw new Error('manual crawl did not complete');
      await new Promise((res2) => setTimeout(res2, 200));
    }
  }, 30_000);

  it('a second start reuses the data: same credentials, same demo site port, no new full crawl', async () => {
    await admin.close();
    await reader.close();
    await stop(serve);
    const before = creds;
    serve = await startServe(dir);
    const again = JSON.parse(readFileSync(join(dir, 'data', 'credentials.json'), 'utf8')) as Credentials;
    expect(again.api_key).toBe(before.api_key);
    expect(again.users).toEqual(before.users);
    expect(serve.stderr()).toContain(`demo site    ${origin}/`);
    expect(serve.stderr()).toContain('reusing the full crawl');
    const res = await fetch(`${again.base_url}/v1/projects/${again.public_token}/crawls`, {
      headers: { authorization: `Bearer ${again.api_key}` },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { crawls?: { mode: string }[] } | { mode: string }[];
    const crawls = Array.isArray(body) ? body : (body.crawls ?? []);
    expect(crawls.filter((c) => c.mode === 'full')).toHaveLength(1);
    admin = await connect(again.mcp_url, again.users[0]!.token);
    const r = await call(admin, 'svc-link-report', {});
    expect((r.structuredContent as { last_full_crawl: string }).last_full_crawl).toBe(report.last_full_crawl);
    await stop(serve);
  }, 60_000);
});

describe('svc demo-site', () => {
  it('serves the demo site alone, writes its posts file, and stops on SIGTERM', async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first (npm test does)`);
    const dir = mkdtempSync(join(tmpdir(), 'svc-demo-site-'));
    try {
      const demo = spawnSvc(['demo-site', '--port', '0', '--posts-out', 'posts.json'], INFO, { cwd: dir });
      const { child: proc, exited } = demo;
      await stderrSays(demo, 'Ctrl-C', 15_000);
      const url = /demo site: +(http:\/\/127\.0\.0\.1:\d+\/)/.exec(demo.stderr())![1]!;
      expect((await fetch(url)).status).toBe(200);
      expect(await (await fetch(new URL('/robots.txt', url))).text()).toContain(`Sitemap: ${url}sitemap.xml`);
      const posts = parsePostsFile(readFileSync(join(dir, 'posts.json'), 'utf8'));
      expect(posts.find((p) => p.id === 1)!.url).toBe(url);
      proc.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it('refuses an address that is not loopback', async () => {
    const { status: code, stderr: err } = await runHere(['demo-site', '--host', '0.0.0.0'], { env: INFO });
    expect(code).toBe(2);
    expect(err).toMatch(/--host: "0\.0\.0\.0" is not a loopback address/);
  }, 30_000);
});
