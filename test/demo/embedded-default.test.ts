import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyApiKey } from '../../src/auth/keys.js';
import { userByToken } from '../../src/auth/users.js';
import { parseConfig } from '../../src/cli/load-config.js';
import {
  demoTargets,
  isEmbeddedDefault,
  readCredentials,
  startEmbeddedDefault,
} from '../../src/demo/embedded-default.js';
import { silentLogger } from '../../src/lib/log.js';
import { getPost, listPosts } from '../../src/store/posts.js';
import { openApp } from '../support/app.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function sink(): Writable & { text: () => string } {
  let buf = '';
  const w = new Writable({
    write(chunk: Buffer, _enc, cb) {
      buf += chunk.toString('utf8');
      cb();
    },
  });
  return Object.assign(w, { text: () => buf });
}

/** One run of the embedded default, in-process: site → config → app → prepare → announce → close. */
async function runOnce(dataDir: string) {
  const demo = await startEmbeddedDefault(parseConfig({ data_dir: dataDir, log_level: 'silent' }), silentLogger, {
    firstPort: 0,
  });
  const app = await openApp(demo.config);
  try {
    await demo.prepare(app);
    const out = sink();
    const creds = await demo.announce(app, 'http://127.0.0.1:8787', out);
    return {
      creds,
      banner: out.text(),
      site: demo.site,
      config: demo.config,
      posts: await listPosts(app.store.sql),
      app,
    };
  } finally {
    await app.close();
    await demo.close();
  }
}

describe('embedded default', () => {
  it('applies only when nothing names a site', () => {
    expect(isEmbeddedDefault({}, {})).toBe(true);
    expect(isEmbeddedDefault({ config: 'svc.json' }, {})).toBe(false);
    expect(isEmbeddedDefault({ site: 'http://127.0.0.1:9/' }, {})).toBe(false);
    expect(isEmbeddedDefault({}, { SVC_CONFIG: 'svc.json' })).toBe(false);
    expect(isEmbeddedDefault({}, { SVC_BASE_URL: 'http://127.0.0.1:9' })).toBe(false);
    expect(isEmbeddedDefault({}, { SVC_DATA_DIR: '/tmp/x', PORT: '9000' })).toBe(true);
  });

  it('targets the demo site (every link tracked, a max_pages the endless calendar runs into) and its second host', () => {
    const [main, partner] = demoTargets({ host: '127.0.0.1:8788', partnerOrigin: 'http://127.0.0.1:8789' });
    expect(main).toMatchObject({
      host: '127.0.0.1:8788',
      scheme: 'http',
      track_links: 'all',
      walk_links: true,
      use_sitemap: true,
      respect_robots_txt: true,
    });
    expect(main!.max_pages).toBeGreaterThan(70); // the finite site fits; only the calendar is cut
    expect(partner).toMatchObject({ host: '127.0.0.1:8789', scheme: 'http', track_links: 'all' });
  });

  it('loads the posts, makes the users and a key, writes credentials.json (0600), and reuses them on the next start', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-demo-'));
    dirs.push(dataDir);
    const first = await runOnce(dataDir);
    // The demo's targets, with the config's top-level external_cache_max_age filled in as a parsed config has it.
    expect(first.config.targets).toEqual(
      demoTargets(first.site).map((t) => ({ ...t, external_cache_max_age: first.config.external_cache_max_age })),
    );
    expect(first.posts.length).toBe(first.site.posts.length);
    expect(first.posts.find((p) => p.id === 103)!.url).toBe(`${first.site.origin}/news/composting-workshop/`);
    const file = join(dataDir, 'credentials.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(first.creds);
    expect(first.creds).toMatchObject({
      mcp_url: 'http://127.0.0.1:8787/mcp',
      base_url: 'http://127.0.0.1:8787',
      public_token: 'demo1234:eu-north-1',
    });
    expect(first.banner).toContain(first.creds.api_key);
    expect(first.banner).toContain('http://127.0.0.1:8787/mcp');
    for (const u of first.creds.users) expect(first.banner).toContain(u.token);
    for (const u of first.creds.users) expect(first.banner).toContain(`password ${u.password}`);
    expect(first.creds.users.every((u) => typeof u.password === 'string' && u.password.length >= 16)).toBe(true);
    // The other commands' config: same data dir and target.
    const cfg = parseConfig(JSON.parse(readFileSync(join(dataDir, 'demo-config.json'), 'utf8')));
    expect(cfg.targets).toEqual(first.config.targets);
    expect(cfg.data_dir).toBe(dataDir);

    const second = await runOnce(dataDir);
    expect(second.site.port).toBe(first.site.port);
    expect(second.site.partnerPort).toBe(first.site.partnerPort);
    expect(second.creds).toEqual(first.creds);
    expect(readCredentials(dataDir)).toEqual(first.creds);
  });

  it('re-issues what the store no longer knows, and the secrets it prints work', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-demo-'));
    dirs.push(dataDir);
    const first = await runOnce(dataDir);
    // Lose the database but keep credentials.json: the old secrets are useless, so new ones are made.
    rmSync(join(dataDir, 'svc.db'), { force: true });
    rmSync(join(dataDir, 'svc.db-wal'), { force: true });
    rmSync(join(dataDir, 'svc.db-shm'), { force: true });
    const second = await runOnce(dataDir);
    expect(second.creds.api_key).not.toBe(first.creds.api_key);
    const app = await openApp(second.config);
    try {
      expect((await verifyApiKey(app.store.sql, second.creds.api_key))?.project).toBe('demo1234:eu-north-1');
      for (const u of second.creds.users)
        expect(await userByToken(app.store.sql, u.token)).toEqual({ login: u.login, role: u.role });
      for (const u of second.creds.users)
        expect(await app.passwords.verify(app.store.sql, u.login, u.password!)).toEqual({
          login: u.login,
          role: u.role,
        });
      expect(second.creds.users[0]!.password).not.toBe(first.creds.users[0]!.password);
      expect(await getPost(app.store.sql, 113)).toMatchObject({ status: 'private', author: 'karin' });
    } finally {
      await app.close();
    }
  });

  it("moves to new ports when the old ones are taken, drops the old host's pages and crawls again", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-demo-'));
    dirs.push(dataDir);
    const config = parseConfig({ data_dir: dataDir, log_level: 'silent' });
    // First start: crawl the demo site to the end.
    const demo1 = await startEmbeddedDefault(config, silentLogger, { firstPort: 0 });
    const app1 = await openApp(demo1.config);
    const oldHost = demo1.site.host;
    const oldPartner = new URL(demo1.site.partnerOrigin).host;
    const pagesOf = (app: typeof app1, host: string) =>
      (app.sqlite.db.prepare('SELECT count(*) AS n FROM pages WHERE host = ?').get(host) as { n: number }).n;
    try {
      await demo1.prepare(app1);
      const out = sink();
      await demo1.announce(app1, 'http://127.0.0.1:8787', out);
      expect(out.text()).toMatch(/full crawl #\d+ started/);
      const deadline = Date.now() + 30_000;
      while (!(await app1.backend.linkReport({ limit: 1 })).lastFullCrawl) {
        if (Date.now() > deadline) throw new Error('first crawl did not complete');
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(pagesOf(app1, oldHost)).toBeGreaterThan(30);
      expect(pagesOf(app1, oldPartner)).toBeGreaterThan(0);
    } finally {
      await app1.close();
      await demo1.close();
    }
    // Someone else takes the old port.
    const squatter = createServer();
    await new Promise<void>((r) => squatter.listen(demo1.site.port, '127.0.0.1', r));
    try {
      const demo2 = await startEmbeddedDefault(config, silentLogger, { firstPort: 0 });
      const app2 = await openApp(demo2.config);
      try {
        expect(demo2.site.port).not.toBe(demo1.site.port);
        expect(demo2.config.targets[0]!.host).toBe(demo2.site.host);
        const creds = await demo2.prepare(app2);
        expect(creds.api_key).toBe(readCredentials(dataDir)!.api_key);
        expect(pagesOf(app2, oldHost)).toBe(0);
        expect(pagesOf(app2, oldPartner)).toBe(0);
        const out = sink();
        await demo2.announce(app2, 'http://127.0.0.1:8787', out);
        expect(out.text()).toMatch(/full crawl #\d+ started/);
        expect(out.text()).toContain(`demo site    ${demo2.site.origin}/`);
      } finally {
        await app2.close();
        await demo2.close();
      }
    } finally {
      squatter.close();
    }
  }, 60_000);
});
