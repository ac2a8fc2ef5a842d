// `svc search-stats` as users run it: searches made with `svc search` on a crawled loopback site are counted; text and
// --format json (the REST form); bad --since, --limit and --format exit 2 naming the option; no target exits 2.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SearchStats } from '../../src/model/search-stats.js';
import { runHere, runSvc } from '../support/cli.js';
import { html, startSite, type TestSite } from '../support/site.js';

let site: TestSite;
let configPath = '';

beforeAll(async () => {
  site = await startSite({
    '/': html('<h1>Orchard</h1><p>Pruning apple trees in winter.</p><a href="/pears">pears</a>'),
    '/pears': html('<h1>Pears</h1><p>Pruning pear trees.</p>'),
  });
  const dir = mkdtempSync(join(tmpdir(), 'svc-search-stats-'));
  configPath = join(dir, 'svc.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      project: { public_token: 'stat0001:eu-north-1' },
      data_dir: join(dir, 'data'),
      targets: [{ host: site.host, scheme: 'http', use_sitemap: false }],
      log_level: 'warn',
    }),
  );
});

afterAll(async () => {
  await site?.close();
});

/** svc in this process (the no-target case below spawns the build, in a directory of its own). */
const svc = (...args: string[]) => runHere([...args, '--config', configPath]);

it('counts the searches svc search made; text and json forms', async () => {
  expect((await svc('crawl', 'full')).status).toBe(0);
  expect((await svc('search', 'Pruning')).status).toBe(0);
  expect((await svc('search', 'pruning')).status).toBe(0);
  expect((await svc('search', 'quince')).status).toBe(0);

  const json = await svc('search-stats', '--format', 'json');
  expect(json.status).toBe(0);
  const stats = JSON.parse(json.stdout) as SearchStats;
  expect(stats.totals).toEqual({ searches: 3, no_result_searches: 1, queries: 2, no_result_queries: 1 });
  expect(stats.top_queries[0]).toMatchObject({ terms: 'pruning', searches: 2, last_hits: 2 });
  expect(stats.no_result_queries).toEqual([expect.objectContaining({ terms: 'quince', searches: 1, last_hits: 0 })]);

  const text = await svc('search-stats', '--since', new Date().toISOString().slice(0, 10));
  expect(text.status).toBe(0);
  expect(text.stdout).toMatch(
    /^Searches since \S+ \(kept 90 days\): 3 searches, 1 with no results; 2 distinct queries\n/,
  );
  expect(text.stdout).toMatch(/Top queries \(2 of 2\)\n +2 {2}pruning {2}\(last found 2 pages; last searched \S+\)/);
  expect(text.stdout).toMatch(/Queries with no results \(1 of 1\)\n +1 {2}quince {2}\(still finds nothing;/);
  expect(text.stdout).toMatch(/Searches per day \(UTC\)\n {2}\d{4}-\d{2}-\d{2} +3 searches, 1 with no results\n$/);
}, 60_000);

it('bad input exits 2 naming the option and the rule', async () => {
  const cases: [string[], RegExp][] = [
    [['--since', 'last week'], /--since: must be an ISO 8601 time .*not in the future/],
    [['--since', '2999-01-01'], /--since: must not be in the future/],
    [['--limit', '0'], /--limit: must be a whole number from 1 to 100/],
    [['--format', 'csv'], /--format: unknown format "csv" \(allowed: text, json\)/],
  ];
  for (const [args, message] of cases) {
    const r = await svc('search-stats', ...args);
    expect(r.status, args.join(' ')).toBe(2);
    expect(r.stderr).toMatch(message);
  }
  const none = await runSvc(['search-stats'], { cwd: mkdtempSync(join(tmpdir(), 'svc-no-target-')) });
  expect(none.status).toBe(2);
  expect(none.stderr).toMatch(/search-stats: no target/);
});
