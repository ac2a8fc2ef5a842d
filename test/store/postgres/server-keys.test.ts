// On PostgreSQL the requestState key is a row every svc serve on the database shares: two instances (here two
// connection pools) that start together make one key between them, and each verifies the other's states.
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestStateKey, requestStateKeyFromDatabase } from '../../../src/auth/request-state-key.js';
import { requestStateExpiry, signRequestState, verifyRequestState } from '../../../src/auth/request-state.js';
import { sharedServerKey } from '../../../src/store/server-keys.js';
import { pgFixture, skip, type PgFixture } from '../../support/postgres.js';

describe.skipIf(skip)('server keys on PostgreSQL', () => {
  let pg: PgFixture;
  beforeAll(() => {
    pg = pgFixture();
  });
  afterAll(async () => {
    await pg?.close();
  });

  it('give two instances on one database the same request state key, made once, so each verifies the other', async () => {
    const database = await pg.createDatabase();
    const a = await pg.open({ database });
    const b = await pg.open({ database });
    const [ka, kb] = await Promise.all([requestStateKeyFromDatabase(a), requestStateKeyFromDatabase(b)]);
    expect(ka.length).toBe(32);
    expect(kb.equals(ka)).toBe(true);
    expect(await a.get('SELECT count(*)::int AS n FROM server_keys')).toEqual({ n: 1 });
    const now = Date.now();
    const claims = { user: 'admin', tool: 'svc-delete-pages', urls: ['https://a.test/x'] };
    const fromA = signRequestState(ka, { ...claims, expiresAt: requestStateExpiry(now) });
    expect(verifyRequestState(await requestStateKeyFromDatabase(b), fromA, { ...claims, now })).toEqual({
      ok: true,
      expiresAt: now + 600_000,
    });
    // Another database is another service: its own key.
    const other = await pg.open();
    expect((await requestStateKeyFromDatabase(other)).equals(ka)).toBe(false);
    // A PostgreSQL store's key is its row, whatever data directory the instance has; no file is made there.
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-rskey-'));
    expect((await requestStateKey(b, dataDir)).equals(ka)).toBe(true);
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('keep the first secret stored under a name, whatever later callers make', async () => {
    const sql = await pg.open();
    expect(await sharedServerKey(sql, 'k', () => 'first')).toBe('first');
    expect(await sharedServerKey(sql, 'k', () => 'second')).toBe('first');
    expect(await sharedServerKey(sql, 'other', () => 'third')).toBe('third');
  });
});
