// What the CLI says when the findings are not what they seem: a site that is down (in this process), and where a
// write landed (the built svc in a directory of its own: the default data directory is the process's ./data).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { closedPort } from '../support/site.js';
import { runHere, runSvc } from '../support/cli.js';

const svc = (args: string[], cwd: string) => runSvc(args, { cwd, env: { SVC_LOG_LEVEL: undefined } });

it('svc crawl full of a site that is down exits 1, says the crawl failed and why, and names the target', async () => {
  const port = await closedPort();
  const dir = mkdtempSync(join(tmpdir(), 'svc-down-'));
  const here = (args: string[]) => runHere(args, { env: { SVC_DATA_DIR: join(dir, 'data') } });
  const r = await here(['crawl', 'full', '--site', `http://127.0.0.1:${port}/`]);
  expect(r.status).toBe(1);
  expect(r.stderr).toMatch(/crawl \d+ failed: 0 pages/);
  expect(r.stderr).toMatch(new RegExp(`127\\.0\\.0\\.1:${port} was unreachable: .*connection refused`));
  const rec = JSON.parse(r.stdout.trim());
  expect(rec.status).toBe('failed');
  // No completed full crawl: the report still says none has completed.
  const report = await here(['report', '--site', `http://127.0.0.1:${port}/`, '--format', 'json']);
  expect(JSON.parse(report.stdout).lastFullCrawl).toBeNull();
  expect(JSON.parse(report.stdout).targets[0].lastCrawlError).toMatch(/connection refused/);
});

it('svc keys create without --config says on stderr which data directory and project it wrote to', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'svc-where-'));
  const r = await svc(['keys', 'create'], cwd);
  expect(r.status).toBe(0);
  expect(r.stdout.trim()).toMatch(/^svc_key_/);
  expect(r.stderr).toContain(`API key written to ${join(cwd, 'data')} (project `);
});
