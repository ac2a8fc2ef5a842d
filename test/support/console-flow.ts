// Shared by the console's browser tests: a test site with a slow page (so a crawl runs long enough to be seen
// running), `svc serve` on it (SQLite or PostgreSQL) in the test's process, with an administrator and a subscriber
// made by the CLI's commands (in this process too: their passwords at the tests' cost), Debian's headless Chromium,
// and the flow a site owner goes through, asserted step by step.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { launchChromium } from './chromium.js';
import { hereOutput, serveHere, type RunningServe } from './cli.js';
import { ROOT } from './paths.js';
import { article, closedPort, type Handler, html, startSite, writeJson, type TestSite } from './site.js';

export const TOKEN = 'console1:eu-north-1';
const ROWS = Array.from({ length: 11 }, (_, i) => i + 1);
export const PASSWORDS = { admin: 'admin password 1', reader: 'reader password 1', temp: 'temp password 1' };
/**
 * Where the screenshots of the pages go, only when asked: `CONSOLE_SCREENSHOTS=1` refreshes the docs' own
 * (docs/images/console), another value names a folder (relative to the repository). Unset (or 0), none are taken:
 * 24 full-page screenshots cost the run time no test is about.
 */
export const SHOTS = screenshotsDir(process.env.CONSOLE_SCREENSHOTS);

function screenshotsDir(asked: string | undefined): string | null {
  if (!asked || asked === '0') return null;
  return resolve(ROOT, asked === '1' ? 'docs/images/console' : asked);
}

export async function launchBrowser(dir: string): Promise<BrowserContext> {
  const browser = await launchChromium(join(dir, 'profile'), { viewport: { width: 1280, height: 800 } });
  // Below the retried tests' 25 s: a page step that hangs fails with playwright's error naming the step, not with
  // the test's bare timeout (a hang after the owner's round is still unexplained).
  browser.setDefaultTimeout(15_000);
  return browser;
}

export interface ConsoleService {
  dir: string;
  site: TestSite;
  config: string;
  port: number;
  base: string;
  /** svc serve in this process (what is tested is what it answers): its passwords are at the tests' cost. */
  serve: RunningServe;
  /** How long /slow takes to answer (ms): a crawl takes at least that. */
  slowMs: { value: number };
  /** Stops the server and starts it again on the same port and data. */
  restart(): Promise<void>;
  stopServer(): Promise<void>;
  startServer(): Promise<void>;
  close(): Promise<void>;
}

/** In this process (serveHere): its sign-ins check the passwords addUser set at the tests' cost. */
async function addUser(config: string, login: string, role: string, password: string): Promise<void> {
  await hereOutput(['users', 'add', login, '--role', role, '--config', config]);
  await hereOutput(['users', 'set-password', login, '--config', config], { input: `${password}\n` });
}

export async function startConsoleService(opts: { databaseUrl?: string } = {}): Promise<ConsoleService> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-console-'));
  const slowMs = { value: 1500 };
  const site = await startSite({
    '/': (_q, r) =>
      void r
        .writeHead(200, { 'content-type': 'text/html' })
        .end(article('Orchard home', 'Apples and pears from the orchard.', ['/about', '/slow', '/missing'])),
    '/about': (_q, r) =>
      void r.writeHead(200, { 'content-type': 'text/html' }).end(
        article(
          'About the orchard',
          'Pruning in winter.',
          ROWS.map((n) => `/row/${n}`),
        ),
      ),
    // Eleven more pages about the orchard: with the home and About, more than one page of search hits.
    ...Object.fromEntries(
      ROWS.map((n): [string, Handler] => [
        `/row/${n}`,
        html(`<h1>Orchard row ${n}</h1><p>Trees of row ${n}.</p>`, { title: `Orchard row ${n}`, lang: 'en' }),
      ]),
    ),
    '/slow': async (_q, r) => {
      await new Promise((res) => setTimeout(res, slowMs.value));
      if (!r.destroyed) r.writeHead(200, { 'content-type': 'text/html' }).end(article('Slow page', 'Cider press.'));
    },
  });
  const config = writeJson(dir, 'svc.json', {
    data_dir: join(dir, 'data'),
    ...(opts.databaseUrl ? { database_url: opts.databaseUrl } : {}),
    project: { public_token: TOKEN },
    targets: [{ host: site.host, scheme: 'http', track_links: 'all', use_sitemap: false, request_timeout_ms: 20_000 }],
    rate_limits: { enabled: false },
  });
  await addUser(config, 'admin', 'administrator', PASSWORDS.admin);
  await addUser(config, 'reader', 'subscriber', PASSWORDS.reader);
  await addUser(config, 'temp', 'administrator', PASSWORDS.temp);
  const port = await closedPort();
  const svc: ConsoleService = {
    dir,
    site,
    config,
    port,
    base: `http://127.0.0.1:${port}`,
    serve: await serveHere(config, { port }),
    slowMs,
    async stopServer() {
      await svc.serve.stop();
    },
    async startServer() {
      svc.serve = await serveHere(config, { port });
    },
    async restart() {
      await svc.stopServer();
      await svc.startServer();
    },
    async close() {
      await svc.serve.stop();
      await site.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return svc;
}

/** Screenshots of a page, wide and narrow, into SHOTS (only when `shots` and asked for). */
export async function shoot(page: Page, name: string, shots: boolean): Promise<void> {
  if (!shots || !SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: join(SHOTS, `${name}-wide.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: join(SHOTS, `${name}-narrow.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
  expect(existsSync(join(SHOTS, `${name}-narrow.png`))).toBe(true);
}

/** At 390 px, no status or time in a table is broken across lines (no "compl eted", no "19:19:4 0 UTC"). */
export async function expectNoMidWordBreaks(page: Page, table: string): Promise<void> {
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    const broken = (await page.evaluate(
      `Array.from(document.querySelectorAll(${JSON.stringify(`${table} time, ${table} .status`)}))
        .filter((el) => el.getClientRects().length > 1).map((el) => el.textContent)`,
    )) as string[];
    expect(await page.locator(`${table} time`).count()).toBeGreaterThan(0);
    expect(broken).toEqual([]);
  } finally {
    await page.setViewportSize({ width: 1280, height: 800 });
  }
}

export async function signIn(page: Page, base: string, login: string, password: string): Promise<void> {
  // A fresh start: no session left over from an earlier test.
  await page.context().clearCookies();
  await page.goto(`${base}/console/`);
  await page.fill('#login', login);
  await page.fill('#password', password);
  await Promise.all([page.waitForURL((u) => u.pathname.startsWith('/console/p/')), page.click('#sign-in')]);
}

/**
 * Signs out and waits for the signed-out page to load: a page closed while that navigation is still in flight made
 * Chromium's page.close() hang past the test's timeout.
 */
export async function signOut(page: Page): Promise<void> {
  await Promise.all([page.waitForURL(/notice=signed-out/), page.click('#sign-out')]);
}

export const projectUrl = (base: string, slug = '') => `${base}/console/p/${encodeURIComponent(TOKEN)}/${slug}`;

/** The form token on the page shown now. */
export const csrfOf = (page: Page) => page.getAttribute('input[name=csrf]', 'value') as Promise<string>;

async function v1Status(base: string, key: string): Promise<number> {
  const r = await fetch(`${base}/v1/projects/${encodeURIComponent(TOKEN)}/crawls`, {
    headers: { authorization: `Bearer ${key}` },
  });
  await r.arrayBuffer();
  return r.status;
}

/**
 * An administrator's whole round: sign in (a wrong password first), start a full crawl (and a second while it
 * runs, refused), watch the bar reach completion, read the report, search, create a key and use it on /v1,
 * revoke it and see /v1 refuse it, add a user, sign out.
 */
export async function ownerFlow(browser: BrowserContext, svc: ConsoleService, shots: boolean): Promise<void> {
  const { base } = svc;
  const page = await browser.newPage();
  try {
    await page.goto(`${base}/console/`);
    expect(await page.title()).toBe('Sign in · svc console');
    // The banner names where to go, whatever the config; the browser's icon is there.
    expect(svc.serve.stderr()).toContain(`console      ${base}/console/`);
    expect(svc.serve.stderr()).toContain(`MCP (HTTP)   ${base}/mcp`);
    const icon = await fetch(`${base}/favicon.ico`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(await icon.text()).toContain('<svg');
    await page.fill('#login', 'admin');
    await page.fill('#password', 'not the password');
    await page.click('#sign-in');
    expect(await page.textContent('#error')).toBe('Wrong login or password.');
    await page.fill('#password', PASSWORDS.admin);
    await shoot(page, 'sign-in', shots);
    await Promise.all([page.waitForURL((u) => u.pathname.startsWith('/console/p/')), page.click('#sign-in')]);
    expect(new URL(page.url()).pathname).toBe(`/console/p/${encodeURIComponent(TOKEN)}/`);
    expect(await page.textContent('h1')).toBe('Overview');
    expect(await page.textContent('#targets')).toContain(svc.site.host);
    const cookies = await browser.cookies(`${base}/console/`);
    const session = cookies.find((c) => c.name === 'svc_console')!;
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/console' });

    // Before any crawl, an export says there is nothing to export (a page, not an empty file).
    const early = await page.goto(`${projectUrl(base, 'report/export')}?format=csv`);
    expect(early!.status()).toBe(409);
    expect(await page.textContent('#error')).toContain('There is no crawl yet');

    // Start a full crawl; a second start while it runs is refused with a message and starts nothing.
    await page.click('nav.pages >> text=Crawls');
    await page.check('#mode-full');
    await Promise.all([page.waitForURL(/crawl=\d+/), page.click('#start')]);
    const crawlId = Number(new URL(page.url()).searchParams.get('crawl'));
    expect(await page.textContent('#notice')).toBe('The crawl has started.');
    // The browser's own fetch, as a second click would send it (string code: the test is not compiled with the DOM).
    const again = (await page.evaluate(
      `fetch(location.pathname, { method: 'POST', body: new URLSearchParams({ csrf: ${JSON.stringify(await csrfOf(page))}, mode: 'full' }) })
        .then(async (r) => ({ status: r.status, text: await r.text() }))`,
    )) as { status: number; text: string };
    expect(again.status).toBe(409);
    expect(again.text).toContain('The crawl was not started.');
    await shoot(page, 'crawls-running', shots);
    await page.waitForSelector('#crawl-live[data-done="true"]', { timeout: 60_000 });
    // The counts' one phrase: pages, links (broken), then the problem links and their occurrences once final.
    const counts = (await page.textContent('#crawl-text'))!.match(
      new RegExp(
        `^Crawl ${crawlId} completed: (\\d+) pages, (\\d+) links \\((\\d+) broken\\), 1 problem link \\((\\d+) occurrences?\\)$`,
      ),
    );
    expect(counts, 'the live line says the counts').not.toBeNull();
    const [, pagesN, linksN, brokenN, occurrencesN] = counts!;
    expect(await page.getAttribute('#crawl-bar', 'value')).toBe('1');
    // The table and the message follow without a reload: the row says completed, its Stop is gone, and the
    // "started" message says how the crawl ended.
    const row = page.locator(`#crawls tr:has(#crawl-${crawlId})`);
    await page.waitForSelector(`#crawls tr[data-ended="true"]`);
    expect(await row.locator('.status').textContent()).toBe('completed');
    // The live row says what the live line says (and what the record says: see the reload below).
    expect(await row.locator('.pages').textContent()).toBe(pagesN);
    expect(await row.locator('.links').textContent()).toBe(linksN);
    expect(await row.locator('.errors').textContent()).toBe(brokenN);
    expect(await row.locator('.problem-links').textContent()).toBe(
      `1 (${occurrencesN} occurrence${occurrencesN === '1' ? '' : 's'})`,
    );
    const liveRow = await row.textContent();
    expect(await row.locator('time').count()).toBe(2);
    expect(await page.locator(`#stop-${crawlId}`).count()).toBe(0);
    expect(await page.textContent('#notice')).toBe(`Crawl ${crawlId} completed.`);
    await page.reload();
    expect(await page.textContent('#crawls')).toContain('completed');
    expect(await page.locator(`#crawls tr:has(#crawl-${crawlId})`).textContent()).toBe(liveRow);
    await expectNoMidWordBreaks(page, '#crawls');
    // A manual crawl of an address off the targets (with markup in it) is refused, naming the URL, as /v1 does.
    await page.check('#mode-manual');
    await page.fill('#urls', 'http://elsewhere.example/<b>x</b>');
    await page.click('#start');
    expect(await page.textContent('#error')).toMatch(/^The crawl was not started\. urls\[0\]: .*elsewhere\.example/);
    expect(await page.locator('#error b').count()).toBe(0);
    expect(await page.locator('#crawls tbody tr').count()).toBe(1);
    await shoot(page, 'crawls', shots);

    // Changes: the first full crawl's problems are all new; one crawl is a sentence, not an empty chart.
    await page.click('nav.pages >> text=Changes');
    expect(await page.textContent('#changes-since')).toContain(`Crawl ${crawlId} compared with nothing before it`);
    expect(await page.textContent('#changes-new')).toMatch(/not_found.*\/missing/s);
    expect(await page.isVisible('#changes-fixed-empty')).toBe(true);
    expect(await page.textContent('#trend-none')).toContain(
      `One completed full crawl so far (crawl ${crawlId}, 1 problem link)`,
    );
    expect(await page.locator('svg.chart').count()).toBe(0);
    await shoot(page, 'changes', shots);

    await page.click('nav.pages >> text=Overview');
    expect(await page.textContent('#last-crawls')).toContain('completed');
    expect(await page.textContent('#trend-summary')).toContain('1 problem link after the only completed full crawl.');
    await shoot(page, 'overview', shots);

    // The report: the same view `svc report --format html` writes, in a frame.
    await page.click('nav.pages >> text=Link report');
    const frame = page.frameLocator('#report-frame');
    await frame.locator('h1').waitFor();
    expect(await frame.locator('h1').textContent()).toBe('Link report');
    expect(await frame.locator('body').textContent()).toContain('/missing');
    // Full width, and the frame as tall as the report: the page scrolls, not a box inside it; nothing clipped at 390 px.
    await page.waitForSelector('#report-frame[data-fitted="true"]');
    const fits = `(() => { const f = document.getElementById('report-frame'); const d = f.contentDocument.documentElement;
      return { frame: f.clientHeight, report: d.scrollHeight, reportWide: d.scrollWidth, frameWide: f.clientWidth,
        page: document.documentElement.scrollWidth, window: window.innerWidth }; })()`;
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 800 });
      await page.waitForTimeout(200);
      const m = (await page.evaluate(fits)) as Record<string, number>;
      expect(m.frame).toBeGreaterThanOrEqual(m.report! - 2);
      expect(m.reportWide).toBeLessThanOrEqual(m.frameWide! + 1);
      expect(m.page).toBeLessThanOrEqual(m.window!);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    // An export in every format for the filter shown: a file, named for the project, with the broken link in it.
    await page.selectOption('#report-reason', 'not_found');
    await Promise.all([page.waitForURL(/reason=not_found/), page.click('#report-apply')]);
    expect(await page.getAttribute('#report-frame', 'src')).toContain('reason=not_found');
    for (const format of ['csv', 'markdown', 'sarif', 'junit', 'json', 'html', 'text']) {
      const [download] = await Promise.all([page.waitForEvent('download'), page.click(`#export-${format}`)]);
      expect(download.url()).toContain(`format=${format}`);
      expect(download.url()).toContain('reason=not_found');
      expect(download.suggestedFilename()).toMatch(/^link-report-console1-eu-north-1\.\w+$/);
      const body = await readFile((await download.path())!, 'utf8');
      expect(body).toContain('/missing');
    }
    const badFilter = await page.goto(`${projectUrl(base, 'report')}?since=yesterday`);
    expect(badFilter!.status()).toBe(400);
    expect(await page.textContent('#error')).toContain('since:');
    expect(await page.inputValue('#report-since')).toBe('yesterday');
    await page.goto(projectUrl(base, 'report'));
    await shoot(page, 'report', shots);

    // Search, and script in a query stays text.
    await page.click('nav.pages >> text=Search');
    await page.fill('#q', 'orchard');
    await Promise.all([page.waitForURL(/q=orchard/), page.click('#search')]);
    expect(await page.textContent('#hits')).toContain('Orchard home');
    expect(await page.innerHTML('#hits')).toContain('<em>');
    // 13 pages match: ten here, the other three on the next page.
    expect(await page.textContent('#hit-count')).toMatch(/^13 pages match \(\d+ ms\); 1–10 shown\.$/);
    expect(await page.locator('#hits li').count()).toBe(10);
    await Promise.all([page.waitForURL(/page=2/), page.click('#next-page')]);
    expect(await page.locator('#hits li').count()).toBe(3);
    expect(await page.textContent('#hit-count')).toContain('11–13 shown');
    expect(await page.locator('#next-page').count()).toBe(0);
    await Promise.all([page.waitForURL((u) => !u.search.includes('page=')), page.click('#prev-page')]);
    await shoot(page, 'search', shots);
    await page.fill('#q', '"><img src=x onerror="window.__xss=1">');
    await page.click('#search');
    await page.waitForSelector('#no-hits, #hits');
    expect(await page.inputValue('#q')).toBe('"><img src=x onerror="window.__xss=1">');

    // An API key: shown once, works on /v1, listed by name only, revoked and refused.
    await page.click('nav.pages >> text=API keys');
    await page.fill('#key-name', 'deploy <script>window.__xss=1</script>');
    await page.click('#create-key');
    const key = (await page.textContent('#new-key'))!;
    expect(key).toMatch(/^svc_key_/);
    await shoot(page, 'keys-created', shots);
    // The copy button (shown by the script) puts the key on the clipboard.
    await browser.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    await page.click('#copy-key');
    // A locator: page.waitForFunction's string predicate is eval'd in the page, which the console's CSP refuses.
    await page.locator('#copy-note', { hasText: /^Copied\.$/ }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(key);
    expect(await v1Status(base, key)).toBe(200);
    await page.goto(projectUrl(base, 'keys'));
    expect(await page.content()).not.toContain(key);
    const keyRow = page.locator('#keys tbody tr').last();
    expect(await keyRow.textContent()).toContain('deploy <script>window.__xss=1</script>');
    // Told apart by its first characters; used once by the /v1 call above.
    expect(await keyRow.locator('.key-prefix').textContent()).toBe(`${key.slice(0, 12)}…`);
    expect(await keyRow.locator('td').nth(4).locator('time').count()).toBe(1);
    await shoot(page, 'keys', shots);
    // Revoke asks first; Cancel changes nothing.
    await keyRow.locator('a.danger').click();
    expect(await page.textContent('#confirm-text')).toContain(`${key.slice(0, 12)}…`);
    await page.click('#cancel-revoke');
    expect(await v1Status(base, key)).toBe(200);
    await page.locator('#keys tbody tr').last().locator('a.danger').click();
    const confirmCsrf = await csrfOf(page);
    const revokeUrl = page.url();
    await Promise.all([page.waitForURL(/notice=key-revoked/), page.click('#confirm-revoke')]);
    expect(await page.textContent('#notice')).toContain('revoked');
    expect(await v1Status(base, key)).toBe(401);
    // The same revoke again (a second tab's form): said so, nothing changed.
    const twice = (await page.evaluate(
      `fetch(${JSON.stringify(revokeUrl)}, { method: 'POST', body: new URLSearchParams({ csrf: ${JSON.stringify(confirmCsrf)} }) })
        .then(async (r) => ({ status: r.status, text: await r.text() }))`,
    )) as { status: number; text: string };
    expect(twice.status).toBe(409);
    expect(twice.text).toMatch(/Key \d+ was already revoked/);

    // Webhooks: a refused receiver is named and nothing is added (its URL shown back as text); one added shows its
    // secret once; removed, it is gone.
    await page.click('nav.pages >> text=Webhooks');
    expect(await page.textContent('h1')).toBe('Webhooks');
    const hookUrl = `${svc.site.origin}/hook?<script>window.__xss=1</script>`;
    await page.fill('#webhook-url', hookUrl);
    await page.click('#add-webhook');
    expect(await page.textContent('#error')).toContain('No webhook was added: url: 127.0.0.1 is a loopback address');
    expect(await page.isVisible('#webhooks-empty')).toBe(true);
    expect(await page.inputValue('#webhook-url')).toBe(hookUrl);
    await page.check('#webhook-allow-private');
    await page.click('#add-webhook');
    const hookSecret = (await page.textContent('#new-webhook-secret'))!;
    expect(hookSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await shoot(page, 'webhooks-added', shots);
    await page.goto(projectUrl(base, 'webhooks'));
    expect(await page.content()).not.toContain(hookSecret);
    expect(await page.textContent('#webhooks')).toContain(hookUrl);
    await shoot(page, 'webhooks', shots);
    await Promise.all([page.waitForURL(/notice=webhook-removed/), page.locator('#webhooks button.danger').click()]);
    expect(await page.textContent('#notice')).toContain('removed');
    expect(await page.isVisible('#webhooks-empty')).toBe(true);

    // Users: a bad password is refused by name; a good one adds the user.
    await page.click('nav.pages >> text=Users');
    await page.fill('#new-login', 'editor1');
    await page.selectOption('#new-role', 'editor');
    await page.fill('#new-password', 'short');
    await page.click('#add-user-button');
    expect(await page.textContent('#error')).toContain('password: must be at least 8 characters');
    expect(await page.textContent('#users')).not.toContain('editor1');
    await page.fill('#new-password', 'editor password 1');
    await Promise.all([page.waitForURL(/notice=user-added/), page.click('#add-user-button')]);
    expect(await page.textContent('#users')).toContain('editor1');
    await shoot(page, 'users', shots);

    expect(await page.evaluate('window.__xss')).toBeUndefined();
    await signOut(page);
    expect(await page.textContent('#notice')).toBe('You are signed out.');
    const after = await page.goto(projectUrl(base, 'keys'));
    expect(after!.status()).toBe(401);
    expect(await page.isVisible('#login')).toBe(true);
  } finally {
    await page.close();
  }
}

/** A subscriber sees Search only: the menu, the landing page, and a 403 on any other page. */
export async function subscriberView(browser: BrowserContext, svc: ConsoleService, shots: boolean): Promise<void> {
  const page = await browser.newPage();
  try {
    await signIn(page, svc.base, 'reader', PASSWORDS.reader);
    expect(new URL(page.url()).pathname).toBe(`/console/p/${encodeURIComponent(TOKEN)}/search`);
    expect(await page.locator('nav.pages a').allTextContents()).toEqual(['Search']);
    await page.fill('#q', 'pruning');
    await Promise.all([page.waitForURL(/q=pruning/), page.click('#search')]);
    expect(await page.textContent('main')).toContain('About the orchard');
    expect(await page.textContent('#hit-count')).toMatch(/^1 page matches \(/);
    await shoot(page, 'subscriber-search', shots);
    for (const slug of ['', 'crawls', 'keys', 'report/view']) {
      const r = await page.goto(projectUrl(svc.base, slug));
      expect(r!.status()).toBe(403);
    }
    expect(await page.textContent('#error')).toContain('your role (subscriber)');
    expect((await page.goto(`${svc.base}/console/users`))!.status()).toBe(403);
    // The sign-out's navigation ends before the page closes (none is left in flight for the next test).
    await signOut(page);
  } finally {
    await page.close();
  }
}
