// The unattended loop with real processes: the built `svc serve`, a loopback site the test serves, a real SQLite file
// (the other commands run in this process: runHere). A schedule every second runs crawls in `svc serve` (a tick during
// a running crawl is skipped); `svc posts import` of a changed file queues exactly one manual crawl of the right URLs
// with no server up, which the next `svc serve` runs; two servers on one database never run the same queued crawl; a
// person still gets 409 while one runs.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { enqueueCrawl } from '../../src/store/crawls.js';
import { Store } from '../../src/store/sqlite/store.js';
import type { CrawlRecord } from '../../src/model/types.js';
import { html, startSite, writeJson, type TestSite } from '../support/site.js';
import { crawlsIn, runHere, runSvc, serveSvc, type ServeProcess } from '../support/cli.js';
import { until } from '../support/wait.js';

const PROJECT = 'loop1234:eu-north-1';

/** svc in this process with the config's log level (the live update lines are on stderr). */
const svc = (args: string[]) => runHere(args, { env: { SVC_LOG_LEVEL: undefined } });
/** The same, the built svc spawned: one posts import keeps the command's wiring in the binary tested. */
const spawned = (args: string[]) => runSvc(args, { env: { SVC_LOG_LEVEL: undefined } });

const servers: ServeProcess[] = [];

async function serve(config: string): Promise<ServeProcess> {
  const server = await serveSvc(config);
  servers.push(server);
  return server;
}

const crawls = (dbPath: string) => crawlsIn(dbPath, PROJECT);

const ended = (c: CrawlRecord) => c.status === 'completed' || c.status === 'stopped' || c.status === 'failed';

/** No two crawls ran at the same time. */
function expectNoOverlap(list: CrawlRecord[]): void {
  const ran = list
    .filter((c) => c.startedAt && c.finishedAt)
    .sort((a, b) => Date.parse(a.startedAt!) - Date.parse(b.startedAt!));
  for (let i = 1; i < ran.length; i++)
    expect(Date.parse(ran[i]!.startedAt!)).toBeGreaterThanOrEqual(Date.parse(ran[i - 1]!.finishedAt!));
}

function setup(site: TestSite, extra: Record<string, unknown> = {}): { dir: string; config: string; db: string } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-loop-'));
  const config = writeJson(dir, 'svc.json', {
    project: { public_token: PROJECT },
    data_dir: join(dir, 'data'),
    targets: [{ host: site.host, scheme: 'http', use_sitemap: false, request_timeout_ms: 5000 }],
    log_level: 'info',
    ...extra,
  });
  return { dir, config, db: join(dir, 'data', 'svc.db') };
}

describe('the unattended loop, real processes', () => {
  let site: TestSite;
  let delayMs = 0;
  /** While set, every page waits for it: a crawl that runs keeps running (a loaded machine is slow to check). */
  let held: Promise<void> | null = null;

  beforeAll(async () => {
    const slow =
      (body: string) =>
      async (...a: Parameters<ReturnType<typeof html>>) => {
        await sleep(delayMs);
        await held;
        return html(body)(...a);
      };
    site = await startSite({
      '/': slow('<a href="/p1">1</a> <a href="/p2">2</a> <a href="/p3">3</a> <a href="/p4">4</a>'),
      '/p1': slow('one'),
      '/p2': slow('two'),
      '/p2-moved': slow('two, moved'),
      '/p3': slow('three'),
      '/p4': slow('four'),
    });
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.stop()));
    delayMs = 0;
  });
  afterAll(() => site.close());

  it('a schedule every second runs crawls in svc serve; a tick while one runs is skipped; GET …/schedule shows it', async () => {
    // Each page answers after 0.6 s and a crawl fetches the home page before the pages it links to: every crawl takes
    // over 1.2 s, so it spans at least one tick of the schedule (one a second).
    delayMs = 600;
    const { config, db } = setup(site, { schedule: { full: '* * * * * *' } });
    const key = (await svc(['keys', 'create', '--config', config])).stdout.trim();
    expect(key).toMatch(/\S{20,}/);
    const s = await serve(config);
    const done = await until(
      'two scheduled crawls to complete',
      async () => {
        const list = (await crawls(db)).filter((c) => c.trigger === 'schedule:full' && c.status === 'completed');
        return list.length >= 2 ? list : null;
      },
      40_000,
    );
    expect(done.every((c) => c.mode === 'full')).toBe(true);
    expect(
      s.logs.some((l) => l.msg === 'scheduled crawl skipped: a crawl is queued or running' && l.schedule === 'full'),
    ).toBe(true);
    const all = await crawls(db);
    expectNoOverlap(all);
    // Only one crawl is ever queued or running at a time: the skipped ticks queued nothing.
    expect(all.filter((c) => c.status === 'queued' || c.status === 'running').length).toBeLessThanOrEqual(1);

    const res = await fetch(`${s.baseUrl}/v1/projects/${encodeURIComponent(PROJECT)}/schedule`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { full: { cron: string; nextRun: string; lastRun: string }; partial: null };
    expect(body.partial).toBeNull();
    expect(body.full.cron).toBe('* * * * * *');
    expect(Date.parse(body.full.lastRun)).toBeGreaterThanOrEqual(Date.parse(done[0]!.startedAt!) - 1000);
    expect(Date.parse(body.full.nextRun)).toBeGreaterThan(Date.parse(body.full.lastRun));
    const noKey = await fetch(`${s.baseUrl}/v1/projects/${encodeURIComponent(PROJECT)}/schedule`);
    expect(noKey.status).toBe(401);
    await s.stop();
    // `svc schedule` reads the same, with no server up.
    const out = await svc(['schedule', '--config', config]);
    expect(out.status).toBe(0);
    expect(out.stdout).toMatch(/^full +\* \* \* \* \* \* +next \S+ · last 20\d\d-/m);
    expect(out.stdout).toMatch(/^partial +no schedule/m);
  }, 90_000);

  it('posts import of a changed file queues exactly one manual crawl of the changed URLs (old and new); the next svc serve runs it', async () => {
    const { dir, config, db } = setup(site);
    const u = (p: string) => `${site.origin}${p}`;
    const post = (id: number, path: string, over: Record<string, unknown> = {}) => ({
      id,
      url: u(path),
      title: `Post ${id}`,
      status: 'publish',
      author: 'admin',
      content: `body ${id}`,
      ...over,
    });
    const v1 = [post(1, '/p1'), post(2, '/p2'), post(3, '/p3'), post(4, '/p4'), post(5, '/draft', { status: 'draft' })];
    writeFileSync(join(dir, 'v1.json'), JSON.stringify(v1));
    const first = await spawned(['posts', 'import', join(dir, 'v1.json'), '--config', config]);
    expect(first.status).toBe(0);
    expect(first.stderr).toMatch(/live update: 4 changed URLs queued in crawl (\d+)/);
    // Stop that one (it never runs), to see the next import's crawl alone.
    const stopped = await svc(['crawl', 'stop', '--config', config]);
    expect(stopped.status).toBe(0);
    expect(JSON.parse(stopped.stdout)).toMatchObject({ status: 'stopped', trigger: 'live_update', startedAt: null });

    // v2: post 1's content changed, post 2 moved, post 3 unpublished, post 4 unchanged, the draft edited.
    const v2 = [
      post(1, '/p1', { content: 'new body' }),
      post(2, '/p2-moved'),
      post(3, '/p3', { status: 'private' }),
      post(4, '/p4'),
      post(5, '/draft', { status: 'draft', content: 'edited' }),
    ];
    writeFileSync(join(dir, 'v2.json'), JSON.stringify(v2));
    const second = await svc(['posts', 'import', join(dir, 'v2.json'), '--config', config]);
    expect(second.status).toBe(0);
    let queued = (await crawls(db)).filter((c) => c.status === 'queued');
    expect(queued).toHaveLength(1);
    expect(queued[0]).toMatchObject({
      mode: 'manual',
      trigger: 'live_update',
      urls: [u('/p1'), u('/p2'), u('/p2-moved'), u('/p3')],
    });
    // The same file again changes nothing and queues nothing.
    expect((await svc(['posts', 'import', join(dir, 'v2.json'), '--config', config])).stderr).not.toMatch(
      /live update/,
    );
    // A delete while it waits merges into it: still one crawl.
    const del = await svc(['posts', 'delete', '4', '--config', config]);
    expect(del.status).toBe(0);
    expect(del.stdout).toMatch(/deleted 1 post/);
    queued = (await crawls(db)).filter((c) => c.status === 'queued');
    expect(queued).toHaveLength(1);
    expect(queued[0]!.urls).toEqual([u('/p1'), u('/p2'), u('/p2-moved'), u('/p3'), u('/p4')]);
    expect((await svc(['schedule', '--config', config])).stdout).toMatch(
      new RegExp(`crawl ${queued[0]!.id} manual \\(live_update\\): 5 URLs`),
    );

    const before = site.hitCount('/p2-moved');
    await serve(config);
    const ran = await until('the live-update crawl to end', async () => {
      const c = (await crawls(db)).find((x) => x.id === queued[0]!.id);
      return c && ended(c) ? c : null;
    });
    expect(ran).toMatchObject({ status: 'completed', mode: 'manual', trigger: 'live_update' });
    expect(site.hitCount('/p2-moved')).toBe(before + 1);
  }, 90_000);

  it('two servers on one database never run the same queued crawl; they run in order; a person gets 409 meanwhile', async () => {
    delayMs = 400;
    const { config, db } = setup(site);
    const key = (await svc(['keys', 'create', '--config', config])).stdout.trim();
    const store = new Store(db);
    const ids: number[] = [];
    try {
      for (let i = 0; i < 4; i++)
        ids.push(
          (
            await enqueueCrawl(
              store.sql,
              PROJECT,
              i % 2 ? 'manual' : 'full',
              i % 2 ? [`${site.origin}/p${i}`] : undefined,
              i % 2 ? 'live_update' : 'schedule:full',
            )
          ).id,
        );
    } finally {
      store.close();
    }
    const [a, b] = await Promise.all([serve(config), serve(config)]);
    await until('a queued crawl to run', async () => (await crawls(db)).find((c) => c.status === 'running'));
    // A person's crawl while one runs: 409, on REST and on the CLI. The site holds its answers meanwhile, so a crawl
    // is still running when a slow CLI process asks.
    let release = () => {};
    held = new Promise((r) => (release = r));
    try {
      const res = await fetch(`${a.baseUrl}/v1/projects/${encodeURIComponent(PROJECT)}/crawls`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ mode: 'full' }),
      });
      expect(res.status).toBe(409);
      const named = /already running \(crawl (\d+)/.exec(
        ((await res.json()) as { error: { message: string } }).error.message,
      );
      expect(ids).toContain(Number(named?.[1]));
      const cli = await svc(['crawl', 'full', '--config', config]);
      expect(cli.status).toBe(1);
      expect(cli.stderr).toMatch(/already running/);
    } finally {
      release();
      held = null;
    }

    const list = await until(
      'every queued crawl to end',
      async () => {
        const l = (await crawls(db)).filter((c) => ids.includes(c.id));
        return l.every(ended) ? l : null;
      },
      60_000,
    );
    expect(list.map((c) => c.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
    expectNoOverlap(list);
    // Oldest first.
    const byStart = [...list].sort((x, y) => Date.parse(x.startedAt!) - Date.parse(y.startedAt!)).map((c) => c.id);
    expect(byStart).toEqual(ids);
    // Each crawl started in exactly one of the two processes.
    const started = (s: ServeProcess) => s.logs.filter((l) => l.msg === 'crawl started').map((l) => l.crawl);
    for (const id of ids)
      expect(started(a).filter((c) => c === id).length + started(b).filter((c) => c === id).length).toBe(1);
  }, 90_000);
});
