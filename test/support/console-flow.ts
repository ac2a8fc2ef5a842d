// Shared by the console's browser tests: a test site with a slow page (so a crawl runs long enough to be seen
// running), a real `svc serve` on it (SQLite or PostgreSQL) with an administrator and a subscriber made by the
// CLI, Debian's headless Chromium, and the flow a site owner goes through, asserted step by step.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { launchChromium } from './chromium.js';
import { runSvc, spawnSvc, type ServeProcess } from './cli.js';
import { ROOT } from './paths.js';
import { article, closedPort, startSite, writeJson, type TestSite } from './site.js';
import { until } from './wait.js';

export const TOKEN = 'console1:eu-north-1';
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
  serve: ServeProcess;
  /** How long /slow takes to answer (ms): a crawl takes at least that. */
  slowMs: { value: number };
  /** Stops the server and starts it again on the same port and data. */
  restart(): Promise<void>;
  stopServer(): Promise<void>;
  startServer(): Promise<void>;
  close(): Promise<void>;
}

async function serveOn(config: string, port: number): Promise<ServeProcess> {
  const p = spawnSvc(['serve', '--config', config, '--port', String(port)]);
  const line = await until(
    'svc serve to listen',
    () => p.logs.find((l) => l.msg === 'svc serve listening') ?? (p.child.exitCode !== null && 'exited'),
    30_000,
  );
  if (line === 'exited') throw new Error(`svc serve exited: ${p.stderr()}`);
  return {
    ...p,
    baseUrl: (line as { base_url?: unknown }).base_url as string,
    async stop() {
      if (p.child.exitCode === null) {
        p.child.kill('SIGTERM');
        await p.exited;
      }
    },
  };
}

async function addUser(config: string, login: string, role: string, password: string): Promise<void> {
  const add = await runSvc(['users', 'add', login, '--role', role, '--config', config]);
  if (add.status !== 0) throw new Error(add.stderr);
  const set = await runSvc(['users', 'set-password', login, '--config', config], { input: `${password}\n` });
  if (set.status !== 0) throw new Error(set.stderr);
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
      void r.writeHead(200, { 'content-type': 'text/html' }).end(article('About the orchard', 'Pruning in winter.')),
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
    serve: await serveOn(config, port),
    slowMs,
    async stopServer() {
      await svc.serve.stop();
    },
    async startServer() {
      svc.serve = await serveOn(config, port);
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

export async function signIn(page: Page, base: string, login: string, password: string): Promise<void> {
  // A fresh start: no session left over from an earlier test.
  await page.context().clearCookies();
  await page.goto(`${base}/console/`);
  await page.fill('#login', login);
  await page.fill('#password', password);
  await Promise.all([page.waitForURL((u) => u.pathname.startsWith('/console/p/')), page.click('#sign-in')]);
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
    expect(await page.textContent('#crawl-text')).toMatch(
      new RegExp(`^Crawl ${crawlId} completed: \\d+ pages, \\d+ links, 1 problems$`),
    );
    expect(await page.getAttribute('#crawl-bar', 'value')).toBe('1');
    await page.reload();
    expect(await page.textContent('#crawls')).toContain('completed');
    // A manual crawl of an address off the targets (with markup in it) is refused, naming the URL, as /v1 does.
    await page.check('#mode-manual');
    await page.fill('#urls', 'http://elsewhere.example/<b>x</b>');
    await page.click('#start');
    expect(await page.textContent('#error')).toMatch(/^The crawl was not started\. urls\[0\]: .*elsewhere\.example/);
    expect(await page.locator('#error b').count()).toBe(0);
    expect(await page.locator('#crawls tbody tr').count()).toBe(1);
    await shoot(page, 'crawls', shots);

    await page.click('nav.pages >> text=Overview');
    expect(await page.textContent('#last-crawls')).toContain('completed');
    await shoot(page, 'overview', shots);

    // The report: the same view `svc report --format html` writes, in a frame.
    await page.click('nav.pages >> text=Link report');
    const frame = page.frameLocator('#report-frame');
    await frame.locator('h1').waitFor();
    expect(await frame.locator('h1').textContent()).toBe('Link report');
    expect(await frame.locator('body').textContent()).toContain('/missing');
    await shoot(page, 'report', shots);

    // Search, and script in a query stays text.
    await page.click('nav.pages >> text=Search');
    await page.fill('#q', 'orchard');
    await Promise.all([page.waitForURL(/q=orchard/), page.click('#search')]);
    expect(await page.textContent('#hits')).toContain('Orchard home');
    expect(await page.innerHTML('#hits')).toContain('<em>');
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
    expect(await v1Status(base, key)).toBe(200);
    await page.goto(projectUrl(base, 'keys'));
    expect(await page.content()).not.toContain(key);
    expect(await page.textContent('#keys')).toContain('deploy <script>window.__xss=1</script>');
    await shoot(page, 'keys', shots);
    const revoke = page.locator('#keys button.danger').last();
    await Promise.all([page.waitForURL(/notice=key-revoked/), revoke.click()]);
    expect(await page.textContent('#notice')).toContain('revoked');
    expect(await v1Status(base, key)).toBe(401);

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
    await Promise.all([page.waitForURL(/notice=signed-out/), page.click('#sign-out')]);
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
    await shoot(page, 'subscriber-search', shots);
    for (const slug of ['', 'crawls', 'keys', 'report/view']) {
      const r = await page.goto(projectUrl(svc.base, slug));
      expect(r!.status()).toBe(403);
    }
    expect(await page.textContent('#error')).toContain('your role (subscriber)');
    expect((await page.goto(`${svc.base}/console/users`))!.status()).toBe(403);
    // The sign-out's navigation ends before the page closes (none is left in flight for the next test).
    await Promise.all([page.waitForURL(/notice=signed-out/), page.click('#sign-out')]);
  } finally {
    await page.close();
  }
}
