// `svc changes` and `svc report --since`, run in this process (their output is the subject): two `svc crawl full` runs
// of a loopback site the test changes in between (one link mended, one broken).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSite, type TestSite } from '../support/site.js';
import { runHere } from '../support/cli.js';

let site: TestSite;
let links = ['/gone1', '/ok'];
let configPath = '';

beforeAll(async () => {
  site = await startSite({
    '/': (_q, res) =>
      void res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(links.map((l) => `<a href="${l}">to ${l}</a>`).join(' ')),
    '/ok': (_q, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('fine'),
  });
  const dir = mkdtempSync(join(tmpdir(), 'svc-changes-'));
  configPath = join(dir, 'svc.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      project: { public_token: 'chng0001:eu-north-1' },
      data_dir: join(dir, 'data'),
      targets: [{ host: site.host, scheme: 'http', track_links: 'all', use_sitemap: false }],
      log_level: 'warn',
    }),
  );
});

afterAll(async () => {
  await site?.close();
});

// Asynchronous: the site answers from this process while svc crawls it.
const svc = (...args: string[]) => runHere([...args, '--config', configPath]);

it('svc changes prints what a crawl broke and mended; --json is the REST form; report --since filters', async () => {
  const none = await svc('changes');
  expect(none.status).toBe(2);
  expect(none.stderr).toMatch(/not crawled yet: no crawl has ended; crawl first: svc crawl full/);

  const first = JSON.parse((await svc('crawl', 'full')).stdout) as { id: number; finishedAt: string };
  links = ['/ok', '/gone2'];
  const second = JSON.parse((await svc('crawl', 'full')).stdout) as { id: number; finishedAt: string };

  const text = await svc('changes');
  expect(text.status).toBe(0);
  expect(text.stdout).toContain(
    `crawl ${second.id} (full, completed ${second.finishedAt}) since the full crawl of ${first.finishedAt}: 1 new, 1 fixed`,
  );
  const [newPart, fixedPart] = text.stdout.split('\nFixed (1)\n');
  expect(newPart).toContain(`not_found    404  ${site.origin}/gone2`);
  expect(newPart).toContain(`on ${site.origin}/ in <a> "to /gone2"; first seen ${second.finishedAt}`);
  expect(fixedPart).toContain(`not_found    404  ${site.origin}/gone1`);
  expect(fixedPart).toContain(`had been there since ${first.finishedAt}`);

  const json = await svc('changes', String(first.id), '--json');
  expect(json.status).toBe(0);
  expect(JSON.parse(json.stdout)).toEqual({
    since: null,
    new: [
      expect.objectContaining({
        page: `${site.origin}/`,
        url: `${site.origin}/gone1`,
        reason: 'not_found',
        firstSeen: first.finishedAt,
      }),
    ],
    fixed: [],
  });

  const unknown = await svc('changes', '99');
  expect(unknown.status).toBe(1);
  expect(unknown.stderr).toMatch(/no crawl 99 in this project/);
  expect((await svc('changes', 'x')).stderr).toMatch(/--ID: must be a whole number/);

  const since = await svc('report', '--since', first.finishedAt, '--format', 'json');
  expect(since.status).toBe(0);
  const report = JSON.parse(since.stdout);
  expect(report.notFound.count).toBe(1);
  expect(report.notFound.pages[0].links.map((l: { url: string }) => l.url)).toEqual([`${site.origin}/gone2`]);
  expect((await svc('report', '--since', 'yesterday')).stderr).toMatch(/--since: must be an ISO 8601 time/);
}, 60_000);
