// What the CLI says when the findings are not what they seem: a site that is down, and where a write landed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { closedPort } from '../support/site.js';
import { SERVER_JS } from '../support/paths.js';

function svc(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  const clean = { ...process.env };
  delete clean.SVC_CONFIG;
  delete clean.SVC_DATA_DIR;
  return spawnSync(process.execPath, [SERVER_JS, ...args], { cwd, encoding: 'utf8', env: { ...clean, ...env } });
}

it('svc crawl full of a site that is down exits 1, says the crawl failed and why, and names the target', async () => {
  const port = await closedPort();
  const cwd = mkdtempSync(join(tmpdir(), 'svc-down-'));
  const r = svc(['crawl', 'full', '--site', `http://127.0.0.1:${port}/`], cwd);
  expect(r.status).toBe(1);
  expect(r.stderr).toMatch(new RegExp(`crawl \\d+ failed: 0 pages`));
  expect(r.stderr).toMatch(new RegExp(`127\\.0\\.0\\.1:${port} was unreachable: .*connection refused`));
  const rec = JSON.parse(r.stdout.trim());
  expect(rec.status).toBe('failed');
  // No completed full crawl: the report still says none has completed.
  const report = svc(['report', '--site', `http://127.0.0.1:${port}/`, '--format', 'json'], cwd);
  expect(JSON.parse(report.stdout).lastFullCrawl).toBeNull();
  expect(JSON.parse(report.stdout).targets[0].lastCrawlError).toMatch(/connection refused/);
});

it('svc keys create without --config says on stderr which data directory and project it wrote to', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'svc-where-'));
  const r = svc(['keys', 'create'], cwd);
  expect(r.status).toBe(0);
  expect(r.stdout.trim()).toMatch(/^svc_key_/);
  expect(r.stderr).toContain(`API key written to ${join(cwd, 'data')} (project `);
});
