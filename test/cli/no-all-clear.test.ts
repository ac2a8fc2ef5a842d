// No all-clear for nothing checked: getting-started's demo example (`svc crawl full --site URL`, then `svc report` with
// no target) as users run it, in this process with the data in a new directory, a target never crawled, and one no
// crawl could reach — never "No problem links found", and never a pass of `--fail-on`.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runHere } from '../support/cli.js';
import { closedPort, html, startSite, type TestSite } from '../support/site.js';

let site: TestSite;
let cwd = '';

beforeAll(async () => {
  site = await startSite({
    '/': html('<main><h1>Compost</h1><p>compost heaps</p><a href="/gone">old page</a> <a href="/ok">ok</a></main>'),
    '/ok': html('<main><p>fine</p></main>'),
  });
  cwd = mkdtempSync(join(tmpdir(), 'svc-no-all-clear-'));
});

afterAll(async () => {
  await site?.close();
});

/** svc in this process, its data where a run in `cwd` keeps it by default (./data). */
const svc = (...args: string[]) => runHere(args, { env: { SVC_DATA_DIR: join(cwd, 'data') } });

it('after svc crawl full --site, report, search and changes with no target exit 2 naming how to give one', async () => {
  const crawl = await svc('crawl', 'full', '--site', `${site.origin}/`);
  expect(crawl.status, crawl.stderr).toBe(0);

  for (const args of [['report'], ['report', '--fail-on', 'not_found'], ['search', 'compost'], ['changes']]) {
    const r = await svc(...args);
    expect(r.status, `svc ${args.join(' ')}: ${r.stderr}`).toBe(2);
    expect(r.stderr).toMatch(/no target: give the site with --site URL .* --config FILE or SVC_CONFIG/);
    expect(r.stdout).not.toMatch(/No problem links found|0 results/);
  }

  // With the target, the same commands answer, and --fail-on fails on the broken link.
  const report = await svc('report', '--site', `${site.origin}/`);
  expect(report.status).toBe(0);
  expect(report.stdout).toContain(`${site.origin}/gone`);
  expect((await svc('report', '--site', `${site.origin}/`, '--fail-on', 'not_found')).status).toBe(1);
  expect((await svc('search', 'compost', '--site', `${site.origin}/`)).stdout).toMatch(/^1 result for "compost"/);
}, 120_000);

it('a target never crawled answers "not crawled yet" (exit 2), never an empty report', async () => {
  const other = `http://127.0.0.1:${await closedPort()}/`;
  for (const args of [
    ['report', '--site', other],
    ['report', '--site', other, '--fail-on', 'not_found'],
    ['report', '--site', other, '--format', 'json'],
    ['search', 'compost', '--site', other],
  ]) {
    const r = await svc(...args);
    expect(r.status, `svc ${args.join(' ')}: ${r.stderr}`).toBe(2);
    expect(r.stderr).toContain(`not crawled yet: no crawl has stored a page of ${new URL(other).host}`);
    expect(r.stderr).toContain(`crawl it first: svc crawl full --site ${other}`);
    expect(r.stdout).toBe('');
  }
}, 120_000);

it('a target no crawl could reach: the report says nothing was checked, and --fail-on fails', async () => {
  const down = `http://127.0.0.1:${await closedPort()}/`;
  expect((await svc('crawl', 'full', '--site', down)).status).toBe(1);
  const report = await svc('report', '--site', down);
  expect(report.status).toBe(0);
  expect(report.stdout).toMatch(/No report: nothing checked: no page of 127\.0\.0\.1:\d+ \(.+\) is stored\./);
  expect(report.stdout).not.toContain('No problem links found');
  const gate = await svc('report', '--site', down, '--fail-on', 'not_found');
  expect(gate.status).toBe(1);
  expect(gate.stderr).toMatch(/svc report: failing: nothing checked/);
}, 120_000);
