// `svc links <DIR|URL>` as a CI job runs it (the first case spawns the build; the rest run in this process): a
// generated folder with known broken links, missing fragments and extensionless links; --base-url; remap, accept and
// retries from a config; exit codes; bad input.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/app.js';
import { crawlsIn, runHere, runSvc } from '../support/cli.js';
import { hang, html, startSite, type TestSite } from '../support/site.js';
import { DEFAULT_PUBLIC_TOKEN } from '../../src/model/config.js';

/** A built site: 4 broken links (one of them in a stylesheet), one missing fragment, extensionless links that work. */
function writeSite(): string {
  const dir = tempDir('svc-links-site-');
  const put = (path: string, body: string) => {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), body);
  };
  put(
    'index.html',
    `<!doctype html><html><head><title>Home</title><link rel="stylesheet" href="/style.css"></head><body>
<a href="docs/">Docs</a> <a href="about">About</a> <a href="missing.html">Missing</a>
<a href="/about#team">Team</a> <a href="docs/guide">Guide</a> <a href="https://site.example/docs/guide">Abs</a>
<a href="https://site.example/nowhere.html">Abs missing</a></body></html>`,
  );
  put('style.css', 'body { background: url(/img/nope.png) }');
  put(
    'about.html',
    '<!doctype html><title>About</title><h2 id="team">Team</h2><a href="/">Home</a> <a href="gone/">Gone</a>',
  );
  put(
    'docs/index.html',
    '<!doctype html><title>Docs</title><a href="../about.html#nowhere">Bad anchor</a> <a href="readme.md">Readme</a>',
  );
  put('docs/guide.html', '<!doctype html><title>Guide</title><a href="index.html">Docs</a>');
  put('docs/readme.html', '<!doctype html><title>Readme</title>Read me.');
  return dir;
}

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** svc links in this process, with the log level its user would have (none set). */
const svc = (args: string[]): Promise<Run> => runHere(args, { env: { SVC_LOG_LEVEL: undefined } });
/** The same, the built svc spawned as a CI job runs it (the first case: the binary's wiring of the command). */
const spawned = (args: string[]): Promise<Run> => runSvc(args, { env: { SVC_LOG_LEVEL: undefined } });

function writeConfig(
  over: Record<string, unknown>,
  targetOver: Record<string, unknown> = {},
): {
  path: string;
  dataDir: string;
} {
  const dir = tempDir('svc-links-cfg-');
  const dataDir = join(dir, 'data');
  const path = join(dir, 'svc.json');
  writeFileSync(
    path,
    JSON.stringify({
      data_dir: dataDir,
      log_level: 'warn',
      targets: [{ host: 'placeholder.invalid', ...targetOver }],
      ...over,
    }),
  );
  return { path, dataDir };
}

describe('svc links on a folder', { timeout: 120_000 }, () => {
  let site: string;
  beforeAll(() => {
    site = writeSite();
  });

  it('reports the broken links, the missing fragment and nothing that works; --fail-on decides the exit status', async () => {
    const r = await spawned(['links', site, '--base-url', 'https://site.example/', '--fail-on', 'not_found']);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toContain('svc links: failing on not_found');
    const out = r.stdout;
    for (const broken of ['/missing.html', '/gone/', '/img/nope.png', '/docs/readme.md', '/about.html#nowhere'])
      expect(out, broken).toContain(broken);
    expect(out).toContain('missing fragment #nowhere');
    // Remapped into the folder: kept as written, checked where it maps to.
    expect(out).toContain('https://site.example/nowhere.html');
    expect(out).toMatch(/checked at http:\/\/127\.0\.0\.1:\d+\/nowhere\.html/);
    // Extensionless links, a fragment that exists, and an absolute link to a page that exists are fine.
    for (const fine of ['/about ', '/about#team', '/docs/guide ', 'https://site.example/docs/guide '])
      expect(out, fine).not.toContain(fine);

    const none = await svc(['links', site, '--base-url', 'https://site.example/', '--fail-on', 'redirect']);
    expect(none.status, none.stderr).toBe(0);
    const noFailOn = await svc(['links', site, '--base-url', 'https://site.example/']);
    expect(noFailOn.status, noFailOn.stderr).toBe(0);
  });

  it('writes SARIF and Markdown in one run (--format/--output pairs)', async () => {
    const dir = tempDir('svc-links-out-');
    const sarif = join(dir, 'links.sarif');
    const md = join(dir, 'links.md');
    const r = await svc([
      'links',
      site,
      '--format',
      'markdown',
      '--output',
      md,
      '--format',
      'sarif',
      '--output',
      sarif,
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    const log = JSON.parse(readFileSync(sarif, 'utf8'));
    expect(log.version).toBe('2.1.0');
    const uris = JSON.stringify(log.runs[0].results);
    expect(uris).toContain('/missing.html');
    expect(readFileSync(md, 'utf8')).toContain('/missing.html');
  });

  it('keeps its data in --data-dir: a repeat run revalidates the same URLs', async () => {
    const dataDir = join(tempDir('svc-links-data-'), 'data');
    const first = await svc(['links', site, '--data-dir', dataDir, '--format', 'json']);
    expect(first.status, first.stderr).toBe(0);
    const again = await svc(['links', site, '--data-dir', dataDir, '--format', 'json']);
    expect(again.status, again.stderr).toBe(0);
    const crawls = await crawlsIn(join(dataDir, 'svc.db'), DEFAULT_PUBLIC_TOKEN);
    expect(crawls.length).toBe(2);
    const latest = crawls.at(-1)!;
    expect(latest.stats.pages).toBeGreaterThan(0);
    expect((latest.stats.notModified ?? 0) + (latest.stats.unchanged ?? 0)).toBe(latest.stats.pages);
  });

  it('a config remap is applied before the fetch (.md → .html): the link is fine, reported nowhere', async () => {
    const cfg = writeConfig({}, { remap: [['\\.md$', '.html']] });
    const r = await svc(['links', site, '--config', cfg.path]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('readme.md');
    expect(r.stdout).toContain('/missing.html');
  });
});

describe('svc links on a URL: accept and retries', { timeout: 120_000 }, () => {
  let site: TestSite;
  let flakyHits = 0;
  beforeAll(async () => {
    site = await startSite({
      '/': html('<a href="/blocked">Blocked</a> <a href="/flaky">Flaky</a> <a href="/ok">Ok</a>'),
      '/ok': html('fine'),
      '/blocked': (_req, res) => void res.writeHead(403).end('no bots'),
      '/flaky': (_req, res) => {
        flakyHits++;
        if (flakyHits <= 2) res.writeHead(503).end('busy');
        else res.writeHead(200, { 'content-type': 'text/html' }).end('<p>back</p>');
      },
      '/slow': hang,
    });
    return () => site.close();
  });

  it('accept counts a host’s 403 as fine; retries try a 5xx again until it answers, counted in the crawl record', async () => {
    const before = await svc(['links', `${site.origin}/`, '--fail-on', 'forbidden,server_error']);
    expect(before.status).toBe(1);
    expect(before.stdout).toContain('/blocked');
    expect(before.stdout).toContain('/flaky');

    flakyHits = 0;
    const cfg = writeConfig(
      {},
      {
        host: site.host,
        scheme: 'http',
        accept: { '127.0.0.1': [403] },
        retries: { count: 3, base_ms: 10 },
      },
    );
    const r = await svc(['links', `${site.origin}/`, '--config', cfg.path, '--fail-on', 'forbidden,server_error']);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(flakyHits).toBeGreaterThanOrEqual(3);
    const [crawl] = await crawlsIn(join(cfg.dataDir, 'svc.db'), DEFAULT_PUBLIC_TOKEN);
    expect(crawl!.stats.retries).toBe(2);
  });
});

describe('svc links: a plain-HTTP site given as https', { timeout: 60_000 }, () => {
  it('names scheme: "http" once, and exits 1', async () => {
    const site = await startSite({ '/': html('<p>plain</p>') });
    try {
      const r = await svc(['links', `https://${site.host}/`]);
      expect(r.status).toBe(1);
      expect(r.stderr.split('scheme: "http"').length - 1, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/WRONG_VERSION_NUMBER/);
    } finally {
      await site.close();
    }
  });
});

describe('svc links: bad input exits 2 naming the field and the rule, and stores nothing', { timeout: 60_000 }, () => {
  const cases: [string, () => { args: string[]; dataDir?: string }, RegExp][] = [
    ['a folder that does not exist', () => ({ args: ['links', '/nonexistent/svc-links'] }), /DIR: .* does not exist/],
    [
      'a folder without HTML',
      () => {
        const dir = tempDir('svc-links-empty-');
        writeFileSync(join(dir, 'notes.txt'), 'no html');
        return { args: ['links', dir] };
      },
      /DIR: .* holds no HTML file/,
    ],
    [
      'a --base-url that is not http(s)',
      () => ({ args: ['links', writeSite(), '--base-url', 'ftp://example.org/'] }),
      /--base-url: must be an http or https URL/,
    ],
    [
      'a remap regex that does not compile',
      () => {
        const cfg = writeConfig({}, { remap: [['(', 'x']] });
        return { args: ['links', writeSite(), '--config', cfg.path], dataDir: cfg.dataDir };
      },
      /targets\[0\]\.remap\[0\]\[0\]: must be a valid regular expression/,
    ],
    [
      'an accept code outside 100–599',
      () => {
        const cfg = writeConfig({}, { accept: { 'github.com': [429, 700] } });
        return { args: ['links', writeSite(), '--config', cfg.path], dataDir: cfg.dataDir };
      },
      /targets\[0\]\.accept\.github\.com\[1\]: must be a status code from 100 to 599/,
    ],
    [
      'retries.count above 10',
      () => {
        const cfg = writeConfig({}, { retries: { count: 11 } });
        return { args: ['links', writeSite(), '--config', cfg.path], dataDir: cfg.dataDir };
      },
      /targets\[0\]\.retries\.count: must be at most 10/,
    ],
  ];
  it.each(cases)('%s', async (_name, make, message) => {
    const { args, dataDir } = make();
    const r = await svc(args);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
    if (dataDir) expect(existsSync(dataDir)).toBe(false);
  });
});

describe('svc links: a retry that never answers ends', { timeout: 60_000 }, () => {
  it('a link that always times out is tried count+1 times and reported, not waited for forever', async () => {
    const site = await startSite({ '/': html('<a href="/slow">Slow</a>'), '/slow': hang });
    try {
      const cfg = writeConfig(
        {},
        { host: site.host, scheme: 'http', request_timeout_ms: 300, retries: { count: 2, base_ms: 10 } },
      );
      const r = await svc(['links', `${site.origin}/`, '--config', cfg.path, '--fail-on', 'server_error']);
      expect(r.status).toBe(1);
      expect(r.stdout).toContain('timed out');
      // A page of the site: fetched once and retried twice, then given up on.
      expect(site.hitCount('/slow', 'GET'), site.log.join(', ')).toBe(3);
      const [crawl] = await crawlsIn(join(cfg.dataDir, 'svc.db'), DEFAULT_PUBLIC_TOKEN);
      expect(crawl!.stats.retries).toBe(2);
    } finally {
      await site.close();
    }
  });
});
