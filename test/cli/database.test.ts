// svc check, svc repair, svc backup on a real database file; /healthz once SQLite has reported corruption.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadApp, type App } from '../../src/app/open-app.js';
import { run } from '../../src/cli/database.js';
import { parseConfig } from '../../src/cli/load-config.js';
import { createHttpServer } from '../../src/http/http-server.js';
import { silentLogger } from '../../src/lib/log.js';
import { saveOutcomes, savePages } from '../../src/store/sqlite/writes.js';
import { Store } from '../../src/store/sqlite/store.js';
import { outcome, linkingPage as page } from '../support/writes.js';
import { tempDir } from '../support/app.js';
import { testTerminal } from '../support/cli.js';
import type { Terminal } from '../../src/cli/terminal.js';

let dir: string;
let config: string;
let stderr: string[];

beforeAll(() => {
  dir = tempDir('svc-db-');
  config = join(dir, 'svc.json');
  writeFileSync(
    config,
    JSON.stringify({
      project: { public_token: 'dbcheck1:eu-north-1' },
      data_dir: join(dir, 'data'),
      targets: [{ host: 'a.example' }],
    }),
  );
  const store = new Store(join(dir, 'data', 'svc.db'));
  savePages(store, [
    page('https://a.example/', ['https://a.example/gone', 'https://a.example/ok']),
    page('https://a.example/b', ['https://a.example/gone']),
    // Stored, never indexed: the check must not take it for a page missing from the index.
    page('https://a.example/hidden', [], { showInSearch: false }),
  ]);
  saveOutcomes(store, [outcome('https://a.example/gone', 'not_found'), outcome('https://a.example/ok', 'ok')]);
  store.close();
});

/** I/O of a run in this process, its stderr writes kept in `stderr` one by one. */
function capture(): Terminal {
  stderr = [];
  return { ...testTerminal().io, stderr: { write: (chunk: string) => stderr.push(chunk) } };
}

async function cli(command: string, args: string[] = []): Promise<number | Error> {
  try {
    return await run([...args, '--config', config], capture(), command);
  } catch (err) {
    return err as Error;
  }
}

function withStore<T>(fn: (s: Store) => T): T {
  const s = new Store(join(dir, 'data', 'svc.db'), { migrate: false });
  try {
    return fn(s);
  } finally {
    s.close();
  }
}

describe('svc check / repair / backup', () => {
  it('check: a sound database exits 0', async () => {
    expect(await cli('check')).toBe(0);
    expect(stderr.join('')).toMatch(/is sound/);
  });

  it('check finds damaged report rows and a search index out of step; repair rebuilds both', async () => {
    withStore((s) => {
      s.db.prepare('DELETE FROM report_links WHERE page_url = ?').run('https://a.example/b');
      s.db
        .prepare(
          `INSERT INTO pages_fts(rowid, title, superwords, tags, content) VALUES (424242, 'ghost', '', '', 'ghost page')`,
        )
        .run();
    });
    expect(await cli('check')).toBe(1);
    const out = stderr.join('');
    expect(out).toMatch(/svc check: search index pages_fts: /);
    expect(out).toMatch(/svc check: report rows: 1 missing/);
    expect(out).toMatch(/run svc repair/);
    expect(await cli('repair')).toBe(0);
    expect(stderr.join('')).toMatch(/rebuilt report rows/);
    expect(await cli('check')).toBe(0);
    expect(withStore((s) => s.db.prepare('SELECT count(*) AS n FROM report_links').get())).toEqual({ n: 2 });
  });

  it('backup writes a consistent copy while another connection holds the database open', async () => {
    const holder = new Store(join(dir, 'data', 'svc.db'), { migrate: false });
    try {
      const file = join(dir, 'copy.db');
      expect(await cli('backup', [file])).toBe(0);
      expect(existsSync(file)).toBe(true);
      const copy = new Store(file, { migrate: false });
      expect(copy.db.prepare('SELECT count(*) AS n FROM pages').get()).toEqual({ n: 3 });
      copy.close();
      const again = await cli('backup', [file]);
      expect(String(again)).toMatch(/exists; give a new file name/);
    } finally {
      holder.close();
    }
  });

  it('a missing database is one line naming the path', async () => {
    const other = join(dir, 'other.json');
    writeFileSync(
      other,
      JSON.stringify({
        project: { public_token: 'dbcheck1:eu-north-1' },
        data_dir: join(dir, 'nothing-here'),
        targets: [],
      }),
    );
    await expect(run(['--config', other], capture(), 'check')).rejects.toThrow(
      /^no database at .*nothing-here\/svc\.db/,
    );
  });
});

describe('/healthz', () => {
  let app: App;
  afterAll(async () => app?.close());

  it('answers 503 degraded once SQLite reported corruption, and the log names the file and svc repair', async () => {
    const logs: string[] = [];
    const logger = silentLogger.child({});
    logger.error = ((obj: unknown, msg?: string) =>
      void logs.push(`${JSON.stringify(obj)} ${msg}`)) as typeof logger.error;
    app = await loadApp(
      parseConfig({ project: { public_token: 'dbcheck1:eu-north-1' }, data_dir: join(dir, 'health'), targets: [] }),
      { logger },
    );
    const corrupt = Object.assign(new Error('database disk image is malformed'), { code: 'SQLITE_CORRUPT' });
    const server = createHttpServer({
      logger,
      handlers: [async (_req, _res, url) => (url.pathname === '/boom' ? Promise.reject(corrupt) : false)],
      health: () => app.health(),
      onError: (err) => app.noteError(err),
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      expect((await fetch(`${base}/boom`)).status).toBe(500);
      const h = await fetch(`${base}/healthz`);
      expect(h.status).toBe(503);
      expect(await h.json()).toEqual({ status: 'degraded', error: 'SQLITE_CORRUPT: database disk image is malformed' });
      expect(logs.join('\n')).toMatch(/svc\.db is damaged: run `svc repair`/);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
