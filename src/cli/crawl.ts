// `svc crawl full|partial|manual [URL…]`: runs one crawl in the foreground with a progress display on
// stderr (a live line on a terminal, plain lines otherwise) and prints the final crawl record as one JSON line.
import type { CrawlMode, CrawlRecord, CrawlRequest } from '../model/types.js';
import { CliError, openAppFrom, parse, toCliError } from './common.js';
import type { CrawlProgress } from '../model/types.js';

const USAGE = `usage: svc crawl full|partial|manual [URL…] [--config F | --site URL]

  full      read robots.txt and sitemaps, crawl every page (walking links when there is no sitemap),
            re-index everything, then remove pages the crawl did not see
  partial   crawl only the sitemap pages whose lastmod changed since the last crawl
  manual    crawl only the URLs given (each a full URL on a configured target)

Progress goes to stderr; the final crawl record is printed on stdout as one JSON line.
Exit status: 0 when the crawl completed, 1 when it stopped or failed, 2 on bad input.
`;

const MODES = ['full', 'partial', 'manual'];

export interface ProgressLine {
  mode: string;
  id: number;
  pagesDone: number;
  queued: number;
  errors: number;
  elapsedMs: number;
}

/** "crawl 3 (full) · 120 pages · 45 queued · 3 errors · 85.2 pages/s · 12.3 s" */
export function formatProgress(p: ProgressLine): string {
  const secs = p.elapsedMs / 1000;
  const rate = secs > 0 ? p.pagesDone / secs : 0;
  return `crawl ${p.id} (${p.mode}) · ${p.pagesDone} pages · ${p.queued} queued · ${p.errors} errors · ${rate.toFixed(1)} pages/s · ${secs.toFixed(1)} s`;
}

function summary(rec: CrawlRecord): string {
  const secs = rec.startedAt && rec.finishedAt ? (Date.parse(rec.finishedAt) - Date.parse(rec.startedAt)) / 1000 : NaN;
  const cut = Object.entries(rec.stats.targets ?? {})
    .filter(([, t]) => t.cutByMaxPages)
    .map(([h]) => h);
  return (
    `crawl ${rec.id} ${rec.status}: ${rec.stats.pages} pages, ${rec.stats.links} links checked, ${rec.stats.errors} broken` +
    (Number.isFinite(secs) ? ` in ${secs.toFixed(1)} s` : '') +
    (cut.length ? ` (max_pages cut: ${cut.join(', ')})` : '') +
    (rec.error && rec.status !== 'completed' ? ` — ${rec.error}` : '')
  );
}

/** Writes progress to stderr: one rewritten line on a terminal, a plain line every few seconds otherwise. */
class ProgressDisplay {
  private last = 0;
  private drawn = false;
  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly tty: boolean,
  ) {}

  update(line: string): void {
    const now = Date.now();
    if (this.tty) {
      if (now - this.last < 100) return;
      this.last = now;
      this.out.write(`\r\x1b[2K${line}`);
      this.drawn = true;
    } else if (this.last === 0 || now - this.last >= 5000) {
      this.last = now;
      this.out.write(`${line}\n`);
    }
  }

  done(line: string): void {
    this.out.write(this.tty && this.drawn ? `\r\x1b[2K${line}\n` : `${line}\n`);
  }
}


export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {});
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const [mode, ...urls] = positionals;
  if (!mode) throw new CliError(`missing mode\n\n${USAGE}`);
  if (!MODES.includes(mode)) throw new CliError(`unknown mode "${mode}": use full, partial or manual`);
  const req: CrawlRequest = { mode: mode as CrawlMode };
  if (mode === 'manual' || urls.length) req.urls = urls;
  if (mode === 'manual' && !urls.length) throw new CliError('manual: give the full URLs to crawl, e.g. svc crawl manual https://example.org/page');

  const app = openAppFrom(values);
  const display = new ProgressDisplay(process.stderr, Boolean(process.stderr.isTTY));
  let final: CrawlRecord;
  try {
    let rec: CrawlRecord;
    try {
      rec = await app.backend.startCrawl(req);
    } catch (err) {
      throw toCliError(err);
    }
    // Ctrl-C or SIGTERM stop the crawl (here, or in the remote service), and we wait for it to settle.
    const onSignal = () => void app.backend.stopCrawl(rec.id).catch(() => {});
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      final = await app.backend.waitForCrawl(rec.id, {
        onProgress: (p: CrawlProgress) =>
          display.update(formatProgress({ mode: rec.mode, id: rec.id, pagesDone: p.pagesDone, queued: p.queued, errors: p.errors, elapsedMs: p.elapsedMs })),
      });
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  } finally {
    await app.close();
  }
  display.done(summary(final));
  process.stdout.write(`${JSON.stringify(final)}\n`);
  return final.status === 'completed' ? 0 : 1;
}
