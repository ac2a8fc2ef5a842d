// The password sign-in's limits under concurrency: attempts sent together are counted before their checks, one
// address's checks run one at a time, and the process's slots turn a check away (not counted) rather than queue it
// long. Counts and statuses only; the delay a burst causes is measured by bench/sign-in-burst.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckSlots } from '../../src/auth/check-slots.js';
import { PasswordSignIn, type SignInResult } from '../../src/auth/password-sign-in.js';
import { PasswordHasher } from '../../src/auth/passwords.js';
import { addUser } from '../../src/auth/users.js';
import { openStore, type Store } from '../../src/store/sqlite/store.js';
import { TEST_PASSWORD_COST } from '../support/app.js';

/** Cheap hashing: these tests are about the limits, not scrypt. */
const passwords = new PasswordHasher(TEST_PASSWORD_COST);
let dir: string;
let store: Store;
const PASSWORD = 'the right password';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-sign-in-'));
  store = openStore({ path: join(dir, 'svc.db') });
  await addUser(store.sql, 'ann', 'editor');
  await passwords.set(store.sql, 'ann', PASSWORD);
});

afterAll(() => {
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

const kinds = (results: SignInResult[]) => {
  const n = { user: 0, invalid: 0, limited: 0, busy: 0 };
  for (const r of results) {
    if ('user' in r) n.user++;
    else if (r.error === 'invalid_credentials') n.invalid++;
    else if (r.busy) n.busy++;
    else n.limited++;
  }
  return n;
};

describe('PasswordSignIn under concurrency', () => {
  it('30 guesses of one login sent together: at most 5 are checked, the rest refused, the right one too', async () => {
    const s = new PasswordSignIn({ passwords, sql: store.sql });
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => s.signIn('ann', `wrong ${i}`, '192.0.2.1')));
    expect(kinds(results)).toEqual({ user: 0, invalid: 5, limited: 25, busy: 0 });
    expect(await s.signIn('ann', PASSWORD, '192.0.2.1')).toMatchObject({ error: 'rate_limited' });
    expect(await s.signIn('ann', PASSWORD, '192.0.2.2')).toMatchObject({ user: { login: 'ann' } });
  }, 120_000);

  it('40 guesses of distinct logins from one address: at most its limit checked; another address signs in meanwhile', async () => {
    const s = new PasswordSignIn({ passwords, sql: store.sql, maxFailuresPerAddress: 4 });
    const burst = Promise.all(Array.from({ length: 40 }, (_, i) => s.signIn(`nobody${i}`, 'wrong', '192.0.2.3')));
    const other = await s.signIn('ann', PASSWORD, '198.51.100.7');
    expect(other).toMatchObject({ user: { login: 'ann' } });
    const n = kinds(await burst);
    expect(n.invalid).toBeLessThanOrEqual(4);
    expect(n.invalid + n.limited + n.busy).toBe(40);
  }, 120_000);

  it('a right password in flight counts as a failure until it succeeds, then is forgiven', async () => {
    const s = new PasswordSignIn({ passwords, sql: store.sql, maxFailuresPerLoginAndAddress: 1 });
    const [first, second] = await Promise.all([
      s.signIn('ann', PASSWORD, '192.0.2.4'),
      s.signIn('ann', PASSWORD, '192.0.2.4'),
    ]);
    expect(first).toMatchObject({ user: { login: 'ann' } });
    expect(second).toMatchObject({ error: 'rate_limited' });
    expect(await s.signIn('ann', PASSWORD, '192.0.2.4')).toMatchObject({ user: { login: 'ann' } });
  }, 60_000);

  it('with every slot taken a check is turned away as busy, and not counted as a failure', async () => {
    const slots = new CheckSlots(1, 0);
    const s = new PasswordSignIn({ passwords, sql: store.sql, slots, maxFailuresPerAddress: 1 });
    const hold = (await slots.acquire())!;
    const turned = await s.signIn('ann', 'wrong', '192.0.2.5');
    expect(turned).toEqual({ error: 'rate_limited', retryAfter: 1, busy: true });
    hold();
    // Not counted: the address still has its one failure to spend, and the right password gets in.
    expect(await s.signIn('ann', PASSWORD, '192.0.2.5')).toMatchObject({ user: { login: 'ann' } });
  }, 60_000);
});
