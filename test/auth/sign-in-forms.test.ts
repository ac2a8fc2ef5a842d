// Sign-in forms on both stores, as several `svc serve` processes behind one address take them: a form one process
// issued is taken by another on the same data, once across all of them; a restart spoils no open form; a form past
// its time, for another cookie or purpose, or signed with another key is refused. Over HTTP: the console's form
// from one server signs in on another, and a second post of it is refused by the first.
import { mkdtempSync, statSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { httpDeps, serveHandlers } from '../../src/app/http.js';
import { openAbilityHost } from '../../src/app/ability-host.js';
import { SIGN_IN_FORM_KEY } from '../../src/auth/server-key.js';
import { newFormNonce, SignInForms } from '../../src/auth/sign-in-forms.js';
import { addUser } from '../../src/auth/users.js';
import { parseConfig } from '../../src/cli/load-config.js';
import { createHttpServer } from '../../src/http/http-server.js';
import type { HttpHandler } from '../../src/http/io.js';
import { silentLogger } from '../../src/lib/log.js';
import { openApp, tempDir } from '../support/app.js';
import { postSignIn, signInForm } from '../support/console-sign-in.js';
import { DIALECTS, storeKit } from '../support/stores.js';

const TTL = 60_000;

describe.each(DIALECTS)('sign-in forms on %s', (dialect) => {
  const kit = storeKit(dialect);
  afterAll(() => kit.stop());

  it('are taken by any process on the data, once across all of them, and survive a restart', async () => {
    const { store, reopen } = await kit.fresh();
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-forms-'));
    let now = Date.parse('2026-11-28T10:00:00Z');
    const clock = () => now;
    const a = new SignInForms({ ttlMs: TTL, sql: store.sql, dataDir, now: clock });
    const b = new SignInForms({ ttlMs: TTL, sql: (await reopen()).sql, dataDir, now: clock });
    const nonce = newFormNonce();

    const fromA = await a.issue(nonce);
    expect(await b.take(fromA, nonce)).toBe('ok');
    expect(await a.take(fromA, nonce)).toBe('used');
    expect(await b.take(fromA, nonce)).toBe('used');

    // Bound to the browser's cookie and to what the form is for.
    const bound = await b.issue(nonce, 'request 1');
    expect(await a.take(bound, newFormNonce(), 'request 1')).toBe('invalid');
    expect(await a.take(bound, nonce, 'request 2')).toBe('invalid');
    expect(await a.take(bound, nonce, 'request 1')).toBe('ok');

    // A process started later (a restart) takes a form issued before it.
    const beforeRestart = await a.issue(nonce);
    const restarted = new SignInForms({ ttlMs: TTL, sql: (await reopen()).sql, dataDir, now: clock });
    expect(await restarted.take(beforeRestart, nonce)).toBe('ok');

    // Past its time, refused; and its row is forgotten by a later spend.
    const late = await a.issue(nonce);
    now += TTL;
    expect(await b.take(late, nonce)).toBe('invalid');
    expect(await b.take(await b.issue(nonce), nonce)).toBe('ok');
    const kept = await store.sql.all<{ expires_at: number }>('SELECT expires_at FROM spent_sign_in_forms');
    expect(kept.map((r) => Number(r.expires_at))).toEqual([now + TTL]);

    // Not a token at all, or one made with another key.
    expect(await a.take('forged', nonce)).toBe('invalid');
    expect(await a.take(undefined, nonce)).toBe('invalid');
    expect(await a.take(await a.issue(nonce), undefined)).toBe('invalid');
    if (dialect === 'sqlite') {
      const elsewhere = new SignInForms({
        ttlMs: TTL,
        sql: store.sql,
        dataDir: tempDir('svc-forms-other-'),
        now: clock,
      });
      expect(await a.take(await elsewhere.issue(nonce), nonce)).toBe('invalid');
    }
  });
});

describe('the console behind one address, served by two processes on one data directory', () => {
  const servers: Server[] = [];
  const closers: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const s of servers) s.closeAllConnections();
    await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
    for (const c of closers.reverse()) await c();
  });

  async function serveConsole(dataDir: string): Promise<string> {
    const app = await openApp(parseConfig({ data_dir: dataDir, log_level: 'silent' }));
    const host = await openAbilityHost(app);
    closers.push(
      () => app.close(),
      () => host.close(),
    );
    const handlers: HttpHandler[] = [];
    const server = createHttpServer({ logger: silentLogger, handlers });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    handlers.push(...serveHandlers(httpDeps(app, { publicUrl: base }), host));
    if (servers.length === 1) {
      await addUser(app.store.sql, 'admin', 'administrator');
      await app.passwords.set(app.store.sql, 'admin', 'admin password 1');
    }
    return base;
  }

  it("signs in with the other process's form, once", async () => {
    const dataDir = tempDir('svc-forms-console-');
    const [first, second] = [await serveConsole(dataDir), await serveConsole(dataDir)];
    const form = await signInForm(first);
    const signedIn = await postSignIn(second, form, 'admin', 'admin password 1');
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.getSetCookie().some((c) => c.startsWith('svc_console=svc_cs_'))).toBe(true);
    const again = await postSignIn(first, form, 'admin', 'admin password 1');
    expect(again.status).toBe(403);
    expect(again.headers.getSetCookie().some((c) => c.startsWith('svc_console=svc_cs_'))).toBe(false);
    // The key is the data directory's, made once (0600, as the other server keys).
    expect(statSync(join(dataDir, SIGN_IN_FORM_KEY.file)).mode & 0o777).toBe(0o600);
  });
});
