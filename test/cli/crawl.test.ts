// `svc crawl` in-process: exit codes, the JSON line on stdout, the summary on stderr, bad input.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { formatProgress, run } from '../../src/cli/crawl.js';
import { CliError } from '../../src/cli/common.js';
import { Store } from '../../src/store/sqlite/store.js';
import { html, send, startSite, writeJson, type TestSite } from '../crawler/site.js';
import { ROOT, SERVER_JS } from '../paths.js';

describe('svc crawl', () => {
  let site: TestSite;
  let dir: string;
  let config: string;
  let out: string[];
  let err: string[];

  beforeAll(async () => {
    site = await startSite({ '/': html('<a href="/a">a</a> <a href="/missing">m</a>'), '/a': html('<p>a</p>'), '/missing': send(404) });
    dir = mkdtempSync(join(tmpdir(), 'svc-cli-crawl-'));
    config = writeJson(dir, 'svc.json', {
      project: { public_token: 'cli12345:eu-north-1' },
      data_dir: join(dir, 'data'),
      targets: [{ host: site.host, scheme: 'http', track_links: 'all', request_timeout_ms: 1000 }],
      log_level: 'silent',
    });
  });
  afterAll(async () => {
    await site.close();
  });

  function capture() {
    out = [];
    err = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((c: string | Uint8Array) => (out.push(String(c)), true));
    vi.spyOn(process.stderr, 'write').mockImplementation((c: string | Uint8Array) => (err.push(String(c)), true));
  }
  afterEach(() => vi.restoreAllMocks());

  it('runs a full crawl in the foreground: exit 0, the record as one JSON line on stdout, a summary on stderr', async () => {
    capture();
    const code = await run(['full', '--config', config]);
    vi.restoreAllMocks();
    expect(code).toBe(0);
    expect(out).toHaveLength(1);
    const rec = JSON.parse(out[0]!) as { status: string; mode: string; stats: { pages: number; errors: number } };
    expect(rec).toMatchObject({ status: 'completed', mode: 'full', stats: { pages: 2, errors: 1 } });
    expect(err.join('')).toMatch(/crawl \d+ completed: 2 pages, \d+ links checked, 1 broken/);
    const store = new Store(join(dir, 'data', 'svc.db'));
    expect((store.db.prepare('SELECT count(*) AS n FROM pages').get() as { n: number }).n).toBe(2);
    store.close();
  });

  it('manual with URLs crawls them; --site works without a config file', async () => {
    const prev = process.env.SVC_DATA_DIR;
    process.env.SVC_DATA_DIR = join(dir, 'site-data');
    capture();
    try {
      const code = await run(['manual', `${site.origin}/a`, '--site', `${site.origin}/`]);
      vi.restoreAllMocks();
      expect(code).toBe(0);
      expect(JSON.parse(out.at(-1)!)).toMatchObject({ mode: 'manual', status: 'completed', urls: [`${site.origin}/a`] });
    } finally {
      if (prev === undefined) delete process.env.SVC_DATA_DIR;
      else process.env.SVC_DATA_DIR = prev;
    }
  });

  it('refuses bad input with exit status 2 and a message naming the rule', async () => {
    await expect(run(['sideways', '--config', config])).rejects.toThrow(/unknown mode "sideways"/);
    await expect(run(['manual', '--config', config])).rejects.toThrow(/manual: give the full URLs/);
    const e = await run(['manual', 'https://elsewhere.example/x', '--config', config]).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CliError);
    expect(e).toMatchObject({ exitCode: 2 });
    expect((e as Error).message).toMatch(/urls\[0\]: host elsewhere\.example is not a configured target/);
    await expect(run(['full', `${site.origin}/a`, '--config', config])).rejects.toThrow(/urls: is only allowed with mode manual/);
  });

  it('formats the progress line', () => {
    expect(formatProgress({ mode: 'full', id: 3, pagesDone: 120, queued: 45, errors: 3, elapsedMs: 2000 })).toBe(
      'crawl 3 (full) · 120 pages · 45 queued · 3 errors · 60.0 pages/s · 2.0 s',
    );
  });
});

describe('svc crawl from the build (worker threads)', () => {
  const CLI = SERVER_JS;

  it('crawls with the compiled worker scripts, prints plain progress lines when not on a terminal, and exits 0', async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first (npm test does)`);
    expect(existsSync(join(ROOT, 'dist/src/store/sqlite/writer-worker.js'))).toBe(true);
    const links = Array.from({ length: 30 }, (_, i) => `<a href="/p${i}">p${i}</a>`).join(' ');
    const site = await startSite({ '/': html(`${links} <a href="/gone">g</a>`), '/gone': send(410) }, (_req, res, url) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>Page ${url.pathname}</title><p>words on ${url.pathname.slice(1)}</p>`);
    });
    const dir = mkdtempSync(join(tmpdir(), 'svc-cli-build-'));
    const config = writeJson(dir, 'svc.json', {
      data_dir: join(dir, 'data'),
      targets: [{ host: site.host, scheme: 'http', track_links: 'all', request_timeout_ms: 2000 }],
      log_level: 'warn',
    });
    try {
      const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [CLI, 'crawl', 'full', '--config', config], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        child.stdout.on('data', (c: Buffer) => (out += c));
        child.stderr.on('data', (c: Buffer) => (err += c));
        child.on('close', (c) => resolve({ code: c, stdout: out, stderr: err }));
      });
      expect(code, stderr).toBe(0);
      expect(stderr).toMatch(/^crawl \d+ \(full\) · \d+ pages · \d+ queued · \d+ errors · [\d.]+ pages\/s · [\d.]+ s$/m);
      expect(stderr).not.toContain('\r');
      expect(JSON.parse(stdout.trim())).toMatchObject({ status: 'completed', stats: { pages: 31, errors: 1 } });
      const store = new Store(join(dir, 'data', 'svc.db'), { readonly: true });
      expect((store.db.prepare('SELECT count(*) AS n FROM links').get() as { n: number }).n).toBe(31);
      expect((store.db.prepare(`SELECT reason FROM link_outcomes WHERE url = ?`).get(`${site.origin}/gone`) as { reason: string }).reason).toBe('not_found');
      expect((store.db.prepare(`SELECT count(*) AS n FROM pages_fts WHERE pages_fts MATCH 'words'`).get() as { n: number }).n).toBe(30);
      store.close();
    } finally {
      await site.close();
    }
  });
});
