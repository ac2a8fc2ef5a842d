// `svc crawl` in-process: exit codes, the JSON line on stdout, the summary on stderr, bad input.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { formatProgress, run } from '../../src/cli/crawl.js';
import { CliError } from '../../src/cli/common.js';
import { Store } from '../../src/backend/store/store.js';
import { html, send, startSite, writeJson, type TestSite } from './site.js';

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
    await expect(run(['full', `${site.origin}/a`, '--config', config])).rejects.toThrow(/urls: only allowed when mode is manual/);
  });

  it('formats the progress line', () => {
    expect(formatProgress({ mode: 'full', id: 3, pagesDone: 120, queued: 45, errors: 3, elapsedMs: 2000 })).toBe(
      'crawl 3 (full) · 120 pages · 45 queued · 3 errors · 60.0 pages/s · 2.0 s',
    );
  });
});
