// Live update in-process: svc posts import/delete and host.posts_file queue one crawl of the changed posts' URLs
// in the database (no server needed); host.live_update false queues nothing; posts off the targets are left out.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadApp } from '../../src/app/open-app.js';
import { openAbilityHost } from '../../src/app/ability-host.js';
import { run as posts } from '../../src/cli/posts.js';
import { parseConfig } from '../../src/cli/load-config.js';
import { silentLogger } from '../../src/lib/log.js';
import { listCrawls } from '../../src/store/crawls.js';
import { listPosts } from '../../src/store/posts.js';
import { Store } from '../../src/store/sqlite/store.js';
import type { CrawlRecord } from '../../src/model/types.js';
import { writeJson } from '../support/site.js';
import { testTerminal } from '../support/cli.js';
import type { Terminal } from '../../src/cli/terminal.js';

const PROJECT = 'live1234:eu-north-1';
const SITE = 'https://site.example';

function setup(extra: Record<string, unknown> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-live-'));
  const raw = {
    project: { public_token: PROJECT },
    data_dir: join(dir, 'data'),
    targets: [{ host: 'site.example' }],
    log_level: 'silent',
    ...extra,
  };
  return { dir, raw, config: writeJson(dir, 'svc.json', raw), db: join(dir, 'data', 'svc.db') };
}

const post = (id: number, path: string, over: Record<string, unknown> = {}) => ({
  id,
  url: `${SITE}${path}`,
  status: 'publish',
  author: 'admin',
  content: `body ${id}`,
  ...over,
});

async function queued(db: string): Promise<CrawlRecord[]> {
  const store = new Store(db);
  try {
    return (await listCrawls(store.sql, PROJECT, 100, 0)).filter((c) => c.status === 'queued');
  } finally {
    store.close();
  }
}

async function capture(f: (io: Terminal) => Promise<number>): Promise<{ code: number; out: string; err: string }> {
  const t = testTerminal();
  const code = await f(t.io);
  return { code, out: t.stdout(), err: t.stderr() };
}

afterEach(() => vi.restoreAllMocks());

describe('live update', () => {
  it('import and delete queue one crawl, merged while it waits; posts off the targets are left out', async () => {
    const { dir, config, db } = setup();
    writeFileSync(
      join(dir, 'a.json'),
      JSON.stringify([post(1, '/a'), post(2, '/b'), { ...post(3, '/x'), url: 'https://elsewhere.example/x' }]),
    );
    const r = await capture((io) => posts(['import', join(dir, 'a.json'), '--config', config], io));
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/imported 3 posts/);
    expect(r.err).toMatch(/live update: 3 changed URLs queued in crawl \d+ \(2 URLs\)/);
    expect(await queued(db)).toMatchObject([
      { mode: 'manual', trigger: 'live_update', urls: [`${SITE}/a`, `${SITE}/b`] },
    ]);

    const d = await capture((io) => posts(['delete', '2', '--config', config], io));
    expect(d.out).toMatch(/deleted 1 post\n/);
    const q = await queued(db);
    expect(q).toHaveLength(1);
    expect(q[0]!.urls).toEqual([`${SITE}/a`, `${SITE}/b`]);

    await expect(posts(['delete', '99', '--config', config], testTerminal().io)).rejects.toThrow(
      /no post 99: svc posts list shows the ids/,
    );
    await expect(posts(['delete', 'x', '--config', config], testTerminal().io)).rejects.toThrow(
      /--ID: must be a whole number/,
    );
  });

  it('host.live_update false writes the posts and queues nothing', async () => {
    const { dir, config, db } = setup({ host: { live_update: false } });
    writeFileSync(join(dir, 'a.json'), JSON.stringify([post(1, '/a')]));
    const r = await capture((io) => posts(['import', join(dir, 'a.json'), '--config', config], io));
    expect(r.err).toMatch(/1 changed URL not queued: host\.live_update is off/);
    expect(await queued(db)).toEqual([]);
  });

  it('host.posts_file: the first load queues nothing; a start with a changed file queues the changed URLs', async () => {
    const { dir, raw } = setup();
    const file = join(dir, 'posts.json');
    const config = parseConfig({ ...raw, host: { posts_file: file } });
    const start = async () => {
      const app = await loadApp(config, { logger: silentLogger });
      const host = await openAbilityHost(app);
      // Queueing finishes after openAbilityHost returns (the posts themselves are written before).
      await new Promise((r) => setTimeout(r, 50));
      const out = {
        posts: (await listPosts(app.store.sql)).length,
        queued: (await listCrawls(app.store.sql, PROJECT, 100, 0)).filter((c) => c.status === 'queued'),
      };
      host.close();
      await app.close();
      return out;
    };
    writeFileSync(file, JSON.stringify([post(1, '/a'), post(2, '/b')]));
    expect(await start()).toEqual({ posts: 2, queued: [] });
    expect((await start()).queued).toEqual([]);
    writeFileSync(file, JSON.stringify([post(1, '/a', { title: 'Renamed' }), post(2, '/b')]));
    const after = await start();
    expect(after.queued).toMatchObject([{ mode: 'manual', trigger: 'live_update', urls: [`${SITE}/a`] }]);
  });
});
