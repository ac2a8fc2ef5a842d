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
import { addUser } from '../../src/auth/users.js';
import { foreignOrigin } from '../../src/http/console/handler.js';
import { safeHighlight } from '../../src/http/console/pages/search.js';
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
