// Crawl abilities run as tasks, over the real embedded backend and crawler against a slow site on loopback, on
// SQLite and on PostgreSQL: who sees a task, what it says while the crawl runs, that its end is the plain call's
// answer, cancel and who may cancel, expiry, and another app on the same database answering for it.
import { plural } from '../../src/model/counts.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CrawlTaskService, type CrawlTaskState } from '../../src/abilities/crawl-tasks.js';
import type { AbilityHost } from '../../src/abilities/runtime.js';
import { AbilityError } from '../../src/abilities/types.js';
import { loadApp, type App, type OpenAppOptions } from '../../src/app/open-app.js';
import { addUser } from '../../src/auth/users.js';
import { CrawlTasks, newCrawlTaskId } from '../../src/backend/crawl-tasks.js';
import { silentLogger } from '../../src/lib/log.js';
import type { User } from '../../src/model/users.js';
import { addRoleUsers, endCrawl, makeAppOn, makeHost, ONE_HOST } from '../support/app.js';
import { startSite, type TestSite } from '../support/site.js';
import { DIALECTS, storeKit, type StoreKit } from '../support/stores.js';
import { until } from '../support/wait.js';

const PAGES = 6;
let site: TestSite;
let delayMs = 0;
const opened: { app: App; host: AbilityHost }[] = [];

afterEach(async () => {
  for (const { app, host } of opened.splice(0)) {
    host.close();
    await app.close();
  }
  await site.close();
});

async function failure(p: Promise<unknown>): Promise<AbilityError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  if (!(e instanceof AbilityError)) throw new Error(`expected an AbilityError, got ${String(e)}`);
  return e;
}

/** A site of PAGES pages in a chain from /, one broken link, each answer `delayMs` late; an app crawling it. */
async function start(kit: StoreKit, opts: OpenAppOptions = {}) {
  const page = (body: string) => async (_req: unknown, res: import('node:http').ServerResponse) => {
    if (delayMs) await sleep(delayMs);
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(`<html><head><title>t</title></head><body>${body}</body></html>`);
  };
  // A chain (/ → p0 → p1 …), so a crawl takes PAGES answers one after the other.
  const routes: Record<string, ReturnType<typeof page>> = {
    '/': page('<a href="/p0">p0</a> <a href="/missing">gone</a>'),
  };
  for (let i = 0; i < PAGES - 1; i++)
    routes[`/p${i}`] = page(i < PAGES - 2 ? `<a href="/p${i + 1}">next</a>` : 'the end');
  site = await startSite(routes);
  const app = await makeAppOn(
    kit,
    {
      targets: [
        {
          host: site.host,
          scheme: 'http',
          track_links: 'all',
          walk_links: true,
          use_sitemap: false,
          respect_robots_txt: false,
        },
      ],
    },
    ONE_HOST,
    opts,
  );
  const users = await addRoleUsers(app);
  await addUser(app.store.sql, 'admin2', 'administrator');
  const { host } = await makeHost(app);
  opened.push({ app, host });
  const admin = users.administrator.user;
  const admin2: User = { login: 'admin2', role: 'administrator' };
  return { app, host, tasks: host.tasks!, admin, admin2, editor: users.editor.user };
}

describe.each(DIALECTS)('crawl tasks on %s', (dialect) => {
  const kit = storeKit(dialect);
  afterAll(() => kit.stop());
  afterEach(() => {
    delayMs = 0;
  });

  it('a task belongs to its creator: working at first; another user, an unknown id and a malformed one all get the same not-found', async () => {
    delayMs = 200;
    const { app, tasks, admin, admin2, editor } = await start(kit);
    const t = await tasks.start('svc/full-crawl', {}, { user: admin });
    expect(t).toMatchObject({
      status: 'working',
      ability: 'svc/full-crawl',
      pollIntervalMs: 2000,
      ttlMs: 3_600_000,
      expiresAt: null,
      result: null,
    });
    expect(t.taskId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(t.statusMessage).toMatch(new RegExp(`^crawl ${t.crawlId} is (queued|running)`));
    expect(await tasks.get(admin, t.taskId)).toMatchObject({ taskId: t.taskId, status: 'working', crawlId: t.crawlId });

    const notFound = [
      await failure(tasks.get(admin2, t.taskId)),
      await failure(tasks.get(admin, newCrawlTaskId())),
      await failure(tasks.get(admin, 'x')),
      await failure(tasks.get(null, t.taskId)),
    ];
    for (const e of notFound)
      expect(e).toMatchObject({ code: 'svc_task_not_found', status: 404, message: notFound[0]!.message });
    expect(await failure(tasks.cancel(admin2, t.taskId))).toMatchObject({ code: 'svc_task_not_found' });

    // Starting needs what the plain call needs, and only crawl abilities run as tasks.
    expect(await failure(tasks.start('svc/partial-crawl', {}, { user: editor }))).toMatchObject({
      code: 'ability_invalid_permissions',
      status: 403,
    });
    expect(await failure(tasks.start('svc/search', { terms: 'x' }, { user: admin }))).toMatchObject({
      code: 'ability_invalid_input',
      message: expect.stringMatching(/svc\/search cannot run as a task/),
    });
    expect(await app.store.sql.get('SELECT count(*) AS n FROM crawl_tasks')).toEqual({ n: 1 });
    await endCrawl(app, t.crawlId);
  });

  it('while working the message counts pages, links and problems; completed answers what svc/get-crawl answers for the crawl', async () => {
    delayMs = 300;
    const { app, host, tasks, admin } = await start(kit);
    const t = await tasks.start('svc/full-crawl', {}, { user: admin });
    const working = await until('a running count', async () => {
      const s = await tasks.get(admin, t.taskId);
      return (
        s.status === 'working' &&
        /is running: [1-9]\d* pages?, \d+ links? \(\d+ broken\) so far$/.test(s.statusMessage) &&
        s
      );
    });
    expect(working.result).toBeNull();

    const final = await app.backend.waitForCrawl(t.crawlId);
    expect(final.status).toBe('completed');
    const done = await tasks.get(admin, t.taskId);
    const plain = await host.registry.execute('svc/get-crawl', { id: t.crawlId }, { user: admin });
    expect(done).toMatchObject({
      status: 'completed',
      lastUpdatedAt: final.finishedAt,
      expiresAt: new Date(Date.parse(final.finishedAt!) + 3_600_000).toISOString(),
    });
    expect(done.result).toEqual(plain);
    expect(done.result).toMatchObject({ status: 'completed', stats: { pages: PAGES, errors: 1 } });
    expect(done.statusMessage).toBe(
      `crawl ${t.crawlId} completed: ${PAGES} pages, ${final.stats.links} links (1 broken), ${plural(final.stats.problemLinks!, 'problem link')} (${plural(final.stats.occurrences!, 'occurrence')})`,
    );
    expect(await failure(tasks.cancel(admin, t.taskId))).toMatchObject({
      code: 'svc_task_ended',
      status: 409,
      message: expect.stringMatching(/already ended \(completed\)/),
    });
  });

  it('cancel stops the crawl mid-way and the task stays cancelled; a user lacking the capability cannot cancel', async () => {
    delayMs = 400;
    const { app, tasks, admin } = await start(kit);
    const t = await tasks.start(
      'svc/manual-crawl',
      { urls: [`${site.origin}/`, `${site.origin}/p0`, `${site.origin}/p1`, `${site.origin}/p2`] },
      { user: admin },
    );
    // The same login after its role was lowered (the host reads the user on every request).
    const demoted: User = { login: admin.login, role: 'editor' };
    expect(await failure(tasks.cancel(demoted, t.taskId))).toMatchObject({
      code: 'ability_invalid_permissions',
      status: 403,
      data: { capability: 'manage_options' },
    });
    expect((await tasks.get(admin, t.taskId)).status).toBe('working');

    const cancelled = await tasks.cancel(admin, t.taskId);
    expect(cancelled).toMatchObject({
      status: 'cancelled',
      statusMessage: expect.stringMatching(/^cancelled: crawl \d+ (is stopping|ended \(stopped\))/),
    });
    const final = await app.backend.waitForCrawl(t.crawlId);
    expect(final.status).toBe('stopped');
    expect(final.stats.pages).toBeLessThan(4);
    const after = await tasks.get(admin, t.taskId);
    expect(after).toMatchObject({
      status: 'cancelled',
      result: { id: t.crawlId, status: 'stopped' },
      expiresAt: expect.any(String),
    });
    expect(await failure(tasks.cancel(admin, t.taskId))).toMatchObject({
      code: 'svc_task_ended',
      message: expect.stringMatching(/\(cancelled\)/),
    });
  });

  it('an ended task expires ttl after its crawl ended: not found from then on, and cleanup deletes it (not a working one)', async () => {
    const { app, host, admin } = await start(kit);
    let now = Date.now();
    const tasks = new CrawlTaskService(
      host.registry,
      new CrawlTasks({ sql: app.store.sql, backend: app.backend, ttlMs: 60_000, now: () => now }),
    );
    const t = await tasks.start('svc/manual-crawl', { urls: [`${site.origin}/`] }, { user: admin });
    const end = await app.backend.waitForCrawl(t.crawlId);
    const done = await tasks.get(admin, t.taskId);
    expect(done).toMatchObject({
      status: 'completed',
      ttlMs: 60_000,
      expiresAt: new Date(Date.parse(end.finishedAt!) + 60_000).toISOString(),
    });

    delayMs = 300;
    const running = await tasks.start('svc/full-crawl', {}, { user: admin });
    expect(await tasks.cleanup()).toBe(0);
    now = Date.parse(done.expiresAt!) + 1;
    expect(await failure(tasks.get(admin, t.taskId))).toMatchObject({ code: 'svc_task_not_found' });
    expect(await tasks.cleanup()).toBe(1);
    expect(await app.store.sql.all('SELECT id FROM crawl_tasks')).toEqual([{ id: running.taskId }]);
    expect((await tasks.get(admin, running.taskId)).status).toBe('working');
    await endCrawl(app, running.crawlId);
  });

  it('another app on the same database answers for the task, cancels it, and still answers after the first one closed', async () => {
    // Slow enough that the crawl is still running when its owner sees the stop (within a heartbeat: 0.3 s here, 2 s
    // unless set).
    delayMs = 400;
    const first = await start(kit, { env: { SVC_CRAWL_HEARTBEAT_MS: '300' } });
    const other = await loadApp(first.app.config, { logger: silentLogger });
    const { host: otherHost } = await makeHost(other);
    opened.push({ app: other, host: otherHost });
    const there = otherHost.tasks!;

    const t = await first.tasks.start('svc/full-crawl', {}, { user: first.admin });
    expect(await there.get(first.admin, t.taskId)).toMatchObject({
      taskId: t.taskId,
      status: 'working',
      crawlId: t.crawlId,
    });
    expect(await failure(there.get(first.admin2, t.taskId))).toMatchObject({ code: 'svc_task_not_found' });
    // The crawl runs in the first app; the cancel from the other reaches it through the database.
    expect((await there.cancel(first.admin, t.taskId)).status).toBe('cancelled');
    expect((await first.app.backend.waitForCrawl(t.crawlId)).status).toBe('stopped');

    delayMs = 0;
    const u = await first.tasks.start('svc/partial-crawl', {}, { user: first.admin });
    const final = await first.app.backend.waitForCrawl(u.crawlId);
    expect(final.status).toBe('completed');
    const fromFirst: CrawlTaskState = await first.tasks.get(first.admin, u.taskId);
    opened.shift()!.host.close();
    await first.app.close();
    expect(await there.get(first.admin, u.taskId)).toEqual(fromFirst);
    expect(await there.get(first.admin, t.taskId)).toMatchObject({
      status: 'cancelled',
      result: { status: 'stopped' },
    });
  });
});
