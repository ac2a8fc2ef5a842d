// `svc report --format/--output/--fail-on` as CI runs it, in this process (the command's output is the subject):
// output, exit codes, one-line errors.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadApp } from '../../src/app/open-app.js';
import { parseConfig } from '../../src/cli/load-config.js';
import { silentLogger } from '../../src/lib/log.js';
import { HOST_A, HOST_B, tempDir, TOKEN } from '../support/app.js';
import { seedSmallSite } from '../support/writes.js';
import { runHere } from '../support/cli.js';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

async function svc(args: string[]): Promise<Run> {
  const r = await runHere(args, { env: { SVC_LOG_LEVEL: undefined } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A config whose store holds seedSmallSite: HOST_A has one link of each reason, HOST_B one not_found PDF. */
async function seededConfig(): Promise<{ path: string; dir: string }> {
  const dir = tempDir('svc-cli-report-');
  const path = join(dir, 'svc.json');
  const input = {
    project: { public_token: TOKEN },
    data_dir: join(dir, 'data'),
    targets: [
      { host: HOST_A, track_links: 'all' },
      { host: HOST_B, scheme: 'http', use_sitemap: false },
    ],
    log_level: 'silent',
  };
  writeFileSync(path, JSON.stringify(input));
  const app = await loadApp(parseConfig(input), { logger: silentLogger });
  try {
    await seedSmallSite(app);
  } finally {
    await app.close();
  }
  return { path, dir };
}

describe('svc report', () => {
  let cfg: { path: string; dir: string };
  beforeAll(async () => {
    cfg = await seededConfig();
  });

  it('--fail-on exits 1 when a listed reason is present and 0 when none is; the output is written either way', async () => {
    const failing = await svc(['report', '--format', 'sarif', '--fail-on', 'not_found', '--config', cfg.path]);
    expect(failing.code).toBe(1);
    expect(failing.stderr).toBe('svc report: failing on not_found (3 links)\n');
    const log = JSON.parse(failing.stdout);
    expect(log.version).toBe('2.1.0');
    expect(log.runs[0].results).toHaveLength(8);
    expect(log.runs[0].tool.driver.version).toMatch(/^\d+\.\d+\.\d+/);

    // HOST_B has only a not_found link: failing on the other reasons passes.
    const passing = await svc([
      'report',
      '--target',
      HOST_B,
      '--format',
      'junit',
      '--fail-on',
      'forbidden, server_error,redirect,unknown',
      '--config',
      cfg.path,
    ]);
    expect(passing.stderr).toBe('');
    expect(passing.code).toBe(0);
    expect(XMLValidator.validate(passing.stdout)).toBe(true);
    const junit = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(passing.stdout);
    // With --fail-on, only those reasons are JUnit failures: the not_found PDF passes here.
    expect(junit.testsuites).toMatchObject({ tests: '1', failures: '0' });

    // /old is linked from two pages: two (page, link) pairs.
    const several = await svc(['report', '--fail-on', 'server_error,redirect', '--config', cfg.path]);
    expect(several.code).toBe(1);
    expect(several.stderr).toBe('svc report: failing on server_error (1 link), redirect (2 links)\n');
    expect(several.stdout).toContain('Not found — 3 occurrences');

    expect((await svc(['report', '--config', cfg.path])).code).toBe(0);
  });

  it('--output writes the file; --json stays an alias of --format json', async () => {
    const file = join(cfg.dir, 'report.html');
    const run = await svc([
      'report',
      '--format',
      'html',
      '--output',
      file,
      '--fail-on',
      'not_found',
      '--config',
      cfg.path,
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    const html = readFileSync(file, 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain(`https://${HOST_A}/missing`);
    const json = await svc(['report', '--json', '--config', cfg.path]);
    const formatJson = await svc(['report', '--format', 'json', '--config', cfg.path]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(JSON.parse(formatJson.stdout));
    expect(JSON.parse(json.stdout).notFound.count).toBe(3);
    const csv = await svc(['report', '--format', 'csv', '--config', cfg.path]);
    expect(csv.stdout.split('\r\n')).toHaveLength(1 + 8 + 1);
    const md = await svc(['report', '--format', 'markdown', '--config', cfg.path]);
    expect(md.stdout).toContain('## Not found (3)');
  });

  it('refuses an unknown format or reason with one line naming the option and the allowed values (exit 2)', async () => {
    const badFormat = await svc(['report', '--format', 'pdf', '--config', cfg.path]);
    expect(badFormat.code).toBe(2);
    expect(badFormat.stderr).toBe(
      'svc: --format: unknown format "pdf" (allowed: text, json, csv, markdown, junit, sarif, html)\n',
    );
    const badReason = await svc(['report', '--fail-on', 'not_found,broken', '--config', cfg.path]);
    expect(badReason.code).toBe(2);
    expect(badReason.stderr).toBe(
      'svc: --fail-on: unknown reason "broken" (allowed: not_found, forbidden, server_error, redirect, unknown)\n',
    );
    const clash = await svc(['report', '--json', '--format', 'csv', '--config', cfg.path]);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toBe('svc: --json: means --format json, but --format csv was given\n');
    const noDir = await svc(['report', '--output', join(cfg.dir, 'no', 'such', 'dir', 'r.txt'), '--config', cfg.path]);
    expect(noDir.code).toBe(1);
    expect(noDir.stderr).toMatch(/^svc: --output: cannot write .*r\.txt: ENOENT[^\n]*\n$/);
  });
});
