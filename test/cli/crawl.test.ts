// `svc crawl` in-process: exit codes, the JSON line on stdout, the summary on stderr, bad input.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  formatProgress,
  ProgressDisplay,
  progressLine,
  progressTotal,
  run,
  summary,
  type ProgressLine,
} from '../../src/cli/crawl.js';
import { CliError } from '../../src/cli/common.js';
import { Store } from '../../src/store/sqlite/store.js';
import { html, send, startSite, writeJson, type TestSite } from '../support/site.js';
import type { Terminal } from '../../src/cli/terminal.js';
import { runSvc, testTerminal } from '../support/cli.js';
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

  /** I/O of a run in this process (`env` its only environment), its writes kept one by one in out and err. */
  function capture(env: Record<string, string> = {}): Terminal {
    out = [];
    err = [];
    const { io } = testTerminal({ env });
    return {
      ...io,
      stdout: { write: (c: string) => out.push(c) },
      stderr: { write: (c: string) => err.push(c) },
    };
  }
  afterEach(() => vi.restoreAllMocks());

  it('runs a full crawl in the foreground: exit 0, the record as one JSON line on stdout, a summary on stderr', async () => {
    const code = await run(['full', '--config', config], capture());
    expect(code).toBe(0);
    expect(out).toHaveLength(1);
    const rec = JSON.parse(out[0]!) as { status: string; mode: string; stats: { pages: number; errors: number } };
    expect(rec).toMatchObject({ status: 'completed', mode: 'full', stats: { pages: 2, errors: 1 } });
    expect(err.join('')).toMatch(
      /crawl \d+ completed: 2 pages, \d+ links \(1 broken\), \d+ problem links? \(\d+ occurrences?\)/,
    );
    const store = new Store(join(dir, 'data', 'svc.db'));
    expect((store.db.prepare('SELECT count(*) AS n FROM pages').get() as { n: number }).n).toBe(2);
    store.close();
  });

  it('manual with URLs crawls them; --site works without a config file', async () => {
    const io = capture({ SVC_DATA_DIR: join(dir, 'site-data') });
    const code = await run(['manual', `${site.origin}/a`, '--site', `${site.origin}/`], io);
    expect(code).toBe(0);
    expect(JSON.parse(out.at(-1)!)).toMatchObject({
      mode: 'manual',
      status: 'completed',
      urls: [`${site.origin}/a`],
    });
  });

  it("on its caller's terminal (isTTY) the log lines are short text above the live line, which the summary replaces", async () => {
    const t = testTerminal({ env: { SVC_LOG_LEVEL: 'info' }, tty: true });
    expect(await run(['full', '--config', config], t.io)).toBe(0);
    const screen = t.stderr();
    expect(screen).toMatch(/\r\x1b\[2K\d\d:\d\d:\d\d INFO {2}crawl started crawl=\d+ mode=full/);
    expect(screen).not.toContain('{"level"');
    expect(screen).toMatch(/\r\x1b\[2Kcrawl \d+ \(full\) · 2 pages · /);
    expect(screen).toMatch(/\r\x1b\[2Kcrawl \d+ completed: 2 pages\b/);
    expect(JSON.parse(t.stdout())).toMatchObject({ status: 'completed', mode: 'full' });
  });

  it('refuses bad input with exit status 2 and a message naming the rule', async () => {
    const io = capture();
    await expect(run(['sideways', '--config', config], io)).rejects.toThrow(/unknown mode "sideways"/);
    await expect(run(['manual', '--config', config], io)).rejects.toThrow(/manual: give the full URLs/);
    const e = await run(['manual', 'https://elsewhere.example/x', '--config', config], io).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CliError);
    expect(e).toMatchObject({ exitCode: 2 });
    expect((e as Error).message).toMatch(/urls\[0\]: host elsewhere\.example is not a configured target/);
    await expect(run(['full', `${site.origin}/a`, '--config', config], io)).rejects.toThrow(
      /urls: is only allowed with mode manual/,
    );
  });

  const line = (over: Partial<ProgressLine>): ProgressLine => ({
    mode: 'full',
    id: 3,
    pages: 120,
    links: 300,
    broken: 3,
    done: 130,
    total: null,
    queued: 45,
    elapsedMs: 2000,
    ...over,
  });

  it('formats the progress line in the units of the record: pages stored, links (broken), no total when unknown', () => {
    expect(formatProgress(line({}))).toBe(
      'crawl 3 (full) · 120 pages · 300 links (3 broken) · 45 queued · 60.0 pages/s · 2.0 s',
    );
    expect(formatProgress(line({ id: 1, pages: 1, links: 1, broken: 0, queued: 0, elapsedMs: 1000 }))).toBe(
      'crawl 1 (full) · 1 page · 1 link (0 broken) · 0 queued · 1.0 pages/s · 1.0 s',
    );
  });

  it('shows a total and a percentage only when the total is known, and the done count never above it', () => {
    expect(formatProgress(line({ mode: 'manual', id: 4, pages: 3, done: 3, total: 8, elapsedMs: 1500 }))).toMatch(
      /^crawl 4 \(manual\) · 3 of 8 URLs \(37%\) · 3 pages ·/,
    );
    expect(formatProgress(line({ mode: 'manual', done: 1, total: 1 }))).toContain('· 1 of 1 URL (100%) ·');
    // A redirect followed or a retry: more fetches than URLs given — never "3 of 2".
    expect(formatProgress(line({ mode: 'manual', done: 3, total: 2 }))).toContain('· 2 of 2 URLs (100%) ·');
    expect(formatProgress(line({ mode: 'manual', done: 0, total: 0 }))).not.toMatch(/ of /);
    expect(formatProgress(line({ done: 202, total: null }))).not.toMatch(/ of |%/);
  });

  it("takes the total from a manual crawl's URLs only; progressLine keeps done ≤ total", () => {
    expect(progressTotal({ mode: 'manual', urls: ['a', 'b', 'c'] })).toBe(3);
    // A full or partial crawl finds its pages as it goes: its size is not known.
    expect(progressTotal({ mode: 'full' })).toBeNull();
    expect(progressTotal({ mode: 'partial' })).toBeNull();
    const p = {
      pagesDone: 5,
      queued: 0,
      pagesQueued: 0,
      errors: 0,
      linksChecked: 9,
      requests: 6,
      elapsedMs: 10,
      stats: { pages: 4, links: 9, errors: 1 },
    };
    expect(progressLine({ id: 1, mode: 'manual', urls: ['a', 'b'] }, p)).toMatchObject({
      done: 2,
      total: 2,
      pages: 4,
      links: 9,
      broken: 1,
    });
    expect(progressLine({ id: 1, mode: 'full' }, p)).toMatchObject({ done: 5, total: null, pages: 4 });
  });

  it('on a terminal prints each log line readable above the live line, then draws the live line again', () => {
    const written: string[] = [];
    const display = new ProgressDisplay({ write: (s: string) => written.push(s) }, true);
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
    expect(summary(rec)).toBe('crawl 2 completed: 1 page, 1 link (1 broken)');
    const reasons = {
      not_found: { problemLinks: 1, occurrences: 2 },
      forbidden: { problemLinks: 0, occurrences: 0 },
      server_error: { problemLinks: 0, occurrences: 0 },
      redirect: { problemLinks: 1, occurrences: 1 },
      unknown: { problemLinks: 0, occurrences: 0 },
    };
    expect(
      summary({ ...rec, stats: { pages: 2, links: 3, errors: 1, problemLinks: 2, occurrences: 3, reasons } }),
    ).toBe(
      'crawl 2 completed: 2 pages, 3 links (1 broken), 2 problem links (3 occurrences)\n' +
        '  by reason: not_found 1 (2 occurrences), redirect 1 (1 occurrence)',
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
      // A full crawl's size is not known while it runs: no "N of M", no percentage.
      expect(stderr).toMatch(
        /^crawl \d+ \(full\) · \d+ pages? · \d+ links? \(\d+ broken\) · \d+ queued · [\d.]+ pages\/s · [\d.]+ s$/m,
      );
      expect(stderr).not.toMatch(/ of \d+|%/);
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
