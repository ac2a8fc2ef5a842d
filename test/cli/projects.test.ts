// Several projects in one service: the built `svc serve` as users run it serves every project (each one's schedule runs
// its own crawls into its own SQLite file) and says so at start; the commands that act on one project take --project
// (default: the first), and an unknown token is a clear error (those run in this process: runHere, but for one spawned
// check).
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../src/store/sqlite/store.js';
import { getUser } from '../../src/auth/users.js';
import { html, startSite, writeJson, type TestSite } from '../support/site.js';
import { crawlsIn, runHere, runSvc, serveSvc, type ServeProcess } from '../support/cli.js';
import { until } from '../support/wait.js';

const A = 'orchard1:eu-north-1';
const B = 'plantn02:us-east-1';
const fileOf = (dir: string, token: string) => join(dir, 'data', 'projects', `${token.replace(':', '_')}.db`);

function pageUrls(file: string): string[] {
  const store = new Store(file, { readonly: true });
  try {
    return (store.db.prepare('SELECT url FROM pages ORDER BY url').all() as { url: string }[]).map((r) => r.url);
  } finally {
    store.close();
  }
}

const running: ServeProcess[] = [];

async function serve(config: string): Promise<ServeProcess> {
  const s = await serveSvc(config);
  running.push(s);
  return s;
}

describe('svc with two projects, real processes', () => {
  let siteA: TestSite;
  let siteB: TestSite;

  function setup(extra: { a?: Record<string, unknown>; b?: Record<string, unknown> } = {}): {
    dir: string;
    config: string;
  } {
    const dir = mkdtempSync(join(tmpdir(), 'svc-projects-'));
    const target = (s: TestSite) => ({
      host: s.host,
      scheme: 'http',
      use_sitemap: false,
      track_links: 'all',
      request_timeout_ms: 5000,
    });
    const config = writeJson(dir, 'svc.json', {
      data_dir: join(dir, 'data'),
      log_level: 'info',
      projects: [
        { public_token: A, targets: [target(siteA)], ...extra.a },
        { public_token: B, targets: [target(siteB)], ...extra.b },
      ],
    });
    return { dir, config };
  }

  beforeAll(async () => {
    siteA = await startSite({
      '/': html('<a href="/apple">apple</a> <a href="/gone-a">old</a>', { title: 'Orchard home' }),
      '/apple': html('<p>Apple fruit from the orchard</p>', { title: 'Apple' }),
    });
    siteB = await startSite({
      '/': html('<a href="/banana">banana</a> <a href="/gone-b">old</a>', { title: 'Plantation home' }),
      '/banana': html('<p>Banana fruit from the plantation</p>', { title: 'Banana' }),
    });
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((s) => s.stop()));
  });
  afterAll(async () => {
    await siteA?.close();
    await siteB?.close();
  });

  it("svc serve runs each project's schedule into its own file, says which projects it serves, and keeps keys apart", async () => {
    const { dir, config } = setup({
      a: { schedule: { full: '* * * * * *' } },
      b: { schedule: { full: '*/2 * * * * *' } },
    });
    const keyA = await runHere(['keys', 'create', '--config', config, '--project', A]);
    const keyB = await runHere(['keys', 'create', '--config', config, '--project', B]);
    expect(keyA.status).toBe(0);
    expect(keyB.status).toBe(0);
    const s = await serve(config);
    const listening = s.logs.find((l) => l.msg === 'svc serve listening')!;
    expect(listening.projects).toEqual([A, B]);
    const lines = await until('a line per project', () => {
      const found = s.logs.filter((l) => l.msg === 'serving project');
      return found.length === 2 ? found : null;
    });
    expect(lines.map((l) => [l.project, l.database, l.host_side])).toEqual([
      [A, fileOf(dir, A), true],
      [B, fileOf(dir, B), false],
    ]);
    expect(lines[1]).toMatchObject({
      targets: [siteB.host],
      schedule: { full: '*/2 * * * * *' },
      v1: `${s.baseUrl}/v1/projects/${B}/`,
    });

    // Each schedule queues and runs crawls of its own project, in its own database.
    for (const token of [A, B]) {
      const done = await until(
        `two scheduled crawls of ${token}`,
        async () => {
          const list = existsSync(fileOf(dir, token))
            ? (await crawlsIn(fileOf(dir, token), token)).filter(
                (c) => c.trigger === 'schedule:full' && c.status === 'completed',
              )
            : [];
          return list.length >= 2 ? list : null;
        },
        40_000,
      );
      expect(done.every((c) => c.stats.pages === 2)).toBe(true);
    }
    expect(pageUrls(fileOf(dir, A))).toEqual([`${siteA.origin}/`, `${siteA.origin}/apple`]);
    expect(pageUrls(fileOf(dir, B))).toEqual([`${siteB.origin}/`, `${siteB.origin}/banana`]);

    const get = (token: string, path: string, key: string) =>
      fetch(`${s.baseUrl}/v1/projects/${encodeURIComponent(token)}${path}`, {
        headers: { authorization: `Bearer ${key}` },
      });
    const schedA = (await (await get(A, '/schedule', keyA.stdout.trim())).json()) as { full: { cron: string } };
    const schedB = (await (await get(B, '/schedule', keyB.stdout.trim())).json()) as { full: { cron: string } };
    expect(schedA.full.cron).toBe('* * * * * *');
    expect(schedB.full.cron).toBe('*/2 * * * * *');
    expect((await get(B, '/schedule', keyA.stdout.trim())).status).toBe(404);
    expect((await get(A, '/crawls', keyB.stdout.trim())).status).toBe(404);
    expect((await get(A, '/crawls', 'svc_key_made-up')).status).toBe(401);
  }, 90_000);

  it('--project picks the project of crawl, search, report, keys, changes, schedule and check; the default is the first', async () => {
    const { dir, config } = setup();
    const hitsA = siteA.log.length;
    const crawl = await runHere(['crawl', 'full', '--config', config, '--project', B]);
    expect(crawl.status, crawl.stderr + crawl.stdout).toBe(0);
    expect(JSON.parse(crawl.stdout)).toMatchObject({ id: 1, mode: 'full', status: 'completed', stats: { pages: 2 } });
    // Only B's file was opened.
    expect(existsSync(fileOf(dir, B))).toBe(true);
    expect(existsSync(fileOf(dir, A))).toBe(false);
    expect(siteA.log.length).toBe(hitsA);

    const searchB = await runHere(['search', 'fruit', '--json', '--config', config, '--project', B]);
    expect(searchB.status).toBe(0);
    expect((JSON.parse(searchB.stdout) as { hits: { url: string }[] }).hits.map((h) => h.url)).toEqual([
      `${siteB.origin}/banana`,
    ]);
    // Without --project: the first project, which has crawled nothing, so it says so (exit 2) and names the crawl.
    const searchA = await runHere(['search', 'fruit', '--json', '--config', config]);
    expect(searchA.status, searchA.stderr).toBe(2);
    expect(searchA.stderr).toMatch(/not crawled yet.*svc crawl full/);
    expect(searchA.stdout).not.toContain(siteB.origin);

    const reportB = await runHere(['report', '--json', '--config', config, '--project', B]);
    expect(reportB.status).toBe(0);
    expect(reportB.stdout).toContain(`${siteB.origin}/gone-b`);
    expect(reportB.stdout).not.toContain(siteA.host);

    const changes = await runHere(['changes', '--json', '--config', config, '--project', B]);
    expect(changes.status).toBe(0);
    expect(JSON.parse(changes.stdout)).toMatchObject({
      since: null,
      new: [expect.objectContaining({ url: `${siteB.origin}/gone-b` })],
    });
    expect((await runHere(['changes', '--config', config])).stderr).toMatch(/not crawled yet: no crawl has ended/);

    expect((await runHere(['keys', 'create', '--name', 'ci', '--config', config, '--project', B])).status).toBe(0);
    expect((await runHere(['keys', 'list', '--config', config, '--project', B])).stdout).toMatch(
      /^1\t\S+\tci\tsvc_\S*…\tnever used$/m,
    );
    expect((await runHere(['keys', 'list', '--config', config])).stdout).toBe(`no API keys for ${A}\n`);

    expect((await runHere(['schedule', '--json', '--config', config, '--project', B])).stdout.trim()).toBe(
      '{"full":null,"partial":null,"source":"config","setAt":null}',
    );
    // Spawned: the binary's wiring of check, repair and backup (one module, src/cli/database.ts).
    const check = await runSvc(['check', '--config', config, '--project', B]);
    expect(check.status).toBe(0);
    expect(check.stderr).toContain(`${fileOf(dir, B)} is sound`);
  }, 60_000);

  it('an unknown --project is an error listing the configured tokens; commands of the host side take none', async () => {
    const { dir, config } = setup();
    for (const cmd of [
      ['crawl', 'full'],
      ['search', 'x'],
      ['report'],
      ['keys', 'create'],
      ['schedule'],
      ['changes'],
      ['check'],
    ]) {
      const r = await runHere([...cmd, '--config', config, '--project', 'nothere9:eu-north-1']);
      expect(r.status, cmd.join(' ')).toBe(2);
      expect(r.stderr.trim()).toBe(
        `svc: --project: no project "nothere9:eu-north-1" in this config; configured: ${A}, ${B}`,
      );
    }
    const users = await runHere(['users', 'add', 'alice', '--role', 'editor', '--config', config, '--project', B]);
    expect(users.status).toBe(2);
    expect(users.stderr).toMatch(/Unknown option '--project'/);
    // Users (and posts, OAuth) belong to the host side: the first project's database.
    expect((await runHere(['users', 'add', 'alice', '--role', 'editor', '--config', config])).status).toBe(0);
    const first = new Store(fileOf(dir, A), { readonly: true });
    try {
      expect(await getUser(first.sql, 'alice')).toMatchObject({ login: 'alice', role: 'editor' });
    } finally {
      first.close();
    }
    expect(existsSync(fileOf(dir, B))).toBe(false);
    const site = await runHere(['crawl', 'full', '--config', config, '--site', siteA.origin]);
    expect(site.status).toBe(2);
    expect(site.stderr).toMatch(/--site: cannot be used with a config that lists "projects"/);
  }, 60_000);
});
