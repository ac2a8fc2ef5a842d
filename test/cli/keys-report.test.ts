// `svc keys` and `svc report`, run in-process against a config file in a temp dir.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadApp, type App } from '../../src/app/open-app.js';
import { listApiKeys, verifyApiKey } from '../../src/auth/keys.js';
import { hashSecret } from '../../src/auth/secrets.js';
import { run as keys } from '../../src/cli/keys.js';
import { run as report } from '../../src/cli/report.js';
import { parseConfig } from '../../src/cli/load-config.js';
import { silentLogger } from '../../src/lib/log.js';
import { HOST_A, HOST_B, tempDir, TOKEN } from '../support/app.js';
import { testTerminal } from '../support/cli.js';
import type { Terminal } from '../../src/cli/terminal.js';
import { seedMany, seedSmallSite } from '../support/writes.js';

function configFile(): { path: string; dataDir: string } {
  const dir = tempDir('svc-cli-');
  const dataDir = join(dir, 'data');
  const path = join(dir, 'svc.json');
  writeFileSync(
    path,
    JSON.stringify({
      project: { public_token: TOKEN },
      data_dir: dataDir,
      targets: [
        { host: HOST_A, track_links: 'all' },
        { host: HOST_B, scheme: 'http', use_sitemap: false },
      ],
      log_level: 'silent',
    }),
  );
  return { path, dataDir };
}

async function capture(fn: (io: Terminal) => Promise<number>): Promise<{ code: number; out: string }> {
  const t = testTerminal();
  return { code: await fn(t.io), out: t.stdout() };
}

async function withApp<T>(cfg: { path: string }, fn: (app: App) => T | Promise<T>): Promise<T> {
  const app = await loadApp(parseConfig(JSON.parse(readFileSync(cfg.path, 'utf8'))), { logger: silentLogger });
  try {
    return await fn(app);
  } finally {
    void app.close();
  }
}

describe('svc keys', () => {
  afterEach(() => vi.restoreAllMocks());

  it('create prints the key alone on one line; the store keeps only its hash', async () => {
    const cfg = configFile();
    const { code, out } = await capture((io) => keys(['create', '--name', 'ci', '--config', cfg.path], io));
    expect(code).toBe(0);
    expect(out).toMatch(/^svc_key_[A-Za-z0-9_-]{43}\n$/);
    const key = out.trim();
    await withApp(cfg, async (app) => {
      expect(await verifyApiKey(app.store.sql, key)).toMatchObject({ project: TOKEN, name: 'ci' });
      expect(await verifyApiKey(app.store.sql, `${key}x`)).toBeNull();
      const rows = app.sqlite.db.prepare('SELECT * FROM api_keys').all() as Record<string, unknown>[];
      expect(rows).toEqual([expect.objectContaining({ key_hash: hashSecret(key), name: 'ci', project: TOKEN })]);
      expect(JSON.stringify(rows)).not.toContain(key);
    });
    expect(readFileSync(join(cfg.dataDir, 'svc.db')).includes(Buffer.from(key))).toBe(false);
  });

  it('list shows ids, names, first characters and last use, never keys; revoke refuses one, and says so twice', async () => {
    const cfg = configFile();
    const made = (await capture((io) => keys(['create', '--config', cfg.path], io))).out.trim();
    await capture((io) => keys(['create', '--name', 'second', '--config', cfg.path], io));
    const listed = (await capture((io) => keys(['list', '--config', cfg.path], io))).out;
    expect(listed).toMatch(
      /^1\t\S+\t\tsvc_key_[A-Za-z0-9_-]{4}…\tnever used\n2\t\S+\tsecond\tsvc_key_\S{4}…\tnever used\n$/,
    );
    expect(listed).toContain(`\t${made.slice(0, 12)}…\t`);
    expect(listed).not.toContain(made);
    await withApp(cfg, async (app) => {
      expect(await verifyApiKey(app.store.sql, made)).not.toBeNull();
      expect((await listApiKeys(app.store.sql, TOKEN))[0]!.lastUsedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    });
    await capture((io) => keys(['revoke', '1', '--config', cfg.path], io));
    await withApp(cfg, async (app) => {
      expect(await verifyApiKey(app.store.sql, made)).toBeNull();
      expect((await listApiKeys(app.store.sql, TOKEN)).map((k) => k.name)).toEqual(['second']);
    });
    await expect(keys(['revoke', '1', '--config', cfg.path], testTerminal().io)).rejects.toThrow(
      /key 1 was already revoked/,
    );
    await expect(keys(['revoke', '99', '--config', cfg.path], testTerminal().io)).rejects.toThrow(/no key 99/);
    await expect(keys(['rotate', '--config', cfg.path], testTerminal().io)).rejects.toThrow(/unknown action "rotate"/);
  });
});

describe('svc report', () => {
  afterEach(() => vi.restoreAllMocks());

  it('--json prints the REST form', async () => {
    const cfg = configFile();
    await withApp(cfg, (app) => seedSmallSite(app));
    const { code, out } = await capture((io) => report(['--json', '--config', cfg.path], io));
    expect(code).toBe(0);
    const r = JSON.parse(out);
    expect(r.notFound.count).toBe(3);
    expect(r.targets).toEqual([
      { host: HOST_A, linkTracking: 'all', walkLinks: true, lastCrawlError: null, pages: 2 },
      { host: HOST_B, linkTracking: 'pdf', walkLinks: true, lastCrawlError: null, pages: 1 },
    ]);
    const one = JSON.parse(
      (await capture((io) => report(['--json', '--limit', '1', '--target', HOST_A, '--config', cfg.path], io))).out,
    );
    expect(one.truncated).toBe(true);
    expect(one.notFound.pages).toEqual([
      { url: `https://${HOST_A}/`, links: [expect.objectContaining({ url: `https://${HOST_A}/missing` })] },
    ]);
  });

  it('prints a readable report by reason, then page, with counts, the last full crawl and a pdf-only note', async () => {
    const cfg = configFile();
    await withApp(cfg, (app) => seedSmallSite(app));
    const { out } = await capture((io) => report(['--config', cfg.path], io));
    expect(out).toContain('last full crawl: none completed yet');
    expect(out).toContain(`note: ${HOST_B} tracks only links to PDF documents`);
    expect(out).toMatch(
      /Not found — 3 occurrences\n {2}on http:\/\/b\.example:8080\/\n {4}404 {2}http:\/\/b\.example:8080\/doc\.pdf/,
    );
    expect(out).toContain(`301  https://${HOST_A}/old → https://${HOST_A}/new`);
    expect(out.indexOf('Not found')).toBeLessThan(out.indexOf('Forbidden'));
    expect(out.indexOf('Redirect')).toBeLessThan(out.indexOf('Unknown'));
    expect(out).toContain('6 problem links (8 occurrences) on 3 pages:');
  });

  it('says when the report is truncated; refuses bad --limit and unknown --target', async () => {
    const cfg = configFile();
    await withApp(cfg, (app) => seedMany(app, 10, 5));
    const cut = (await capture((io) => report(['--limit', '7', '--config', cfg.path], io))).out;
    expect(cut).toContain('Showing 7 of 50 occurrences by page (truncated');
    expect(cut).toContain('Not found — 10 occurrences');
    expect(cut).toContain('… 3 more not shown (over the limit)');
    expect(cut).toContain('… 10 more not shown (over the limit)');
    await expect(report(['--limit', '0', '--config', cfg.path], testTerminal().io)).rejects.toThrow(
      /--limit: must be a whole number from 1 to 5000/,
    );
    await expect(report(['--limit', '1.5', '--config', cfg.path], testTerminal().io)).rejects.toThrow(/--limit/);
    await expect(report(['--target', 'nope.example', '--config', cfg.path], testTerminal().io)).rejects.toThrow(
      /^target: "nope.example" is not a configured target/,
    );
  });
});
