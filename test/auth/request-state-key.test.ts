// Where the requestState key lives: a 0600 file in the data directory, made once and then reused (by this process
// and the next), refused with a clear message when it holds something else.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  REQUEST_STATE_KEY_FILE,
  requestStateKey,
  requestStateKeyFromDataDir,
} from '../../src/auth/request-state-key.js';
import { requestStateExpiry, signRequestState, verifyRequestState } from '../../src/auth/request-state.js';
import { Store } from '../../src/store/sqlite/store.js';
import { modeOf, withPermissiveUmask } from '../support/file-modes.js';

withPermissiveUmask();

describe('the request state key file', () => {
  it('is made 0600 with 32 random bytes on first use, in a new 0700 data directory', () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'svc-rskey-')), 'data');
    const key = requestStateKeyFromDataDir(dataDir);
    expect(key.length).toBe(32);
    expect(modeOf(dataDir)).toBe(0o700);
    expect(modeOf(join(dataDir, REQUEST_STATE_KEY_FILE))).toBe(0o600);
    // Nothing left behind but the key.
    expect(readdirSync(dataDir)).toEqual([REQUEST_STATE_KEY_FILE]);
  });

  it('is the same key on every later open, so a state signed by one process verifies in the next', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-rskey-'));
    const first = requestStateKeyFromDataDir(dataDir);
    const text = readFileSync(join(dataDir, REQUEST_STATE_KEY_FILE), 'utf8');
    const second = requestStateKeyFromDataDir(dataDir);
    expect(second.equals(first)).toBe(true);
    expect(readFileSync(join(dataDir, REQUEST_STATE_KEY_FILE), 'utf8')).toBe(text);
    const now = Date.now();
    const state = signRequestState(first, {
      user: 'admin',
      tool: 't',
      urls: ['https://a.test/'],
      expiresAt: requestStateExpiry(now),
    });
    expect(verifyRequestState(second, state, { user: 'admin', tool: 't', urls: ['https://a.test/'], now }).ok).toBe(
      true,
    );
    // Another data directory has a key of its own.
    expect(requestStateKeyFromDataDir(mkdtempSync(join(tmpdir(), 'svc-rskey-'))).equals(first)).toBe(false);
  });

  it('refuses a file that holds no key, naming it and what to do', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-rskey-'));
    const file = join(dataDir, REQUEST_STATE_KEY_FILE);
    writeFileSync(file, 'too short\n');
    expect(() => requestStateKeyFromDataDir(dataDir)).toThrow(
      `${file} does not hold a request state key (32 bytes, base64url); delete it`,
    );
    writeFileSync(file, `${Buffer.alloc(16).toString('base64url')}\n`);
    expect(() => requestStateKeyFromDataDir(dataDir)).toThrow(/does not hold a request state key/);
  });

  it("is the data directory's file for a SQLite store", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-rskey-'));
    const store = new Store(join(dataDir, 'svc.db'));
    try {
      const key = await requestStateKey(store.sql, dataDir);
      expect(key.equals(requestStateKeyFromDataDir(dataDir))).toBe(true);
      expect(readdirSync(dataDir)).toContain(REQUEST_STATE_KEY_FILE);
    } finally {
      store.close();
    }
  });
});
