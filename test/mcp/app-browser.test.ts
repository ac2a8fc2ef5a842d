// The link report App in headless Chromium, hosted as a chat client hosts it: the host page (one origin) puts the
// App (another origin, served with the default app CSP) in a sandboxed iframe and connects it with the ext-apps
// host bridge (AppBridge) to a real SDK v2 client of a real `svc serve` (and of `svc mcp` over stdio for the 2025
// era). The page only relays postMessage; the bridge and the client run here. Checked: the counts equal the
// report's, filter and sort, "Re-check" runs a manual crawl whose bar reaches 100%, "Page meta" shows the post,
// hostile anchor text and URLs stay text, a subscriber's view shows the refusal, and no request leaves for any
// origin but the two. SVC_APP_SCREENSHOTS=<dir> keeps the narrow and wide screenshots there.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppBridge } from '@modelcontextprotocol/ext-apps/app-bridge';
import {
  Client,
  StreamableHTTPClientTransport,
  type CallToolResult,
  type JSONRPCMessage,
  type Transport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { chromium, type Browser, type BrowserContext, type Frame, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM } from '../support/chromium.js';
import { hereOutput, serveHere, type RunningServe } from '../support/cli.js';
import { SERVER_JS } from '../support/paths.js';
import { article, startSite, type TestSite } from '../support/site.js';

/** The one DOM call these checks make in the page (the suite's TypeScript has no DOM types). */
type Styles = { getComputedStyle(e: unknown): { backgroundColor: string; display: string } };

const skip = !existsSync(CHROMIUM) && !process.env.CI;
const UI = { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } };
/** What a host applies when the resource asks for no more (the MCP Apps default). */
const APP_CSP =
  "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src 'none'";
const HOSTILE_TEXT = '<img src=x onerror=alert(1)> </script><b>bold</b>';
const HOSTILE_PATH = '/evil%22%3E%3Cimg%20src=x%20onerror=alert(2)%3E';

let dir: string;
let site: TestSite;
let serve: RunningServe;
let configPath: string;
let tokens: Record<'admin' | 'sub', string>;
let hostServer: Server;
let hostOrigin: string;
let appOrigin: string;
let appHtml = '';
let browser: Browser;
let context: BrowserContext;
const requests: string[] = [];
const problems: string[] = [];

/** The host page: an iframe of the App's origin, sandboxed, and a relay of its messages to the bridge here. */
const HOST_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>host</title>
<style>body{margin:0;font:14px system-ui} iframe{border:0;width:100%;height:400px;display:block}</style></head>
<body><iframe id="app" sandbox="allow-scripts" title="svc link report"></iframe><script>
const f = document.getElementById('app');
window.addEventListener('message', (e) => { if (e.source === f.contentWindow) window.toHost(e.data); });
window.toApp = (m) => f.contentWindow.postMessage(m, '*');
window.loadApp = (src) => { f.src = src; };
window.setAppHeight = (h) => { f.style.height = h + 'px'; };
</script></body></html>`;

/** The bridge's side of the relay: messages go to the frame through the page, and come back through toHost. */
class PageRelay implements Transport {
  onmessage?: (m: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (e: Error) => void;
  constructor(private page: Page) {}
  async start(): Promise<void> {}
  async send(m: JSONRPCMessage): Promise<void> {
    await this.page.evaluate((msg) => (globalThis as unknown as { toApp(m: unknown): void }).toApp(msg), m);
  }
  async close(): Promise<void> {
    this.onclose?.();
  }
}

async function until<T>(what: string, f: () => Promise<T | undefined | false>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function mcpClient(login: 'admin' | 'sub', era: 'modern' | 'legacy-stdio' = 'modern'): Promise<Client> {
  const client = new Client(
    { name: 'app-host', version: '1.0.0' },
    {
      versionNegotiation: { mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy' },
      capabilities: { extensions: UI },
    },
  );
  const transport: Transport =
    era === 'modern'
      ? new StreamableHTTPClientTransport(new URL(`${serve.baseUrl}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${tokens[login]}` } },
        })
      : new StdioClientTransport({
          command: process.execPath,
          args: [SERVER_JS, 'mcp', '--config', configPath],
          env: { PATH: process.env.PATH ?? '', SVC_LOG_LEVEL: 'warn', SVC_USER: login },
          stderr: 'pipe',
          cwd: dir,
        });
  await client.connect(transport);
  return client;
}

interface Hosted {
  page: Page;
  app: Frame;
  client: Client;
  bridge: AppBridge;
  close(): Promise<void>;
}

/**
 * Does what a host does when the model calls `tool`: sees the tool's _meta.ui.resourceUri, reads the App, shows it
 * in the frame, connects the bridge, and hands it the call's input and result.
 */
async function host(
  login: 'admin' | 'sub',
  tool: string,
  args: Record<string, unknown>,
  width: number,
  era: 'modern' | 'legacy-stdio' = 'modern',
): Promise<Hosted> {
  const client = await mcpClient(login, era);
  const def = (await client.listTools()).tools.find((t) => t.name === tool)!;
  const uri = (def._meta as { ui?: { resourceUri?: string } }).ui?.resourceUri;
  expect(uri).toBe('ui://svc/link-report');
  const read = await client.readResource({ uri: uri! });
  appHtml = (read.contents[0] as { text: string }).text;
  const page = await context.newPage();
  await page.setViewportSize({ width, height: 900 });
  page.on('dialog', (d) => {
    problems.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  const relay = new PageRelay(page);
  await page.exposeFunction('toHost', (m: JSONRPCMessage) => relay.onmessage?.(m));
  await page.goto(`${hostOrigin}/host.html`);
  const bridge = new AppBridge(
    client,
    { name: 'svc-test-host', version: '1.0.0' },
    { serverTools: {}, serverResources: {}, openLinks: {}, logging: {} },
    { hostContext: { theme: 'light', displayMode: 'inline' } },
  );
  bridge.onsizechange = ({ height }) => {
    if (!height || page.isClosed()) return;
    // The App may report a new size while the test closes its page: that resize has nowhere to go; any other
    // failure stays an unhandled rejection, which fails the run.
    page
      .evaluate((h) => (globalThis as unknown as { setAppHeight(h: number): void }).setAppHeight(h), height)
      .catch((err: unknown) => {
        if (!page.isClosed()) throw err;
      });
  };
  let ready = false;
  bridge.oninitialized = () => {
    ready = true;
  };
  await bridge.connect(relay);
  await page.evaluate(
    (src) => (globalThis as unknown as { loadApp(s: string): void }).loadApp(src),
    `${appOrigin}/app.html`,
  );
  await until('the App to initialize', async () => ready);
  const app = page.frames().find((f) => f.url().startsWith(appOrigin))!;
  await bridge.sendToolInput({ arguments: args });
  const result = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
  await bridge.sendToolResult(result);
  return {
    page,
    app,
    client,
    bridge,
    async close() {
      await page.close();
      await client.close();
    },
  };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-app-'));
  const slow = (ms: number) => new Promise((r) => setTimeout(r, ms));
  site = await startSite({}, async (_req, res, url) => {
    const pages: Record<string, string> = {
      '/': article('Quokka home', 'The quokka sanctuary welcomes visitors.', [
        '/about',
        '/missing',
        '/secret',
        '/old',
      ]).replace('</body>', `<a href="${HOSTILE_PATH}">${HOSTILE_TEXT.replace(/</g, '&lt;')}</a></body>`),
      // As the CMS publishes it: the page names its post in its page meta, which the search index keeps.
      '/about': article('About the sanctuary', 'Volunteers count wombats.', ['/', '/missing', '/gone']).replace(
        '</head>',
        '<script type="application/json" id="svc-page-meta">{"customFields":{"postId":{"type":"number","value":101}}}</script></head>',
      ),
    };
    await slow(url.pathname === '/about' ? 400 : 20);
    if (pages[url.pathname]) return void res.writeHead(200, { 'content-type': 'text/html' }).end(pages[url.pathname]);
    if (url.pathname === '/secret') return void res.writeHead(403).end('no');
    if (url.pathname === '/old') return void res.writeHead(301, { location: '/about' }).end();
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  const posts = join(dir, 'posts.json');
  writeFileSync(
    posts,
    JSON.stringify([
      { id: 101, url: site.url('/about'), title: 'About the sanctuary', status: 'publish', author: 'admin' },
    ]),
  );
  configPath = join(dir, 'config.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      data_dir: join(dir, 'data'),
      targets: [{ host: site.host, scheme: 'http', track_links: 'all', use_sitemap: false, concurrency: 2 }],
      host: { version: '6.9', posts_file: posts },
      server: { host: '127.0.0.1', port: 0 },
      log_level: 'warn',
    }),
  );
  const add = async (login: string, role: string) =>
    (await hereOutput(['users', 'add', login, '--role', role, '--config', configPath])).trim();
  tokens = { admin: await add('admin', 'administrator'), sub: await add('sub', 'subscriber') };
  await hereOutput(['crawl', 'full', '--config', configPath]);
  serve = await serveHere(configPath, { env: { SVC_LOG_LEVEL: 'info' } });

  hostServer = createServer((req, res) => {
    if (req.url === '/host.html') return void res.writeHead(200, { 'content-type': 'text/html' }).end(HOST_PAGE);
    if (req.url === '/app.html')
      return void res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': APP_CSP })
        .end(appHtml);
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => hostServer.listen(0, '127.0.0.1', r));
  const port = (hostServer.address() as AddressInfo).port;
  hostOrigin = `http://127.0.0.1:${port}`;
  // Another origin for the App: same server, another host name.
  appOrigin = `http://localhost:${port}`;

  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  context = await browser.newContext();
  // Every request the pages make is seen here; only the host's and the App's origin are let through.
  await context.route('**/*', (route) => {
    const u = route.request().url();
    requests.push(u);
    if (u.startsWith(`${hostOrigin}/`) || u.startsWith(`${appOrigin}/`)) return route.continue();
    return route.abort();
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => hostServer?.close(r));
  await serve?.stop();
  await site?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const shots = process.env.SVC_APP_SCREENSHOTS;

/** The whole App as the host shows it: the viewport grown to the frame's height (a full-page shot leaves a tall frame blank). */
async function screenshot(page: Page, path: string): Promise<void> {
  const box = (await page.locator('#app').boundingBox())!;
  await page.setViewportSize({ width: Math.round(box.width), height: Math.ceil(box.height) });
  await page.waitForTimeout(300);
  await page.screenshot({ path });
}
const reportRows = (app: Frame) =>
  app.$$eval('#links-table tbody tr:not([hidden]) td:first-child', (tds) => tds.map((td) => td.textContent!.trim()));

describe.skipIf(skip)('the link report App in a sandboxed frame, through the ext-apps host bridge', () => {
  it('shows the report: counts equal the report, filter and sort work, hostile text and URLs stay text', async () => {
    const h = await host('admin', 'svc-link-report', { refresh: true }, 1200);
    try {
      await h.app.waitForSelector('#links-table');
      const report = (await h.client.callTool({ name: 'svc-link-report', arguments: {} })) as CallToolResult;
      type Tally = { problem_links: number; occurrences: number };
      const { summary, counts } = report.structuredContent as {
        summary: Record<string, number>;
        counts: Tally & { pages: number; reasons: Record<string, Tally> };
      };
      expect(summary.not_found).toBeGreaterThanOrEqual(3);
      // Each card: the problem links (distinct URLs) in big, their occurrences under them, as the report counts them.
      const times = (n: number) => `${n} occurrence${n === 1 ? '' : 's'}`;
      for (const [reason, n] of Object.entries(summary)) {
        const card = `.counts li[data-reason="${reason}"]`;
        expect(await h.app.textContent(`${card} .n`), reason).toBe(String(counts.reasons[reason]!.problem_links));
        expect(n, reason).toBe(counts.reasons[reason]!.occurrences);
        expect(await h.app.textContent(card), reason).toContain(times(n));
      }
      expect(await h.app.textContent('.counts li[data-reason="total"] .n')).toBe(String(counts.problem_links));
      expect(await h.app.textContent('.counts li[data-reason="total"]')).toContain(times(counts.occurrences));
      // The hostile anchor text is text: no element was made of it, no script ran.
      const text = await h.app.textContent('#links-table');
      expect(text).toContain(HOSTILE_TEXT);
      expect(await h.app.$$('#links-table img, #links-table b')).toHaveLength(0);
      expect(text).toContain(HOSTILE_PATH);
      // URLs on the one target read as paths; the worst link (on most pages) comes first.
      const rows = await reportRows(h.app);
      expect(rows[0]).toBe('/missing');
      // Filter by text and by reason.
      await h.app.fill('#q', 'secret');
      expect(await reportRows(h.app)).toEqual(['/secret']);
      await h.app.fill('#q', '');
      await h.app.selectOption('#reason', 'redirect');
      expect(await reportRows(h.app)).toEqual(['/old']);
      await h.app.selectOption('#reason', '');
      // Sort by status, both ways.
      await h.app.click('#links-table th:nth-child(3) button');
      const statuses = await h.app.$$eval('#links-table tbody tr td:nth-child(3)', (tds) =>
        tds.map((td) => Number(td.getAttribute('data-sort'))),
      );
      expect(statuses).toEqual([...statuses].sort((a, b) => a - b));
      await h.app.click('#links-table th:nth-child(3) button');
      expect(await h.app.getAttribute('#links-table th:nth-child(3)', 'aria-sort')).toBe('descending');
      await h.app.click('#links-table th:nth-child(3) button');
      // A link opens through the host (the frame may open no window itself).
      const opened: string[] = [];
      h.bridge.onopenlink = async ({ url }) => {
        opened.push(url);
        return {};
      };
      await h.app.click('#links-table tbody tr:first-child td:first-child a');
      await until('the host to open the link', async () => opened.length > 0);
      expect(opened[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
      if (shots) {
        mkdirSync(shots, { recursive: true });
        await screenshot(h.page, join(shots, 'link-report-app-wide.png'));
      }
      expect(problems).toEqual([]);
      const origins = new Set(requests.map((u) => new URL(u).origin));
      expect([...origins].sort()).toEqual([hostOrigin, appOrigin].sort());
    } finally {
      await h.close();
    }
  }, 60_000);

  it('re-checks a page: a manual crawl of it starts, the bar follows it to 100%, the report comes back', async () => {
    const h = await host('admin', 'svc-link-report', {}, 380);
    try {
      await h.app.waitForSelector('#links-table');
      await h.app.click('[data-view="by-page"]');
      const about = site.url('/about');
      await h.app.click(`#pages-table button[data-act="recheck"][data-page="${about}"]`);
      await h.app.waitForSelector('#progress:not([hidden])');
      await until(
        'the bar at 100%',
        async () => (await h.app.getAttribute('#progress .bar', 'aria-valuenow')) === '100',
      );
      expect(await h.app.textContent('#progress .label')).toMatch(/^Crawl \d+ \(manual\): completed/);
      const latest = (await h.client.callTool({ name: 'svc-get-crawl', arguments: {} })) as CallToolResult;
      expect(latest.structuredContent).toMatchObject({ mode: 'manual', status: 'completed', urls: [about] });
      // The report is read again and shown in the view the reader was in.
      await h.app.waitForSelector('#pages-table');
      // Page meta of the About page: its post, found through the search index.
      await h.app.click(`#pages-table button[data-act="meta"][data-page="${about}"]`);
      await until('the page meta', async () => ((await h.app.textContent('#panel')) ?? '').includes('post 101')).catch(
        async (e: Error) => {
          throw new Error(`${e.message}; the panel says: ${await h.app.textContent('#panel')}`);
        },
      );
      expect(await h.app.textContent('#panel pre')).toContain('"title": "About the sanctuary"');
      if (shots) await screenshot(h.page, join(shots, 'link-report-app-narrow.png'));
      expect(problems).toEqual([]);
    } finally {
      await h.close();
    }
  }, 90_000);

  it("runs the App's calls as the same user: a subscriber's view shows the refusal", async () => {
    const h = await host('sub', 'svc-link-report', {}, 800);
    try {
      await h.app.waitForSelector('#panel:not([hidden])');
      expect(await h.app.textContent('#panel')).toMatch(/Refused.*ability_invalid_permissions/s);
      expect(await h.app.$$('#links-table')).toHaveLength(0);
      // Given a report it could not have read (as if the host kept an administrator's), its own calls still run
      // as the subscriber: "Re-check" is refused and starts no crawl.
      const admin = await mcpClient('admin');
      const before = ((await admin.callTool({ name: 'svc-get-crawl', arguments: {} })) as CallToolResult)
        .structuredContent;
      await h.bridge.sendToolResult(
        (await admin.callTool({ name: 'svc-link-report', arguments: {} })) as CallToolResult,
      );
      await h.app.waitForSelector('#links-table');
      await h.app.click('#links-table button[data-act="recheck"] >> nth=0');
      await until('the refusal', async () =>
        /Re-check.*ability_invalid_permissions/s.test((await h.app.textContent('#panel')) ?? ''),
      );
      const after = ((await admin.callTool({ name: 'svc-get-crawl', arguments: {} })) as CallToolResult)
        .structuredContent;
      expect(after).toEqual(before);
      await admin.close();
    } finally {
      await h.close();
    }
  }, 60_000);

  it('2025 era (stdio, initialize declaring the extension): svc-get-crawl opens the App, which shows the report', async () => {
    const h = await host('admin', 'svc-get-crawl', {}, 800, 'legacy-stdio');
    try {
      await until(
        'the bar at 100%',
        async () => (await h.app.getAttribute('#progress .bar', 'aria-valuenow')) === '100',
      );
      await h.app.waitForSelector('#links-table');
      expect(Number(await h.app.textContent('.counts li[data-reason="not_found"] .n'))).toBeGreaterThanOrEqual(3);
      // The host's theme: dark when the host says so.
      const background = () =>
        h.app.$eval('body', (b) => (globalThis as unknown as Styles).getComputedStyle(b).backgroundColor);
      expect(await background()).toBe('rgb(255, 255, 255)');
      await h.bridge.sendHostContextChange({ theme: 'dark' });
      await until('the dark theme', async () => (await background()) === 'rgb(13, 17, 23)');
      expect(problems).toEqual([]);
    } finally {
      await h.close();
    }
  }, 60_000);
});
