// `svc links <DIR|URL>`: the one command a CI job needs. A folder is served on loopback and crawled; a URL is
// crawled as it is. One full crawl that checks every link, then the link report as `svc report` prints it, with its
// --fail-on exit status. Its data lives in a temporary folder unless --config or --data-dir names one.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { App } from '../app/open-app.js';
import { folderHasHtml, serveFolder, type FolderServer } from '../lib/folder-server.js';
import { createLogger } from '../lib/log.js';
import { type Config, type TargetConfig, TargetSchema } from '../model/config.js';
import { REPORT_LIMIT } from '../model/limits.js';
import type { CrawlRecord } from '../model/types.js';
import { REPORT_REASONS } from '../model/link-reasons.js';
import { formatZodIssues } from '../lib/zod-issues.js';
import { REPORT_FORMATS, type ReportFormat } from '../backend/report/formats/index.js';
import { CliError, intOption, parse, readProjectConfig, toCliError } from './common.js';
import { crawlExitCode, followCrawl, ProgressDisplay, summary } from './crawl.js';
import { failOnStatus, parseFailOn, parseFormat, writeReport } from './report.js';
import type { Terminal } from './terminal.js';

const USAGE = `usage: svc links <DIR|URL> [--base-url URL] [--format F] [--output FILE] [--fail-on REASONS]
                 [--config F | --data-dir DIR] [--limit N]

Checks every link of a built site's folder (served on 127.0.0.1 while it runs) or of a live site, with one
full crawl, and prints the link report.

  DIR                 a folder holding the site's HTML: index files answer for directories, x.html for an
                      extensionless link x, and anything missing is a 404
  URL                 an http(s) URL: the site is crawled from there
  --base-url URL      the site's own origin (e.g. https://example.org/): its absolute links are checked in the folder
  --format F          ${REPORT_FORMATS.join(', ')} (default text)
  --output FILE       write the report to FILE instead of standard output; several reports: repeat the pair
                      (--format markdown --output links.md --format sarif --output links.sarif)
  --fail-on REASONS   exit 1 when the report holds a link of one of these reasons (comma-separated:
                      ${REPORT_REASONS.join(', ')})
  --limit N           most links shown, 1 to 5000 (default 1000); counts are always complete
  --config F          a config: its data_dir keeps the data (a repeat run revalidates), and its first target's
                      (or the URL's target's) settings apply: remap, accept, retries, skip_link_patterns, …
  --data-dir DIR      keep the data here (a repeat run revalidates); without it or --config, a temporary folder

Progress goes to stderr. Exit status: 0 when the crawl completed and no --fail-on reason is present, 1 on a
--fail-on reason or a site that could not be crawled, 2 on bad input.
`;

/**
 * The reports to write: each --format with the --output at its place (`--format markdown --output a.md --format
 * sarif --output b.sarif`); one format may go to stdout, with no --output.
 */
export function reportOutputs(
  formats: string[],
  outputs: string[],
  json: boolean,
): { format: ReportFormat; output: string | undefined }[] {
  if (outputs.some((o) => o === '')) throw new CliError('--output: give a file name');
  if (formats.length <= 1 && outputs.length <= 1)
    return [{ format: parseFormat(formats[0], json), output: outputs[0] }];
  if (formats.length !== outputs.length)
    throw new CliError(
      `--format/--output: give each report its own pair (${formats.length} --format, ${outputs.length} --output)`,
    );
  return formats.map((f, i) => ({ format: parseFormat(f, json), output: outputs[i] }));
}

/** What a run checks: a folder (served on loopback) or a live URL. */
type Subject = { kind: 'folder'; dir: string } | { kind: 'url'; url: URL };

async function subjectOf(arg: string): Promise<Subject> {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(arg)) {
    let url: URL;
    try {
      url = new URL(arg);
    } catch {
      throw new CliError(`URL: "${arg}" is not a valid URL (e.g. https://example.org/)`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new CliError(`URL: must be an http or https URL, not ${url.protocol}`);
    return { kind: 'url', url };
  }
  const dir = resolve(arg);
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    throw new CliError(`DIR: ${dir} does not exist (give a folder of HTML files or an http(s) URL)`);
  }
  if (!isDir) throw new CliError(`DIR: ${dir} is not a folder (give a folder of HTML files or an http(s) URL)`);
  if (!(await folderHasHtml(dir)))
    throw new CliError(`DIR: ${dir} holds no HTML file (.html or .htm): nothing to check there`);
  return { kind: 'folder', dir };
}

function baseUrlOf(value: string | boolean | undefined): URL | null {
  if (value === undefined) return null;
  if (typeof value !== 'string' || !value) throw new CliError('--base-url: give the URL, e.g. https://example.org/');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`--base-url: "${value}" is not a full URL (e.g. https://example.org/)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CliError(`--base-url: must be an http or https URL, not ${url.protocol}`);
  url.search = '';
  url.hash = '';
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The one target of the run: the config's target for the URL's host (or, for a folder, its first target) with
 * host, scheme and start path set, every link tracked, and --base-url's origin remapped into the folder first.
 */
export function linksTarget(
  config: Config,
  site: URL,
  baseUrl: URL | null,
  folder: boolean,
): { target: TargetConfig } | { problems: string[] } {
  const template = folder ? config.targets[0] : config.targets.find((t) => t.host === site.host.toLowerCase());
  const remap: [string, string][] = [...(template?.remap ?? []).map(([a, b]) => [a, b] as [string, string])];
  if (baseUrl) remap.unshift([`^${escapeRegExp(baseUrl.href)}`, `${site.origin}/`]);
  const parsed = TargetSchema.safeParse({
    ...template,
    host: site.host,
    scheme: site.protocol.slice(0, -1),
    start_paths: [site.pathname || '/'],
    track_links: 'all',
    // A folder has no robots.txt or sitemap that means anything to a CI check of its files.
    ...(folder ? { respect_robots_txt: false } : {}),
    // Links to a missing #fragment are broken links too, unless the config's target says otherwise.
    check_fragments: template ? template.check_fragments : true,
    remap,
  });
  if (!parsed.success) return { problems: formatZodIssues(parsed.error).map((p) => `targets[0].${p}`) };
  return { target: parsed.data };
}

/** Where a folder was served the last time this data directory was used: the same port keeps the same URLs. */
const SITE_FILE = 'links-folder.json';

function previousPort(dataDir: string, dir: string): number {
  try {
    const saved = JSON.parse(readFileSync(join(dataDir, SITE_FILE), 'utf8')) as { dir?: string; port?: number };
    return saved.dir === dir && Number.isInteger(saved.port) ? saved.port! : 0;
  } catch {
    return 0;
  }
}

export async function run(argv: string[], io: Terminal): Promise<number> {
  const { values, positionals } = parse(argv, {
    'base-url': { type: 'string' },
    'data-dir': { type: 'string' },
    format: { type: 'string', multiple: true },
    json: { type: 'boolean' },
    output: { type: 'string', multiple: true },
    'fail-on': { type: 'string' },
    limit: { type: 'string' },
  });
  if (values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  if (values.site !== undefined) throw new CliError('--site: svc links takes the site as its argument: svc links URL');
  if (positionals.length !== 1) throw new CliError(`give one folder or URL\n\n${USAGE}`);
  const outputs = reportOutputs(values.format ?? [], values.output ?? [], values.json === true);
  const failOn = parseFailOn(typeof values['fail-on'] === 'string' ? values['fail-on'] : undefined);
  const limit = intOption('limit', values.limit, REPORT_LIMIT.min, REPORT_LIMIT.max) ?? REPORT_LIMIT.default;
  const dataDirOption = values['data-dir'];
  if (dataDirOption === '') throw new CliError('--data-dir: give a folder');
  const subject = await subjectOf(positionals[0]!);
  const baseUrl = baseUrlOf(values['base-url']);
  if (baseUrl && subject.kind === 'url')
    throw new CliError('--base-url: only for a folder (a URL is checked where it is)');
  const config = readProjectConfig(values, io);
  const named = typeof values.config === 'string' || typeof dataDirOption === 'string';
  const temp = named ? null : mkdtempSync(join(tmpdir(), 'svc-links-'));
  const dataDir = typeof dataDirOption === 'string' ? resolve(dataDirOption) : (temp ?? config.data_dir);

  let server: FolderServer | null = null;
  let app: App | null = null;
  try {
    let site: URL;
    if (subject.kind === 'folder') {
      // Checked before the server starts: a bad config must not leave anything behind.
      const probe = linksTarget(config, new URL('http://127.0.0.1:1/'), baseUrl, true);
      if ('problems' in probe)
        throw new CliError(`invalid config:\n${probe.problems.map((p) => `  - ${p}`).join('\n')}`);
      server = await serveFolder(subject.dir, previousPort(dataDir, subject.dir));
      site = new URL(`${server.origin}/`);
    } else site = subject.url;
    const picked = linksTarget(config, site, baseUrl, subject.kind === 'folder');
    if ('problems' in picked)
      throw new CliError(`invalid config:\n${picked.problems.map((p) => `  - ${p}`).join('\n')}`);
    const quiet = typeof values.config !== 'string' && !io.env.SVC_LOG_LEVEL;
    const runConfig: Config = {
      ...config,
      data_dir: dataDir,
      log_level: quiet ? 'warn' : config.log_level,
      targets: [picked.target],
      projects: config.projects ? [{ ...config.projects[0]!, targets: [picked.target] }] : null,
      // A CI check crawls now, once: nothing else runs beside it.
      schedule: {},
    };
    const tty = Boolean(io.stderr.isTTY);
    const display = new ProgressDisplay(io.stderr, tty);
    const { loadApp } = await import('../app/open-app.js');
    // On a terminal the logs go through the display; elsewhere they stay JSON lines on stderr, for machines.
    app = await loadApp(runConfig, {
      env: io.env,
      logger: createLogger(runConfig.log_level, tty ? { write: (line) => display.log(line) } : io.stderr),
    });
    if (server)
      writeFileSync(
        join(app.dataDir, SITE_FILE),
        JSON.stringify({ dir: subject.kind === 'folder' ? subject.dir : null, port: server.port }),
      );
    let final: CrawlRecord;
    try {
      const rec = await app.backend.startCrawl({ mode: 'full' });
      final = await followCrawl(app.backend, rec, display, io);
    } catch (err) {
      throw toCliError(err);
    }
    display.done(summary(final));
    const report = await app.backend.linkReport({ limit });
    for (const out of outputs) writeReport(io, report, { ...out, failOn });
    const failed = failOnStatus(io, report, failOn, 'svc links');
    return Math.max(failed, crawlExitCode(final));
  } finally {
    await app?.close();
    await server?.close();
    if (temp) rmSync(temp, { recursive: true, force: true });
  }
}
