// The data directory and the database files are the service's alone: a new data_dir is 0700 (its projects/ too),
// svc.db with its -wal and -shm 0600 (an old 0644 file is tightened at open), a backup 0600 from the start; an
// existing data_dir open to others is reported with the command that fixes it, and left as it is.
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { loadApp } from '../../src/app/open-app.js';
import { parseConfig } from '../../src/cli/load-config.js';
import { silentLogger } from '../../src/lib/log.js';
import { backupTo } from '../../src/store/sqlite/maintenance.js';
import { Store } from '../../src/store/sqlite/store.js';
import { modeOf, withPermissiveUmask } from '../support/file-modes.js';

withPermissiveUmask();

describe('private data files', () => {
  it('makes a new data_dir 0700 and svc.db, -wal and -shm 0600', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'svc-modes-')), 'nested', 'data');
    const app = await loadApp(parseConfig({ data_dir: dataDir, log_level: 'silent' }), { logger: silentLogger });
    try {
      expect(modeOf(dataDir)).toBe(0o700);
      expect(modeOf(join(dataDir, '..'))).toBe(0o700);
      for (const f of ['svc.db', 'svc.db-wal', 'svc.db-shm']) expect(modeOf(join(dataDir, f)), f).toBe(0o600);
    } finally {
      await app.close();
    }
  });

  it("makes the projects form's projects/ 0700 and each project database 0600", async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'svc-modes-')), 'data');
    const app = await loadApp(
      parseConfig({
        data_dir: dataDir,
        log_level: 'silent',
        projects: [{ public_token: 'one00001:local' }, { public_token: 'two00002:local' }],
      }),
      { logger: silentLogger },
    );
    try {
      expect(modeOf(join(dataDir, 'projects'))).toBe(0o700);
      for (const f of ['one00001_local.db', 'two00002_local.db'])
        expect(modeOf(join(dataDir, 'projects', f)), f).toBe(0o600);
    } finally {
      await app.close();
    }
  });

  it('tightens an existing 0644 database at open; warns about a data_dir open to others, leaving its mode', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-modes-'));
    chmodSync(dataDir, 0o755);
    new Store(join(dataDir, 'svc.db')).close();
    chmodSync(join(dataDir, 'svc.db'), 0o644);
    const lines: { level: number; msg: string; data_dir?: string }[] = [];
    const logger = pino({ level: 'warn' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
    const app = await loadApp(parseConfig({ data_dir: dataDir }), { logger });
    try {
      expect(modeOf(join(dataDir, 'svc.db'))).toBe(0o600);
      expect(modeOf(dataDir)).toBe(0o755);
      expect(lines).toEqual([
        expect.objectContaining({
          level: 40,
          data_dir: dataDir,
          msg: `the data directory ${dataDir} is 0755: other local users can reach the databases in it (password, token and key hashes); make it private with: chmod 700 ${dataDir}`,
        }),
      ]);
    } finally {
      await app.close();
    }
  });

  it('says nothing about a private data_dir', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-modes-'));
    const lines: string[] = [];
    const app = await loadApp(parseConfig({ data_dir: dataDir }), {
      logger: pino({ level: 'warn' }, { write: (s: string) => void lines.push(s) }),
    });
    await app.close();
    expect(lines).toEqual([]);
  });

  it('writes a backup 0600, and refuses to write over an existing file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-modes-'));
    mkdirSync(join(dir, 'data'));
    const store = new Store(join(dir, 'data', 'svc.db'));
    try {
      await backupTo(store, join(dir, 'backup.db'));
      expect(modeOf(join(dir, 'backup.db'))).toBe(0o600);
      const copy = new Store(join(dir, 'backup.db'), { readonly: true });
      expect(copy.db.prepare('SELECT count(*) AS n FROM crawls').get()).toEqual({ n: 0 });
      copy.close();
      writeFileSync(join(dir, 'taken.db'), 'x');
      await expect(backupTo(store, join(dir, 'taken.db'))).rejects.toThrow(/EEXIST/);
    } finally {
      store.close();
    }
  });
});
