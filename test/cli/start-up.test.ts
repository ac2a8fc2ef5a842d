// What a command loads before it works: `svc crawl --help` answers without the app (no database driver, no
// backend), and a crawl on SQLite runs without the PostgreSQL store and `pg`, which only a config with
// database_url needs, without the remote backend, which only one with api.base_url needs, and with undici's Agent
// alone. Checked with a load hook in the built `svc` that lists every module it loaded, with the modules tsc
// compiled (SVC_UNBUNDLED=1: a bundle follows the same static and dynamic imports, in fewer files); by default a
// command loads its bundle from dist/commands/. What it compiled is kept in Node's compile cache in the temp
// directory, so the next command compiles less.
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvc } from '../support/cli.js';
import { html, startSite, writeJson, type TestSite } from '../support/site.js';

const HOOK = `import { registerHooks } from 'node:module';
const loaded = [];
registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
process.on('exit', () => process.stderr.write('\\nLOADED ' + JSON.stringify(loaded) + '\\n'));`;

/** Runs `svc <args>` with the hook: its exit status and the URLs of the modules it loaded (every thread's). */
async function loadedBy(
  args: string[],
  env: Record<string, string> = { SVC_UNBUNDLED: '1' },
): Promise<{ status: number | null; loaded: string[]; stderr: string }> {
  const r = await runSvc(args, {
    env: { NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(HOOK)}`, ...env },
  });
  const lines = r.stderr.split('\n').filter((l) => l.startsWith('LOADED '));
  if (!lines.length) throw new Error(`no module list: ${r.stderr}`);
  const loaded = lines.flatMap((l) => JSON.parse(l.slice('LOADED '.length)) as string[]);
  return { status: r.status, loaded, stderr: r.stderr };
}

const has = (loaded: string[], part: string) => loaded.some((u) => u.includes(part));

describe('what svc loads at start', () => {
  let site: TestSite;
  let config: string;

  beforeAll(async () => {
    site = await startSite({ '/': html('<a href="/a">a</a>'), '/a': html('<p>a page</p>') });
    const dir = mkdtempSync(join(tmpdir(), 'svc-start-up-'));
    config = writeJson(dir, 'svc.json', {
      data_dir: join(dir, 'data'),
      targets: [{ host: site.host, scheme: 'http', use_sitemap: false, request_timeout_ms: 5000 }],
    });
  });

  afterAll(async () => {
    await site?.close();
  });

  it('svc --version: no library at all (what the entry loads is compiled before the compile cache is on)', async () => {
    const r = await loadedBy(['--version']);
    expect(r.status).toBe(0);
    expect(has(r.loaded, '/src/server.js')).toBe(true);
    expect(r.loaded.filter((u) => u.includes('/node_modules/'))).toEqual([]);
  });

  it('svc crawl --help: the usage, without the app, a database driver or the backend', async () => {
    const r = await loadedBy(['crawl', '--help']);
    expect(r.status).toBe(0);
    expect(has(r.loaded, '/src/cli/crawl.js')).toBe(true);
    for (const part of ['/node_modules/better-sqlite3/', '/node_modules/pg/', '/src/backend/embedded.js'])
      expect(has(r.loaded, part), part).toBe(false);
  });

  it("a crawl on SQLite: the crawler, the backend, better-sqlite3 and undici's Agent; not the PostgreSQL store, pg, the remote backend or the rest of undici", async () => {
    const r = await loadedBy(['crawl', 'full', '--config', config]);
    expect(r.status, r.stderr).toBe(0);
    for (const part of [
      '/node_modules/better-sqlite3/',
      '/src/backend/embedded.js',
      '/src/crawler/fetcher.js',
      '/node_modules/undici/lib/dispatcher/agent.js',
      '/src/backend/crawl-request-schema.js',
    ])
      expect(has(r.loaded, part), part).toBe(true);
    for (const part of [
      '/node_modules/pg/',
      '/src/store/pg/',
      // Only a config with api.base_url needs the remote backend and the schemas of every /v1 answer it checks.
      '/src/backend/remote.js',
      '/src/backend/contract.js',
      // undici's fetch, WebSocket, caches and mocks: its entry loads them, the crawler needs none.
      '/node_modules/undici/index.js',
      '/node_modules/undici/lib/web/',
      '/node_modules/undici/lib/mock/',
    ])
      expect(has(r.loaded, part), part).toBe(false);
  });

  it('by default a command loads its bundle (dist/commands/), not the ~400 modules tsc compiled; the same libraries left outside', async () => {
    const r = await loadedBy(['crawl', 'full', '--config', config], {});
    expect(r.status, r.stderr).toBe(0);
    expect(has(r.loaded, '/dist/commands/crawl.js')).toBe(true);
    // The writer thread's script is the bundle's too.
    expect(has(r.loaded, '/dist/commands/writer-worker.js')).toBe(true);
    const svcFiles = r.loaded.filter((u) => u.includes('/dist/'));
    // The entry and what it loads before the command (server.js, the command table and its error type, the I/O
    // type's module, package-version, compile-cache), in whatever order this Node links them (22 and 24 differ).
    const entryFiles = svcFiles.filter((u) => u.includes('/dist/src/')).map((u) => u.slice(u.indexOf('/dist/src/')));
    expect(entryFiles.sort()).toEqual(
      [
        '/dist/src/server.js',
        '/dist/src/cli/dispatch.js',
        '/dist/src/cli/cli-error.js',
        '/dist/src/lib/package-version.js',
        '/dist/src/cli/terminal.js',
        '/dist/src/lib/compile-cache.js',
      ].sort(),
    );
    expect(svcFiles.length).toBeLessThan(60);
    for (const part of ['/node_modules/zod/', '/node_modules/htmlparser2/'])
      expect(has(r.loaded, part), part).toBe(false);
    for (const part of ['/node_modules/better-sqlite3/', '/node_modules/undici/lib/dispatcher/agent.js'])
      expect(has(r.loaded, part), part).toBe(true);
    for (const part of ['/node_modules/pg/', '/node_modules/undici/index.js'])
      expect(has(r.loaded, part), part).toBe(false);
  });

  it("keeps the code it compiled in Node's compile cache under the temp directory; NODE_DISABLE_COMPILE_CACHE=1 keeps none", async () => {
    const cached = (tmp: string): number => {
      const dir = join(tmp, 'node-compile-cache');
      if (!existsSync(dir)) return 0;
      return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
    };
    const on = mkdtempSync(join(tmpdir(), 'svc-cache-on-'));
    const r = await runSvc(['crawl', 'full', '--config', config], { env: { TMPDIR: on } });
    expect(r.status, r.stderr).toBe(0);
    // One entry per module compiled: svc's, the crawler's and the store's, well over a hundred.
    expect(cached(on)).toBeGreaterThan(100);
    const off = mkdtempSync(join(tmpdir(), 'svc-cache-off-'));
    const r2 = await runSvc(['crawl', 'full', '--config', config], {
      env: { TMPDIR: off, NODE_DISABLE_COMPILE_CACHE: '1' },
    });
    expect(r2.status, r2.stderr).toBe(0);
    expect(cached(off)).toBe(0);
  });
});
