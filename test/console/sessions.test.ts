// Console sessions on both stores: only a hash is stored, a session ends at sign-out, at expiry and with its user,
// and any other connection to the same database (another process) answers for it. The CSRF token is the
// session's own; the Origin rule and the highlight's escaping, as pure functions.
import { afterAll, describe, expect, it } from 'vitest';
import {
  ConsoleSessions,
  CONSOLE_SESSION_TTL_MS,
  csrfTokenFor,
  csrfTokenMatches,
} from '../../src/auth/console-sessions.js';
import { revokeUserTokens } from '../../src/auth/oauth/authorization-server.js';
import { PasswordHasher } from '../../src/auth/passwords.js';
import { addUser, removeUser, resetUserToken } from '../../src/auth/users.js';
import { insertClient, insertTokens } from '../../src/store/oauth.js';
import type { Sql } from '../../src/store/sql.js';
import { foreignOrigin } from '../../src/http/console/handler.js';
import { safeHighlight } from '../../src/http/console/pages/search.js';
import { TEST_PASSWORD_COST } from '../support/app.js';
import { DIALECTS, storeKit } from '../support/stores.js';

describe.each(DIALECTS)('console sessions on %s', (dialect) => {
  const kit = storeKit(dialect);
  afterAll(() => kit.stop());

  it('keeps only a hash, answers on another connection, and ends at sign-out, expiry and with its user', async () => {
    const { store, reopen } = await kit.fresh();
    let now = Date.parse('2026-11-25T10:00:00Z');
    const clock = () => now;
    await addUser(store.sql, 'alice', 'administrator');
    await addUser(store.sql, 'bob', 'subscriber');
    const sessions = new ConsoleSessions(store.sql, { now: clock });
    const a = await sessions.start('alice');
    expect(a.secret).toMatch(/^svc_cs_[A-Za-z0-9_-]{43}$/);
    expect(a.expiresAt).toBe(now + CONSOLE_SESSION_TTL_MS);
    const rows = await store.sql.all<{ id_hash: string }>('SELECT id_hash FROM console_sessions');
    expect(rows).toHaveLength(1);
    expect(rows[0]!.id_hash).not.toContain(a.secret.slice(7));

    const other = new ConsoleSessions((await reopen()).sql, { now: clock });
    expect(await other.user(a.secret)).toEqual({ login: 'alice', role: 'administrator' });
    expect(await other.user(`${a.secret.slice(0, -1)}x`)).toBeNull();
    expect(await other.user('not a session')).toBeNull();

    // The role is read each time.
    await store.sql.run("UPDATE users SET role = 'editor' WHERE login = 'alice'");
    expect(await sessions.user(a.secret)).toEqual({ login: 'alice', role: 'editor' });

    await sessions.end(a.secret);
    expect(await other.user(a.secret)).toBeNull();

    const b = await sessions.start('bob');
    now += CONSOLE_SESSION_TTL_MS;
    expect(await sessions.user(b.secret)).toBeNull();

    now -= CONSOLE_SESSION_TTL_MS;
    const c = await sessions.start('alice');
    expect(await sessions.user(c.secret)).not.toBeNull();
    await store.sql.run("DELETE FROM users WHERE login = 'alice'");
    expect(await sessions.user(c.secret)).toBeNull();
  });
});

describe.each(DIALECTS)("a user's sessions and grants on %s", (dialect) => {
  const kit = storeKit(dialect);
  afterAll(() => kit.stop());

  /** An OAuth token row of `login` (as a sign-in stores one); its count is read back below. */
  async function grantTo(sql: Sql, login: string): Promise<void> {
    const clientId = `client-${Math.random()}`;
    await insertClient(sql, clientId, JSON.stringify({ client_id: clientId, redirect_uris: ['http://127.0.0.1/cb'] }));
    await insertTokens(sql, [
      {
        tokenHash: `hash-${Math.random()}`,
        kind: 'access',
        grantId: `grant-${Math.random()}`,
        clientId,
        login,
        scopes: 'mcp',
        resource: 'http://127.0.0.1/mcp',
        expiresAt: Math.floor(Date.now() / 1000) + 3600,
      },
    ]);
  }
  const tokensOf = async (sql: Sql, login: string) =>
    (await sql.all('SELECT token_hash FROM oauth_tokens WHERE login = ?', [login])).length;

  it('end when the password is set, the token reset or the OAuth tokens revoked', async () => {
    const { store } = await kit.fresh();
    await addUser(store.sql, 'dora', 'editor');
    const sessions = new ConsoleSessions(store.sql);
    const a = await sessions.start('dora');
    await new PasswordHasher(TEST_PASSWORD_COST).set(store.sql, 'dora', 'a new password 1');
    expect(await sessions.user(a.secret)).toBeNull();
    const b = await sessions.start('dora');
    await resetUserToken(store.sql, 'dora');
    expect(await sessions.user(b.secret)).toBeNull();
    const c = await sessions.start('dora');
    await revokeUserTokens(store.sql, 'dora');
    expect(await sessions.user(c.secret)).toBeNull();
  });

  it('removeUser ends everything of the user, and a login added again revives nothing of the old one', async () => {
    const { store } = await kit.fresh();
    await addUser(store.sql, 'eve', 'subscriber');
    const sessions = new ConsoleSessions(store.sql);
    const old = await sessions.start('eve');
    await grantTo(store.sql, 'eve');
    expect(await removeUser(store.sql, 'eve')).toEqual({ sessions: 1, tokens: 1 });
    expect(await sessions.user(old.secret)).toBeNull();
    expect(await tokensOf(store.sql, 'eve')).toBe(0);
    await expect(removeUser(store.sql, 'eve')).rejects.toThrow(/login "eve": no such user/);
    await addUser(store.sql, 'eve', 'administrator');
    expect(await sessions.user(old.secret)).toBeNull();
  });

  it.runIf(dialect === 'sqlite')(
    'a login re-added after its row was deleted by hand (no cascade) revives nothing',
    async () => {
      const { store } = await kit.fresh();
      await addUser(store.sql, 'fay', 'subscriber');
      const sessions = new ConsoleSessions(store.sql);
      const old = await sessions.start('fay');
      await grantTo(store.sql, 'fay');
      // As the sqlite3 shell does by default: foreign keys off, so nothing cascades.
      await store.sql.exec('PRAGMA foreign_keys = OFF');
      await store.sql.run("DELETE FROM users WHERE login = 'fay'");
      await store.sql.exec('PRAGMA foreign_keys = ON');
      await addUser(store.sql, 'fay', 'administrator');
      expect(await sessions.user(old.secret)).toBeNull();
      expect(await tokensOf(store.sql, 'fay')).toBe(0);
    },
  );
});

describe('console form rules', () => {
  it('a CSRF token belongs to one secret', () => {
    const t = csrfTokenFor('svc_cs_one');
    expect(csrfTokenMatches('svc_cs_one', t)).toBe(true);
    expect(csrfTokenMatches('svc_cs_two', t)).toBe(false);
    expect(csrfTokenMatches('svc_cs_one', undefined)).toBe(false);
    expect(csrfTokenMatches('svc_cs_one', `${t}x`)).toBe(false);
  });

  it('takes a form from its own origin or one that sends none, and refuses any other', () => {
    expect(foreignOrigin(undefined, '127.0.0.1:8787')).toBeNull();
    expect(foreignOrigin('http://127.0.0.1:8787', '127.0.0.1:8787')).toBeNull();
    expect(foreignOrigin('http://127.0.0.1:9999', '127.0.0.1:8787')).toBe('Origin http://127.0.0.1:9999');
    expect(foreignOrigin('null', '127.0.0.1:8787')).toBe('Origin null');
    expect(foreignOrigin('https://evil.example', 'console.example')).toBe('Origin https://evil.example');
  });

  it("keeps a highlight's <em> marks and escapes everything else", () => {
    expect(safeHighlight('a <em>pear</em> &amp; &lt;b&gt;')).toBe('a <em>pear</em> &amp; &lt;b&gt;');
    expect(safeHighlight('<script>x</script><em>y</em>')).toBe('&lt;script&gt;x&lt;/script&gt;<em>y</em>');
    expect(safeHighlight('<img src=x onerror=alert(1)>')).toBe('&lt;img src=x onerror=alert(1)&gt;');
  });
});
