// `svc crawl` in-process: exit codes, the JSON line on stdout, the summary on stderr, bad input.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { formatProgress, ProgressDisplay, progressTotal, run, summary } from '../../src/cli/crawl.js';
import { CliError } from '../../src/cli/common.js';
import { Store } from '../../src/store/sqlite/store.js';
import { html, send, startSite, writeJson, type TestSite } from '../support/site.js';
import { runSvc } from '../support/cli.js';
import { ROOT, SERVER_JS } from '../support/paths.js';

describe('svc crawl', () => {
  let site: TestSite;
  let dir: string;
  let config: string;
  let out: string[];
  let err: string[];

  beforeAll(async () => {
    site = await startSite({
      '/': html('<a href="/a">a</a> <a href="/missing">m</a>'),
      '/a': html('<p>a</p>'),
      '/missing': send(404),
    });
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
      expect(JSON.parse(out.at(-1)!)).toMatchObject({
        mode: 'manual',
        status: 'completed',
        urls: [`${site.origin}/a`],
      });
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
    await expect(run(['full', `${site.origin}/a`, '--config', config])).rejects.toThrow(
      /urls: is only allowed with mode manual/,
    );
  });

  it('formats the progress line', () => {
    expect(
      formatProgress({ mode: 'full', id: 3, pagesDone: 120, pagesTotal: null, queued: 45, errors: 3, elapsedMs: 2000 }),
    ).toBe('crawl 3 (full) · 120 pages · 45 queued · 3 errors · 60.0 pages/s · 2.0 s');
  });

  it('says "1 page" and "1 error", and "0 errors"', () => {
    expect(
      formatProgress({ mode: 'full', id: 1, pagesDone: 1, pagesTotal: null, queued: 0, errors: 1, elapsedMs: 1000 }),
    ).toBe('crawl 1 (full) · 1 page · 0 queued · 1 error · 1.0 pages/s · 1.0 s');
    expect(
      formatProgress({ mode: 'full', id: 1, pagesDone: 0, pagesTotal: null, queued: 2, errors: 0, elapsedMs: 0 }),
    ).toBe('crawl 1 (full) · 0 pages · 2 queued · 0 errors · 0.0 pages/s · 0.0 s');
  });

  it('shows the total and a percentage when the total is known, never above 100%', () => {
    expect(
      formatProgress({ mode: 'manual', id: 4, pagesDone: 3, pagesTotal: 8, queued: 5, errors: 2, elapsedMs: 1500 }),
    ).toBe('crawl 4 (manual) · 3 of 8 pages (37%) · 5 queued · 2 errors · 2.0 pages/s · 1.5 s');
    expect(
      formatProgress({ mode: 'manual', id: 4, pagesDone: 1, pagesTotal: 1, queued: 0, errors: 0, elapsedMs: 1000 }),
    ).toContain('· 1 of 1 page (100%) ·');
    expect(
      formatProgress({ mode: 'manual', id: 4, pagesDone: 3, pagesTotal: 2, queued: 0, errors: 0, elapsedMs: 1000 }),
    ).toContain('· 3 of 2 pages (100%) ·');
    expect(
      formatProgress({ mode: 'manual', id: 4, pagesDone: 0, pagesTotal: 0, queued: 0, errors: 0, elapsedMs: 1000 }),
    ).toContain('· 0 pages ·');
  });

  it("takes the total from a manual crawl's URLs, or from the pages done and waiting (the sitemap seeds them)", () => {
    expect(progressTotal({ mode: 'manual', urls: ['a', 'b', 'c'] }, { pagesDone: 1, pagesQueued: 9 })).toBe(3);
    expect(progressTotal({ mode: 'full' }, { pagesDone: 40, pagesQueued: 60 })).toBe(100);
    expect(progressTotal({ mode: 'partial' }, { pagesDone: 0, pagesQueued: 0 })).toBe(0);
    // A service that does not tell its waiting pages: no total, no percentage.
    expect(progressTotal({ mode: 'full' }, { pagesDone: 5 })).toBeNull();
  });

  it('on a terminal prints each log line readable above the live line, then draws the live line again', () => {
    const written: string[] = [];
    const display = new ProgressDisplay(
      { write: (s: string) => written.push(s) } as unknown as NodeJS.WriteStream,
      true,
    );
    display.update('crawl 1 (full) · 5 pages');
    display.log(
      `${JSON.stringify({ level: 30, time: Date.UTC(2026, 0, 1, 12, 3, 4), pid: 1, hostname: 'h', svc: 'svc', crawl: 1, msg: 'crawl ended' })}\n`,
    );
    display.done('crawl 1 completed');
    const screen = written.join('');
    expect(screen).toMatch(
      /^\r\x1b\[2Kcrawl 1 \(full\) · 5 pages\r\x1b\[2K\d\d:\d\d:\d\d INFO {2}crawl ended crawl=1\ncrawl 1 \(full\) · 5 pages\r\x1b\[2Kcrawl 1 completed\n$/,
    );
    expect(screen).not.toContain('{');
  });

  it('counts the closing line right in the singular', () => {
    const rec = {
      id: 2,
      mode: 'full',
      status: 'completed',
      startedAt: null,
      finishedAt: null,
      stats: { pages: 1, links: 1, errors: 1 },
    } as const;
    expect(summary(rec, 1)).toBe('crawl 2 completed: 1 page, 1 link checked, 1 broken link on pages (1 distinct URL)');
    expect(summary({ ...rec, stats: { pages: 2, links: 3, errors: 2 } }, null)).toBe(
      'crawl 2 completed: 2 pages, 3 links checked, 2 broken (distinct URLs)',
    );
  });
});

describe('svc crawl from the build (worker threads)', () => {
  const CLI = SERVER_JS;

  it('crawls with the compiled worker scripts, prints plain progress lines when not on a terminal, and exits 0', async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first (npm test does)`);
    expect(existsSync(join(ROOT, 'dist/src/store/sqlite/writer-worker.js'))).toBe(true);
    const links = Array.from({ length: 30 }, (_, i) => `<a href="/p${i}">p${i}</a>`).join(' ');
    const site = await startSite(
      { '/': html(`${links} <a href="/gone">g</a>`), '/gone': send(410) },
      (_req, res, url) => {
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(`<title>Page ${url.pathname}</title><p>words on ${url.pathname.slice(1)}</p>`);
      },
    );
    const dir = mkdtempSync(join(tmpdir(), 'svc-cli-build-'));
    const config = writeJson(dir, 'svc.json', {
      data_dir: join(dir, 'data'),
      targets: [{ host: site.host, scheme: 'http', track_links: 'all', request_timeout_ms: 2000 }],
      log_level: 'warn',
    });
    try {
      const {
        status: code,
        stdout,
        stderr,
      } = await runSvc(['crawl', 'full', '--config', config], { env: { SVC_LOG_LEVEL: undefined } });
      expect(code, stderr).toBe(0);
      expect(stderr).toMatch(
        /^crawl \d+ \(full\) · \d+ of \d+ pages? \(\d+%\) · \d+ queued · \d+ errors? · [\d.]+ pages\/s · [\d.]+ s$/m,
      );
      expect(stderr).not.toContain('\r');
      expect(JSON.parse(stdout.trim())).toMatchObject({ status: 'completed', stats: { pages: 31, errors: 1 } });
      const store = new Store(join(dir, 'data', 'svc.db'), { readonly: true });
      expect((store.db.prepare('SELECT count(*) AS n FROM links').get() as { n: number }).n).toBe(31);
      expect(
        (
          store.db.prepare(`SELECT reason FROM link_outcomes WHERE url = ?`).get(`${site.origin}/gone`) as {
            reason: string;
          }
        ).reason,
      ).toBe('not_found');
      expect(
        (store.db.prepare(`SELECT count(*) AS n FROM pages_fts WHERE pages_fts MATCH 'words'`).get() as { n: number })
          .n,
      ).toBe(30);
      store.close();
    } finally {
      await site.close();
    }
  });
});
