// Passwords of the sign-in page: scrypt hashes with their parameters and a salt, stored on the user row.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PasswordHasher, passwordMatches, SCRYPT_PARAMS } from '../../src/auth/passwords.js';
import { addUser, UserError } from '../../src/auth/users.js';
import { replacePasswordHash, setPasswordHash } from '../../src/store/oauth.js';
import { openStore, type Store } from '../../src/store/sqlite/store.js';
import { scryptHashWith } from '../support/legacy-hash.js';

let dir: string;
let store: Store;
// The real cost where the hash itself is under test; the row-level tests below take a cheaper current cost (each
// scrypt run at 2^17 is a third of a second of one core) and an older, cheaper one still to be renewed.
const passwords = new PasswordHasher();
const CURRENT = { N: 4096, r: 8, p: 1 };
const rows = new PasswordHasher(CURRENT);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-pw-'));
  store = openStore({ path: join(dir, 'svc.db') });
  await addUser(store.sql, 'ann', 'editor');
  await addUser(store.sql, 'bob', 'subscriber');
  await addUser(store.sql, 'cy', 'subscriber');
});

afterAll(() => {
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('password hashes', () => {
  it('are scrypt with their parameters and a fresh salt: the same password hashes differently each time', async () => {
    const a = await passwords.hash('hunter2 hunter2');
    expect(a).toMatch(/^scrypt\$131072\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
    expect(await passwordMatches('hunter2 hunter2', a)).toBe(true);
    const b = await rows.hash('hunter2 hunter2');
    expect(await rows.hash('hunter2 hunter2')).not.toBe(b);
    expect(await passwordMatches('hunter2 hunter3', b)).toBe(false);
    expect(await passwordMatches('hunter2 hunter2', 'sha256$abc')).toBe(false);
  });

  it("default to OWASP's cost, and take another as an option; a hash made at one cost verifies at any", async () => {
    expect(new PasswordHasher().cost).toEqual({ N: 2 ** 17, r: 8, p: 1 });
    expect(SCRYPT_PARAMS).toEqual({ N: 2 ** 17, r: 8, p: 1 });
    const cheap = new PasswordHasher({ N: 1024, r: 8, p: 1 });
    const h = await cheap.hash('a cheap password');
    expect(h).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect(cheap.needsRehash(h)).toBe(false);
    expect(passwords.needsRehash(h)).toBe(true);
    expect(await passwordMatches('a cheap password', h)).toBe(true);
    // What svc stored before the parameters were raised (N = 2^15) still verifies, and is due for renewal.
    const legacy = scryptHashWith('an older password', 32768);
    expect(passwords.needsRehash(legacy)).toBe(true);
    expect(await passwordMatches('an older password', legacy)).toBe(true);
  });

  it('compare Unicode passwords in one normal form (é typed either way)', async () => {
    const h = await rows.hash('caf\u00e9 au lait');
    expect(await passwordMatches('cafe\u0301 au lait', h)).toBe(true);
  });
});

describe('PasswordHasher set / verify', () => {
  it('sets a password on the user row (only its hash) and checks it', async () => {
    await rows.set(store.sql, 'ann', 'ann secret password');
    const row = store.db.prepare('SELECT password_hash FROM users WHERE login = ?').get('ann') as {
      password_hash: string;
    };
    expect(row.password_hash).toMatch(/^scrypt\$/);
    expect(row.password_hash).not.toContain('ann secret password');
    expect(await rows.verify(store.sql, 'ann', 'ann secret password')).toEqual({ login: 'ann', role: 'editor' });
    expect(await rows.verify(store.sql, 'ann', 'ann secret passworD')).toBeNull();
  });

  it('a user without a password, or an unknown login, never signs in', async () => {
    expect(await rows.verify(store.sql, 'bob', '')).toBeNull();
    expect(await rows.verify(store.sql, 'bob', 'anything at all')).toBeNull();
    expect(await rows.verify(store.sql, 'nobody', 'ann secret password')).toBeNull();
  });

  it("a hash with older parameters verifies and is made again with today's at the next right password only", async () => {
    const old = scryptHashWith('cy old-format password', 1024);
    expect(rows.needsRehash(old)).toBe(true);
    await setPasswordHash(store.sql, 'cy', old);
    const stored = () =>
      (store.db.prepare('SELECT password_hash FROM users WHERE login = ?').get('cy') as { password_hash: string })
        .password_hash;
    expect(await rows.verify(store.sql, 'cy', 'cy old-format passworD')).toBeNull();
    expect(stored()).toBe(old);
    expect(await rows.verify(store.sql, 'cy', 'cy old-format password')).toEqual({
      login: 'cy',
      role: 'subscriber',
    });
    const renewed = stored();
    expect(renewed).toMatch(/^scrypt\$4096\$8\$1\$/);
    expect(rows.needsRehash(renewed)).toBe(false);
    expect(await rows.verify(store.sql, 'cy', 'cy old-format password')).toEqual({
      login: 'cy',
      role: 'subscriber',
    });
    expect(stored()).toBe(renewed);
    // A rehash never undoes a password set while it ran: it replaces only the hash it verified.
    expect(await replacePasswordHash(store.sql, 'cy', old, await rows.hash('cy old-format password'))).toBe(false);
    expect(stored()).toBe(renewed);
  });

  it('refuses short and overlong passwords and unknown users, naming the rule', async () => {
    await expect(rows.set(store.sql, 'ann', 'short')).rejects.toThrow(
      new UserError('password: must be at least 8 characters'),
    );
    await expect(rows.set(store.sql, 'ann', 'x'.repeat(1025))).rejects.toThrow(
      /password: must be at most 1024 characters/,
    );
    await expect(rows.set(store.sql, 'nobody', 'long enough password')).rejects.toThrow('login "nobody": no such user');
  });
});
