// The `svc` bin starts node with memory settings of its own (its first line): a crawl started that way finds what
// the same crawl started as `node dist/src/server.js` finds, through the compact URL set and queue either way.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runSvc } from '../support/cli.js';
import { SERVER_JS } from '../support/paths.js';
import { html, startSite, type TestSite } from '../support/site.js';

const PAGES = 300;
let site: TestSite;

beforeAll(async () => {
  // Page n links to 2n+1 and 2n+2 (breadth first, the queue holds half the site at once); every 25th to a missing page.
  site = await startSite({}, (req, res, url) => {
    const m = /^\/(?:p\/(\d+)\.html)?$/.exec(url.pathname);
    const n = m ? Number(m[1] ?? 0) : -1;
    if (n < 0 || n >= PAGES) {
      res.writeHead(404).end('not found');
      return;
    }
    const links = [2 * n + 1, 2 * n + 2].filter((c) => c < PAGES).map((c) => `<a href="/p/${c}.html">page ${c}</a>`);
    if (n % 25 === 0) links.push(`<a href="/missing/${n}.html">gone</a>`);
    return html(`<h1>Page ${n}</h1><p>words of page ${n}</p>${links.join(' ')}`, { title: `Page ${n}` })(req, res, url);
  });
});
afterAll(() => site.close());

/** The link report without its times: what a crawl found. */
function findings(json: string): unknown {
  return JSON.parse(json.replace(/"\d{4}-\d\d-\d\dT[\d:.]+Z"/g, '"T"'));
}

it('the bin carries the memory settings, and a crawl started through it finds exactly what plain node finds', async () => {
  expect(readFileSync(SERVER_JS, 'utf8').split('\n')[0]).toBe(
    '#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=8 --heap-growing-percent=50',
  );
  const viaBin = mkdtempSync(join(tmpdir(), 'svc-bin-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
    SVC_LOG_LEVEL: 'warn',
  };
  for (const k of Object.keys(env)) if (k.startsWith('SVC_') && k !== 'SVC_LOG_LEVEL') delete env[k];
  const run = promisify(execFile);
  const crawled = await run(SERVER_JS, ['crawl', 'full', '--site', site.url('/')], { cwd: viaBin, env });
  expect(JSON.parse(crawled.stdout).stats.pages).toBe(PAGES);
  const binReport = await run(SERVER_JS, ['report', '--site', site.url('/'), '--format', 'json'], { cwd: viaBin, env });

  const viaNode = mkdtempSync(join(tmpdir(), 'svc-node-'));
  expect((await runSvc(['crawl', 'full', '--site', site.url('/')], { cwd: viaNode })).status).toBe(0);
  const nodeReport = await runSvc(['report', '--site', site.url('/'), '--format', 'json'], { cwd: viaNode });
  const found = findings(binReport.stdout);
  expect(found).toEqual(findings(nodeReport.stdout));
  expect(JSON.stringify(found)).toContain('/missing/275.html');
  expect(JSON.stringify(found).match(/\/missing\/\d+\.html/g)?.length).toBeGreaterThanOrEqual(PAGES / 25);
});
