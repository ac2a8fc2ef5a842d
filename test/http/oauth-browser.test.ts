// The sign-in page in a real browser (Debian's headless Chromium through playwright-core; never a downloaded
// one): the page shows the client and the scope, the form is filled and sent, the browser follows the redirect to
// the client's loopback callback with a code, and the code gives a token that opens /mcp. A screenshot of the
// page is saved in the test's temporary folder. Skipped only where Chromium is missing and this is not CI.
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchChromium } from '../support/chromium.js';
import {
  authorizeUrl,
  mcpInit,
  PASSWORDS,
  pkce,
  registerClient,
  startOAuthServer,
  token,
  type OAuthServer,
} from '../support/oauth.js';

const available = existsSync(CHROMIUM);
if (!available && process.env.CI)
  throw new Error(`${CHROMIUM} is missing: .ci/run installs it (apt-get install chromium-headless-shell)`);

describe.skipIf(!available)('the sign-in page in headless Chromium', () => {
  let srv: OAuthServer;
  let browser: BrowserContext;
  let callback: Server;
  let callbackUrl: string;
  const dir = mkdtempSync(join(tmpdir(), 'svc-oauth-browser-'));

  beforeAll(async () => {
    srv = await startOAuthServer();
    // The client's redirect target: a loopback page that only says it got the answer.
    callback = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>callback</title><p id="done">signed in</p>');
    });
    await new Promise<void>((r) => callback.listen(0, '127.0.0.1', r));
    callbackUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
    // A fresh profile in the temp folder (playwright passes it as --user-data-dir).
    browser = await launchChromium(join(dir, 'profile'));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    callback?.closeAllConnections();
    await new Promise<void>((r) => (callback ? callback.close(() => r()) : r()));
    await srv?.close();
    // The screenshot stays for people to look at; the browser profile goes.
    rmSync(join(dir, 'profile'), { recursive: true, force: true });
  });

  it('fills the form, follows the redirect to the client with a code, and the code gives a working token', async () => {
    const reg = await registerClient(srv.baseUrl, {
      client_name: 'Browser Agent',
      redirect_uris: [callbackUrl],
      token_endpoint_auth_method: 'none',
    });
    const clientId = reg.json.client_id as string;
    const p = pkce();
    const page = await browser.newPage();
    try {
      await page.goto(
        authorizeUrl(srv.baseUrl, {
          clientId,
          redirectUri: callbackUrl,
          challenge: p.challenge,
          state: 'browser-state',
          scope: 'mcp',
          resource: srv.mcpUrl,
        }),
      );
      expect(await page.title()).toBe('Sign in to svc');
      expect(await page.textContent('#client-name')).toBe('Browser Agent');
      expect(await page.textContent('#scopes')).toContain('mcp');

      // A wrong password first: the page comes back with the message, the browser stays on svc.
      await page.fill('#login', 'admin');
      await page.fill('#password', 'not the password');
      await page.click('#allow');
      await page.waitForSelector('#error');
      expect(await page.textContent('#error')).toBe('Wrong login or password.');
      expect(new URL(page.url()).origin).toBe(srv.baseUrl);

      await page.fill('#password', PASSWORDS.admin);
      const shot = join(dir, 'sign-in.png');
      await page.screenshot({ path: shot, fullPage: true });
      process.stderr.write(`sign-in page screenshot: ${shot}\n`);
      expect(statSync(shot).size).toBeGreaterThan(1000);
      await Promise.all([page.waitForURL((u) => u.href.startsWith(callbackUrl)), page.click('#allow')]);
      const landed = new URL(page.url());
      expect(landed.searchParams.get('state')).toBe('browser-state');
      const code = landed.searchParams.get('code');
      expect(code).toMatch(/^svc_oac_/);
      expect(await page.textContent('#done')).toBe('signed in');

      const t = await token(srv.baseUrl, {
        grant_type: 'authorization_code',
        client_id: clientId,
        code: code!,
        code_verifier: p.verifier,
        redirect_uri: callbackUrl,
        resource: srv.mcpUrl,
      });
      expect(t.status).toBe(200);
      expect((await mcpInit(srv.mcpUrl, t.json.access_token as string)).status).toBe(200);
    } finally {
      await page.close();
    }
  }, 60_000);

  it('will not be shown inside a frame of another page', async () => {
    const reg = await registerClient(srv.baseUrl, { redirect_uris: [callbackUrl], token_endpoint_auth_method: 'none' });
    const url = authorizeUrl(srv.baseUrl, {
      clientId: reg.json.client_id as string,
      redirectUri: callbackUrl,
      challenge: pkce().challenge,
    });
    // The framing page is served from the callback's origin (another port: another origin).
    const framer = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><iframe id="f" src="${url.replace(/&/g, '&amp;')}"></iframe>`);
    });
    await new Promise<void>((r) => framer.listen(0, '127.0.0.1', r));
    const page = await browser.newPage();
    try {
      // Chromium says so on the framing page's console when it refuses the frame.
      const refused = page.waitForEvent('console', {
        predicate: (m) => /frame-ancestors/.test(m.text()),
        timeout: 15_000,
      });
      await page.goto(`http://127.0.0.1:${(framer.address() as AddressInfo).port}/`, { waitUntil: 'domcontentloaded' });
      expect((await refused).text()).toMatch(/violates .*frame-ancestors 'none'.*blocked/s);
    } finally {
      await page.close();
      framer.closeAllConnections();
      await new Promise<void>((r) => framer.close(() => r()));
    }
  }, 30_000);
});
