// `svc schedule set` and `svc schedule clear` beside a running `svc serve` on the same SQLite file (the set spawned as
// users run it, the rest in this process): the server follows a schedule set by the other process without a restart; a
// bad expression exits 2 naming the option and keeps what was stored; clear goes back to the config's schedule.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlsIn, runHere, runSvc, serveSvc, type ServeProcess } from '../support/cli.js';
import { html, startSite, writeJson, type TestSite } from '../support/site.js';
import { until } from '../support/wait.js';

const PROJECT = 'sched987:eu-north-1';

describe('svc schedule set / clear, real processes', () => {
  let site: TestSite;
  let dir: string;
  let config: string;
  let server: ServeProcess | null = null;

  beforeAll(async () => {
    site = await startSite({ '/': html('<a href="/a">a</a>'), '/a': html('a') });
    dir = mkdtempSync(join(tmpdir(), 'svc-schedule-'));
    config = writeJson(dir, 'svc.json', {
      project: { public_token: PROJECT },
      data_dir: join(dir, 'data'),
      targets: [{ host: site.host, scheme: 'http', use_sitemap: false }],
      schedule: { full: '0 3 1 1 *' },
      log_level: 'info',
    });
  });
  afterAll(async () => {
    await server?.stop();
    await site?.close();
  });

  it('a schedule set by another process runs in svc serve without a restart; bad input exits 2 and keeps it; clear goes back; SIGTERM ends it with 0', async () => {
    // Looks every 0.5 s instead of every 10 s: what is tested is that it follows another process's change at all.
    server = await serveSvc(config, { env: { SVC_SCHEDULE_REREAD_MS: '500' } });
    const shown = await runHere(['schedule', '--config', config]);
    expect(shown.stdout).toMatch(/^full +0 3 1 1 \*/m);
    expect(shown.stdout).toMatch(/^source +config$/m);

    const set = await runSvc(['schedule', 'set', '--config', config, '--full', '*/2 * * * * *']);
    expect(set.status, set.stderr).toBe(0);
    expect(set.stdout).toMatch(/^full +\*\/2 \* \* \* \* \* +next /m);
    expect(set.stdout).toMatch(/^partial +no schedule$/m);
    expect(set.stdout).toMatch(/^source +stored \(set \d{4}-/m);

    // The server reads the stored schedule at its next look and queues the crawls it calls for.
    const db = join(dir, 'data', 'svc.db');
    await until(
      'a crawl queued by the stored schedule to complete',
      async () =>
        (await crawlsIn(db, PROJECT)).some((c) => c.trigger === 'schedule:full' && c.status === 'completed') || null,
      30_000,
    );
    expect(server.logs.some((l) => l.msg === 'crawl schedule changed' && l.source === 'stored')).toBe(true);

    const bad = await runHere([
      'schedule',
      'set',
      '--config',
      config,
      '--full',
      '0 3 * * *',
      '--partial',
      '0 24 * * *',
    ]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--partial: must be a cron expression of 5 fields .*: /);
    const none = await runHere(['schedule', 'set', '--config', config]);
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/give --full CRON, --partial CRON or both/);
    const json = await runHere(['schedule', '--json', '--config', config]);
    expect(JSON.parse(json.stdout)).toMatchObject({ source: 'stored', full: { cron: '*/2 * * * * *' }, partial: null });

    const cleared = await runHere(['schedule', 'clear', '--json', '--config', config]);
    expect(cleared.status, cleared.stderr).toBe(0);
    expect(JSON.parse(cleared.stdout)).toMatchObject({ source: 'config', setAt: null, full: { cron: '0 3 1 1 *' } });
    await until(
      'svc serve to follow the cleared schedule',
      () => server!.logs.some((l) => l.msg === 'crawl schedule changed' && l.source === 'config') || null,
      30_000,
    );
    // The binary's end on SIGTERM: serve returns 0 after its shutdown and the `svc` entry exits with it.
    await server.stop();
    expect(await server.exited).toBe(0);
    expect(server.logs.map((l) => l.msg)).toContain('shutting down');
  });
});
