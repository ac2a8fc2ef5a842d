// `svc worker` with real processes: the built `svc`, a loopback site the test serves (it notes when each page is asked
// for), a real SQLite file (crawls queued and options refused run in this process: runHere). Two workers on one config
// with a schedule every second and crawls queued by `svc crawl … --queue`: every crawl is claimed, run and ended by
// exactly one of them, no page is fetched twice within one crawl, SIGTERM ends both with exit 0 (a crawl running then
// ends stopped). --project picks the projects; an unknown one and a remote-backend config are one-line errors.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../src/store/sqlite/store.js';
import type { CrawlRecord } from '../../src/model/types.js';
import { html, startSite, writeJson, type Handler, type TestSite } from '../support/site.js';
import { crawlsIn, runHere, spawnSvc, type SvcProcess } from '../support/cli.js';
import { until } from '../support/wait.js';
import { parseConfig } from '../../src/cli/load-config.js';
import { projectsOf, selectProjects, type Config } from '../../src/model/config.js';

const A = 'work1234:eu-north-1';
const B = 'work5678:eu-north-1';

const workers: SvcProcess[] = [];

/** Starts `svc worker` and resolves once it has logged its start line. */
async function worker(args: string[], env: Record<string, string> = {}): Promise<SvcProcess> {
  const w = spawnSvc(['worker', ...args], env);
  workers.push(w);
  await until(
    'svc worker to start',
    () => w.logs.some((l) => l.msg === 'svc worker started') || w.child.exitCode !== null,
    20_000,
  );
  if (w.child.exitCode !== null) throw new Error(`svc worker exited: ${w.logs.map((l) => l.msg).join('; ')}`);
  return w;
}

/** Whatever a test left running is killed. */
async function killWorkers(): Promise<void> {
  for (const w of workers.splice(0)) {
    if (w.child.exitCode === null) w.child.kill('SIGKILL');
    await w.exited;
  }
}

const target = (s: TestSite) => ({ host: s.host, scheme: 'http', use_sitemap: false, request_timeout_ms: 5000 });

describe('selectProjects (svc worker --project)', () => {
  const C = 'work9012:us-east-1';
  const c = parseConfig({
    projects: [A, B, C].map((t, i) => ({
      public_token: t,
      targets: [{ host: `h${i}.example` }],
      schedule: i === 2 ? { full: '0 3 * * *' } : {},
    })),
  });

  it("keeps the named projects in the config's order, the first of them at the top level", () => {
    const picked = selectProjects(c, [C, B]) as Config;
    expect(projectsOf(picked).map((p) => p.public_token)).toEqual([B, C]);
    expect(picked.project.public_token).toBe(B);
    expect(picked.targets.map((t) => t.host)).toEqual(['h1.example']);
    expect(selectProjects(c, [])).toBe(c);
  });

  it('names every unknown token and lists the configured ones; the single form keeps its one project', () => {
    expect(selectProjects(c, [A, 'nope1234:eu-north-1', 'nope5678:eu-north-1'])).toBe(
      `no project "nope1234:eu-north-1", "nope5678:eu-north-1" in this config; configured: ${A}, ${B}, ${C}`,
    );
    const single = parseConfig({ project: { public_token: A }, targets: [{ host: 'a.example' }] });
    expect(selectProjects(single, [A])).toEqual(single);
    expect(selectProjects(single, [B])).toBe(`no project "${B}" in this config; configured: ${A}`);
  });
});

describe('svc worker, real processes', () => {
  let site: TestSite;
  /** Every request the site answered: when, and which path. */
  const requests: { at: number; path: string }[] = [];

  beforeAll(async () => {
    // Each page answers after 100 ms, so a crawl takes a few hundred ms and spans the workers' polls.
    const page =
      (body: string): Handler =>
      async (req, res, url) => {
        requests.push({ at: Date.now(), path: url.pathname });
        await sleep(100);
        return html(body)(req, res, url);
      };
    site = await startSite({
      '/': page('<a href="/p1">1</a> <a href="/p2">2</a> <a href="/p3">3</a>'),
      '/p1': page('one'),
      '/p2': page('two'),
      '/p3': page('three'),
    });
  });
  afterEach(killWorkers);
  afterAll(() => site.close());

  it('two workers on one database: each crawl (scheduled or queued by svc crawl --queue) runs once, in one of them; SIGTERM ends both with 0', {
    timeout: 90_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-worker-'));
    const db = join(dir, 'data', 'svc.db');
    const config = writeJson(dir, 'svc.json', {
      project: { public_token: A },
      data_dir: join(dir, 'data'),
      targets: [target(site)],
      log_level: 'info',
      schedule: { full: '* * * * * *' },
    });

    // Queued with no process to run them: the command exits at once, printing the queued record.
    const queued: CrawlRecord[] = [];
    for (const args of [['full'], ['manual', `${site.origin}/p2`], ['full']]) {
      const r = await runHere(['crawl', ...args, '--queue', '--config', config]);
      expect(r.status).toBe(0);
      const rec = JSON.parse(r.stdout) as CrawlRecord;
      expect(rec).toMatchObject({ status: 'queued', trigger: 'request', mode: args[0], startedAt: null });
      expect(r.stderr).toMatch(new RegExp(`crawl ${rec.id} queued`));
      queued.push(rec);
    }
    expect(requests).toHaveLength(0);

    const [w1, w2] = await Promise.all([worker(['--config', config]), worker(['--config', config])]);
    for (const w of [w1!, w2!])
      expect(w.logs.find((l) => l.msg === 'svc worker started')).toMatchObject({
        projects: [{ project: A, database: db, targets: [site.host] }],
      });
    const ids = queued.map((c) => c.id);
    // The schedule queues a crawl every second (one per tick across both processes): soon each worker has run some.
    const claimed = (w: SvcProcess) => w.logs.some((l) => l.msg === 'crawl claimed');
    // What is still missing, named when the wait gives up (on a loaded machine this takes far longer than the ~8 s
    // it takes alone, so the wait is long: it ends as soon as all four hold).
    let seen = {};
    await until(
      'the queued crawls and two scheduled ones to complete, and each worker to claim one',
      async () => {
        const list = await crawlsIn(db, A);
        const done = (c: CrawlRecord) => c.status === 'completed';
        seen = {
          queuedDone: ids.filter((id) => list.some((c) => c.id === id && done(c))).length,
          scheduledDone: list.filter((c) => c.trigger === 'schedule:full' && done(c)).length,
          claimedByFirst: claimed(w1!),
          claimedBySecond: claimed(w2!),
        };
        return (
          ids.every((id) => list.some((c) => c.id === id && done(c))) &&
          list.filter((c) => c.trigger === 'schedule:full' && done(c)).length >= 2 &&
          claimed(w1!) &&
          claimed(w2!)
        );
      },
      60_000,
    ).catch((err: Error) => {
      throw new Error(`${err.message}; seen ${JSON.stringify(seen)}`);
    });

    w1!.child.kill('SIGTERM');
    w2!.child.kill('SIGTERM');
    expect(await w1!.exited).toBe(0);
    expect(await w2!.exited).toBe(0);
    for (const w of [w1!, w2!])
      expect(w.logs.some((l) => l.msg === 'shutting down' && l.signal === 'SIGTERM')).toBe(true);

    const list = await crawlsIn(db, A);
    // Nothing is left running; a crawl that ran at SIGTERM was stopped with the reason.
    expect(list.filter((c) => c.status === 'running')).toEqual([]);
    for (const c of list.filter((x) => x.status === 'stopped' && x.startedAt))
      expect(c.error).toMatch(/the process running it shut down/);
    expect(list.filter((c) => c.status === 'failed')).toEqual([]);
    // The queued requests ran oldest first.
    const started = list.filter((c) => c.startedAt);
    const order = [...started].sort((x, y) => Date.parse(x.startedAt!) - Date.parse(y.startedAt!)).map((c) => c.id);
    expect(order.filter((id) => ids.includes(id))).toEqual(ids);

    // Every crawl that ran was claimed, started and ended by exactly one worker, which logged each step.
    const logged = (w: SvcProcess, msg: string) => w.logs.filter((l) => l.msg === msg).map((l) => l.crawl);
    for (const c of started) {
      const owners = [w1!, w2!].filter((w) => logged(w, 'crawl claimed').includes(c.id));
      expect(owners, `crawl ${c.id} claimed by one worker`).toHaveLength(1);
      const other = owners[0] === w1 ? w2! : w1!;
      expect(logged(owners[0]!, 'crawl started').filter((id) => id === c.id)).toHaveLength(1);
      expect(logged(owners[0]!, 'crawl ended').filter((id) => id === c.id)).toHaveLength(1);
      expect(logged(other, 'crawl started')).not.toContain(c.id);
    }
    const claims = [...logged(w1!, 'crawl claimed'), ...logged(w2!, 'crawl claimed')];
    expect(claims.sort()).toEqual(started.map((c) => c.id).sort());

    // No two crawls overlapped, and within each crawl's span no page was fetched twice.
    const spans = started
      .map((c) => ({ c, from: Date.parse(c.startedAt!), to: Date.parse(c.finishedAt!) }))
      .sort((x, y) => x.from - y.from);
    for (let i = 1; i < spans.length; i++) expect(spans[i]!.from).toBeGreaterThanOrEqual(spans[i - 1]!.to);
    for (const { c, from, to } of spans) {
      const paths = requests.filter((r) => r.at >= from && r.at <= to).map((r) => r.path);
      expect(new Set(paths).size, `crawl ${c.id} (${c.mode}) fetched ${paths.join(' ')}`).toBe(paths.length);
      if (c.status === 'completed') expect(paths.length).toBe(c.mode === 'full' ? 4 : 1);
    }
    // Every page request of the test fell within some crawl: none came from a second process crawling alongside.
    for (const r of requests) expect(spans.some((s) => r.at >= s.from && r.at <= s.to)).toBe(true);
  });

  it('--project runs only the projects named; an unknown one and a remote-backend config are one-line errors', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-worker-'));
    const config = writeJson(dir, 'svc.json', {
      data_dir: join(dir, 'data'),
      log_level: 'info',
      projects: [
        { public_token: A, targets: [target(site)] },
        { public_token: B, targets: [target(site)] },
      ],
    });
    const fileOf = (token: string) => join(dir, 'data', 'projects', `${token.replace(':', '_')}.db`);
    for (const p of [A, B])
      expect(
        (await runHere(['crawl', 'manual', `${site.origin}/p1`, '--queue', '--project', p, '--config', config])).status,
      ).toBe(0);

    const w = await worker(['--config', config, '--project', B]);
    expect(w.logs.find((l) => l.msg === 'svc worker started')).toMatchObject({
      projects: [{ project: B, database: fileOf(B) }],
    });
    await until("B's crawl to complete", async () => (await crawlsIn(fileOf(B), B))[0]?.status === 'completed');
    // A's crawl waits for a process that serves A (the worker looked at B's queue only).
    expect((await crawlsIn(fileOf(A), A)).map((c) => c.status)).toEqual(['queued']);
    w.child.kill('SIGINT');
    expect(await w.exited).toBe(0);

    const unknown = await runHere(['worker', '--config', config, '--project', 'nope1234:eu-north-1']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr.trim()).toBe(
      `svc: --project: no project "nope1234:eu-north-1" in this config; configured: ${A}, ${B}`,
    );

    const remote = writeJson(dir, 'remote.json', {
      project: { public_token: A },
      data_dir: join(dir, 'remote'),
      api: { base_url: 'http://127.0.0.1:9', api_key: 'k', public_token: A },
    });
    const refused = await runHere(['worker', '--config', remote]);
    expect(refused.status).toBe(2);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/api\.base_url \(http:\/\/127\.0\.0\.1:9\).*run svc worker beside that service/);

    const help = await runHere(['worker', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^usage: svc worker \[--config F\] \[--project TOKEN …\]/);
  }, 30_000);
});

describe('svc worker, a shared crawl whose second worker or lead dies', () => {
  // 40 pages of 30 ms. The lead waits at its third page for the test to let it go on (holdLead), so the other worker
  // has all the time a loaded machine needs to start and join, however short the pages are.
  const PAGES = 40;
  const MISSING = PAGES / 5;
  let site: TestSite;
  const gets = new Map<string, number>();
  const byWorker = new Map<string, number>();
  /** Path → the workers that fetched it, in order. */
  const fetchedBy = new Map<string, string[]>();
  /** While set, the lead's page requests after its first two wait until it opens. */
  let leadGate: Promise<void> | null = null;
  let openLeadGate = () => {};

  /** From now, the lead's third page request of the crawl waits (the lead keeps its claims) until the answer is called. */
  function holdLead(): () => void {
    leadGate = new Promise<void>((r) => (openLeadGate = r));
    return () => {
      leadGate = null;
      openLeadGate();
    };
  }

  beforeAll(async () => {
    site = await startSite({}, async (req, res, url) => {
      if (url.pathname === '/robots.txt') return void res.writeHead(404).end();
      const i = url.pathname === '/' ? 0 : Number(url.pathname.slice(3));
      if (!Number.isInteger(i) || i < 0 || i >= PAGES) return void res.writeHead(404).end();
      gets.set(url.pathname, (gets.get(url.pathname) ?? 0) + 1);
      const w = String(req.headers['x-test-worker']);
      byWorker.set(w, (byWorker.get(w) ?? 0) + 1);
      fetchedBy.set(url.pathname, [...(fetchedBy.get(url.pathname) ?? []), w]);
      if (w === 'lead' && leadGate && (byWorker.get('lead') ?? 0) > 2) await leadGate;
      await sleep(30);
      const links = [1, 2, 3].map((k) => 3 * i + k).filter((j) => j < PAGES);
      // Every fifth page links to a page that is not there: MISSING broken links, each an error of the crawl.
      const missing = i % 5 === 0 ? ` <a href="/missing/${i}">gone</a>` : '';
      return html(`<title>p${i}</title>${links.map((j) => `<a href="/p/${j}">p${j}</a>`).join(' ')}${missing}`)(
        req,
        res,
        url,
      );
    });
  });
  afterEach(async () => {
    await killWorkers();
    leadGate = null;
    openLeadGate();
  });
  afterAll(() => site.close());

  /**
   * A new data directory: its database, and one config per worker, differing only in a request header, so the site
   * can tell them apart.
   */
  function sharedDir(prefix: string): { db: string; config: (name: string) => string } {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    const config = (name: string) =>
      writeJson(dir, `${name}.json`, {
        project: { public_token: A },
        data_dir: join(dir, 'data'),
        // A request the test holds may wait longer than target()'s 5 s.
        targets: [
          {
            ...target(site),
            concurrency: 2,
            track_links: 'all',
            request_headers: { 'x-test-worker': name },
            request_timeout_ms: 60_000,
          },
        ],
        log_level: 'info',
      });
    return { db: join(dir, 'data', 'svc.db'), config };
  }

  /**
   * The crawl completed, ended by `ender`, with every page, link and error counted once whatever a dead process had
   * reported; every page fetched, and one fetched twice only by `twice` in that order.
   */
  async function expectCompleted(db: string, ender: SvcProcess, twice: string[]): Promise<void> {
    const [rec] = await crawlsIn(db, A);
    expect(rec).toMatchObject({
      status: 'completed',
      stats: { pages: PAGES, links: PAGES + MISSING, errors: MISSING },
    });
    expect(ender.logs.filter((l) => l.msg === 'crawl ended').map((l) => l.crawl)).toEqual([rec!.id]);
    expect(gets.size).toBe(PAGES);
    for (const [path, who] of fetchedBy) if (who.length > 1) expect(who, path).toEqual(twice);
  }

  it('the lead takes back what the dead one held once its leases run out, and the crawl stores every page; unchanged pages counted once', async () => {
    const { db, config } = sharedDir('svc-worker-dies-');
    const lead = config('lead');
    const second = config('second');
    const env = { SVC_SHARED_LEASE_MS: '1500' };
    expect((await runHere(['crawl', 'full', '--queue', '--config', lead])).status).toBe(0);
    let letLeadGoOn = holdLead();
    const w1 = await worker(['--config', lead, '--concurrency', '1'], env);
    await until(
      'the lead to start the shared crawl',
      () => w1.logs.some((l) => l.msg === 'crawl started' && l.shared === true),
      10_000,
    );
    const w2 = await worker(['--config', second, '--concurrency', '1'], env);
    await until(
      'the second worker to join and fetch pages',
      () => w2.logs.some((l) => l.msg === 'joined a shared crawl') && (byWorker.get('second') ?? 0) >= 2,
      15_000,
    );
    // Dies while it holds claims: no goodbye, its leases just stop being renewed.
    w2.child.kill('SIGKILL');
    await w2.exited;
    letLeadGoOn();
    await until('the lead to end the crawl', () => w1.logs.some((l) => l.msg === 'crawl ended'), 30_000);
    // A page fetched twice is one the dead worker fetched and never marked done, then the lead.
    await expectCompleted(db, w1, ['second', 'lead']);
    expect(byWorker.get('lead')).toBeGreaterThan(0);

    // Again, every page now unchanged (the same body): a worker that dies after reporting the pages it kept does not
    // make them count twice.
    gets.clear();
    byWorker.clear();
    fetchedBy.clear();
    letLeadGoOn = holdLead();
    expect((await runHere(['crawl', 'full', '--queue', '--config', lead])).status).toBe(0);
    const w3 = await worker(['--config', second, '--concurrency', '1'], env);
    await until(
      'the second worker to join the next crawl and keep pages',
      () => w3.logs.some((l) => l.msg === 'joined a shared crawl') && (byWorker.get('second') ?? 0) >= 3,
      15_000,
    );
    w3.child.kill('SIGKILL');
    await w3.exited;
    letLeadGoOn();
    await until('the lead to end the next crawl', () => w1.logs.filter((l) => l.msg === 'crawl ended').length === 2);
    const [again] = await crawlsIn(db, A).then((all) => all.slice(-1));
    expect(again).toMatchObject({
      status: 'completed',
      stats: { pages: PAGES, links: PAGES + MISSING, errors: MISSING, unchanged: PAGES },
    });
    expect(gets.size).toBe(PAGES);
    w1.child.kill('SIGTERM');
    expect(await w1.exited).toBe(0);
  }, 60_000);

  it('a lead killed with -9: the other worker takes the lead over within the heartbeat limit and completes the crawl, every page stored once', async () => {
    const { db, config } = sharedDir('svc-lead-dies-');
    gets.clear();
    byWorker.clear();
    fetchedBy.clear();
    // A lead silent for 3 s is dead (a loaded machine may keep a live one from beating for over a second).
    const env = { SVC_SHARED_LEASE_MS: '1500', SVC_CRAWL_DEAD_AFTER_MS: '3000' };
    expect((await runHere(['crawl', 'full', '--queue', '--config', config('lead')])).status).toBe(0);
    // The lead dies waiting for its third page: it holds claims, and the second worker has joined by then.
    const letLeadGoOn = holdLead();
    const w1 = await worker(['--config', config('lead'), '--concurrency', '1'], env);
    await until(
      'the lead to start the shared crawl',
      () => w1.logs.some((l) => l.msg === 'crawl started' && l.shared === true),
      10_000,
    );
    const w2 = await worker(['--config', config('second'), '--concurrency', '1'], env);
    await until(
      'the second worker to join, and the lead to fetch pages',
      () => w2.logs.some((l) => l.msg === 'joined a shared crawl') && (byWorker.get('lead') ?? 0) >= 2,
      15_000,
    ).catch((err: Error) => {
      throw new Error(
        `${err.message}; lead: ${w1.logs.map((l) => l.msg).join(' | ')}; second: ${w2.logs.map((l) => l.msg).join(' | ')}`,
      );
    });
    w1.child.kill('SIGKILL');
    await w1.exited;
    const killedAt = Date.now();
    letLeadGoOn();
    await until('the second worker to end the crawl', () => w2.logs.some((l) => l.msg === 'crawl ended'), 30_000);
    const took = w2.logs.find((l) => l.msg === 'the lead of a shared crawl stopped answering: taking it over');
    expect(took).toBeDefined();
    // Within the heartbeat limit (3 s here) and a sweep or two.
    expect(Number(took!.time) - killedAt).toBeLessThan(3000 + 3000);
    // Twice only a page the dead lead held and never marked done, then the second.
    await expectCompleted(db, w2, ['lead', 'second']);
    const store = new Store(db);
    try {
      // Every page stored once, and the shared state gone with the crawl.
      expect(await store.sql.get('SELECT count(*) AS n, count(DISTINCT url) AS d FROM pages')).toEqual({
        n: PAGES,
        d: PAGES,
      });
      for (const table of ['frontier', 'frontier_crawls', 'frontier_workers', 'host_slots'])
        expect(await store.sql.get(`SELECT count(*) AS n FROM ${table}`), table).toEqual({ n: 0 });
    } finally {
      store.close();
    }
    w2.child.kill('SIGTERM');
    expect(await w2.exited).toBe(0);
  }, 60_000);
});
