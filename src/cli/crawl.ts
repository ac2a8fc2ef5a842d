// `svc crawl full|partial|manual [URL…]`: runs one crawl in the foreground with a progress display on
// stderr (a live line on a terminal, plain lines otherwise) and prints the final crawl record as one JSON line.
import type { CrawlMode, CrawlRecord, CrawlRequest } from '../model/types.js';
import { STOP_REASONS } from '../backend/crawl-runs/finish.js';
import type { Backend } from '../backend/backend.js';
import {
  CliError,
  intOption,
  openAppFrom,
  parse,
  PROJECT_OPTION,
  toCliError,
  withApp,
  type ConfigValues,
} from './common.js';
import type { CrawlProgress } from '../model/types.js';
import { prettyLogLine } from '../lib/log.js';
import { plural, problemPhrase, reasonsPhrase } from '../model/counts.js';
import type { Output, Terminal } from './terminal.js';

const USAGE = `usage: svc crawl full|partial|manual [URL…] [--config F | --site URL] [--project TOKEN] [--queue]
       svc crawl stop [ID]        stop the running crawl (or crawl ID), wherever it runs; a queued one never runs

  full      read robots.txt and sitemaps, crawl every page (walking links when there is no sitemap),
            re-index everything, then remove pages the crawl did not see
  partial   crawl only the sitemap pages whose lastmod changed since the last crawl
  manual    crawl only the URLs given (each a full URL on a configured target)

  --queue   do not crawl here: queue the crawl in the database and exit; svc serve or svc worker runs it in
            its turn (never a conflict). Prints the queued record (its id) as one JSON line.

Progress goes to stderr; the final crawl record is printed on stdout as one JSON line.
Exit status: 0 when the crawl completed (or was queued), 1 when it stopped or failed or a target was unreachable,
2 on bad input.
`;

const MODES = ['full', 'partial', 'manual'];

export interface ProgressLine {
  mode: string;
  id: number;
  /** Pages stored so far. */
  pages: number;
  /** Distinct link URLs given an outcome so far, and how many of those are broken. */
  links: number;
  broken: number;
  /** URLs done of a known total (a manual crawl's); the total is null when not known. */
  done: number;
  total: number | null;
  queued: number;
  elapsedMs: number;
}

/**
 * The URLs a crawl will fetch when that is known before it ends: a manual crawl's. A full or partial crawl finds
 * its pages as it goes (links walked, redirects followed), so it has no total and no percentage.
 */
export function progressTotal(rec: Pick<CrawlRecord, 'mode' | 'urls'>): number | null {
  return rec.mode === 'manual' ? (rec.urls?.length ?? null) : null;
}

/** The progress line's numbers from a crawl's progress: the record's units, the done count never above its total. */
export function progressLine(rec: Pick<CrawlRecord, 'id' | 'mode' | 'urls'>, p: CrawlProgress): ProgressLine {
  const total = progressTotal(rec);
  return {
    mode: rec.mode,
    id: rec.id,
    pages: p.stats.pages,
    links: p.stats.links,
    broken: p.stats.errors,
    done: total === null ? p.pagesDone : Math.min(p.pagesDone, total),
    total,
    queued: p.queued,
    elapsedMs: p.elapsedMs,
  };
}

/** "crawl 4 (manual) · 3 of 8 URLs (37%) · 3 pages · 12 links (1 broken) · 5 queued · 2.0 pages/s · 1.5 s" */
export function formatProgress(p: ProgressLine): string {
  const secs = p.elapsedMs / 1000;
  const rate = secs > 0 ? p.pages / secs : 0;
  const done = Math.min(p.done, p.total ?? p.done);
  const of =
    p.total !== null && p.total > 0
      ? `${done} of ${plural(p.total, 'URL')} (${Math.floor((100 * done) / p.total)}%) · `
      : '';
  return `crawl ${p.id} (${p.mode}) · ${of}${plural(p.pages, 'page')} · ${plural(p.links, 'link')} (${p.broken} broken) · ${p.queued} queued · ${rate.toFixed(1)} pages/s · ${secs.toFixed(1)} s`;
}

/**
 * The closing lines: how it ended (stopped and by what; failed and why), then the counts of docs/index.md's
 * glossary — pages, links (and the broken ones), problem links and occurrences, per reason — then each
 * unreachable target. The problem counts are the record's, which every other surface shows too.
 */
export function summary(rec: CrawlRecord): string {
  const secs = rec.startedAt && rec.finishedAt ? (Date.parse(rec.finishedAt) - Date.parse(rec.startedAt)) / 1000 : NaN;
  const targets = Object.entries(rec.stats.targets ?? {});
  const cut = rec.status === 'stopped' ? [] : targets.filter(([, t]) => t.cutByMaxPages).map(([h]) => h);
  const { notModified = 0, unchanged = 0, problemLinks, occurrences } = rec.stats;
  const kept = notModified || unchanged ? ` (${notModified} not modified, ${unchanged} unchanged: kept as stored)` : '';
  const problems =
    problemLinks === undefined || occurrences === undefined ? '' : `, ${problemPhrase({ problemLinks, occurrences })}`;
  const lines = [
    `crawl ${rec.id} ${rec.status}: ${plural(rec.stats.pages, 'page')}${kept}, ${plural(rec.stats.links, 'link')} (${rec.stats.errors} broken)${problems}` +
      (Number.isFinite(secs) ? ` in ${secs.toFixed(1)} s` : '') +
      (cut.length ? ` (max_pages cut: ${cut.join(', ')})` : ''),
  ];
  if (rec.stats.reasons && problemLinks) lines.push(`  by reason: ${reasonsPhrase({ reasons: rec.stats.reasons })}`);
  // A crawl that failed because its targets were unreachable says so once, in the lines of those targets.
  const saidBelow = targets.some(([, t]) => t.unreachable && t.error && rec.error?.includes(t.error));
  if (rec.status !== 'completed' && rec.error && !saidBelow) lines.push(`  ${rec.error}`);
  for (const [host, t] of targets)
    if (t.unreachable)
      lines.push(`  ${host} was unreachable: ${t.error ?? 'no page answered'} (nothing of it was cleared or removed)`);
  return lines.join('\n');
}

/** Exit status of a crawl: 0 only when it completed with every target reachable. */
export function crawlExitCode(rec: CrawlRecord): number {
  const unreachable = Object.values(rec.stats.targets ?? {}).some((t) => t.unreachable);
  return rec.status === 'completed' && !unreachable ? 0 : 1;
}

/**
 * Writes progress to stderr: one rewritten line on a terminal, a plain line every few seconds otherwise. On a
 * terminal the crawl's log lines come here too, short and readable, printed above the live line so neither
 * breaks the other.
 */
export class ProgressDisplay {
  private last = 0;
  private current = '';
  constructor(
    private readonly out: Output,
    private readonly tty: boolean,
  ) {}

  update(line: string): void {
    const now = Date.now();
    if (this.tty) {
      if (now - this.last < 100) return;
      this.last = now;
      this.current = line;
      this.out.write(`\r\x1b[2K${line}`);
    } else if (this.last === 0 || now - this.last >= 5000) {
      this.last = now;
      this.out.write(`${line}\n`);
    }
  }

  /** A pino JSON line (terminal only): the live line is cleared, the log line printed, the live line drawn again. */
  log(json: string): void {
    this.out.write(`\r\x1b[2K${prettyLogLine(json)}\n${this.current}`);
  }

  done(line: string): void {
    this.out.write(this.tty && this.current ? `\r\x1b[2K${line}\n` : `${line}\n`);
  }
}

export async function run(argv: string[], io: Terminal): Promise<number> {
  const { values, positionals } = parse(argv, { ...PROJECT_OPTION, queue: { type: 'boolean' } });
  if (values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  const [mode, ...urls] = positionals;
  if (mode === 'stop') return stop(urls, values, io);
  if (!mode) throw new CliError(`missing mode\n\n${USAGE}`);
  if (!MODES.includes(mode)) throw new CliError(`unknown mode "${mode}": use full, partial or manual`);
  const req: CrawlRequest = { mode: mode as CrawlMode };
  if (mode === 'manual' || urls.length) req.urls = urls;
  if (mode === 'manual' && !urls.length)
    throw new CliError('manual: give the full URLs to crawl, e.g. svc crawl manual https://example.org/page');
  if (values.queue) return queue(req, values, io);

  const tty = Boolean(io.stderr.isTTY);
  const display = new ProgressDisplay(io.stderr, tty);
  // On a terminal the logs go through the display; elsewhere they stay JSON lines on stderr, for machines.
  const app = await openAppFrom(values, io, tty ? { logSink: { write: (line) => display.log(line) } } : {});
  let final: CrawlRecord;
  try {
    let rec: CrawlRecord;
    try {
      rec = await app.backend.startCrawl(req);
    } catch (err) {
      throw toCliError(err);
    }
    final = await followCrawl(app.backend, rec, display, io);
    // The crawl's webhook deliveries are in the outbox: one try now; a server on this database retries the rest.
    await app.deliverWebhooksOnce().catch(() => 0);
  } finally {
    await app.close();
  }
  display.done(summary(final));
  io.stdout.write(`${JSON.stringify(final)}\n`);
  return crawlExitCode(final);
}

/** Waits for a started crawl, its progress on the display; Ctrl-C or SIGTERM stop it (here or in the remote service). */
export async function followCrawl(
  backend: Backend,
  rec: CrawlRecord,
  display: ProgressDisplay,
  io: Terminal,
): Promise<CrawlRecord> {
  const onInt = () => void backend.stopCrawl(rec.id, STOP_REASONS.interrupt).catch(() => {});
  const onTerm = () => void backend.stopCrawl(rec.id, STOP_REASONS.terminate).catch(() => {});
  io.signals.once('SIGINT', onInt);
  io.signals.once('SIGTERM', onTerm);
  try {
    return await backend.waitForCrawl(rec.id, {
      onProgress: (p: CrawlProgress) => display.update(formatProgress(progressLine(rec, p))),
    });
  } finally {
    io.signals.off('SIGINT', onInt);
    io.signals.off('SIGTERM', onTerm);
  }
}

/** `svc crawl … --queue`: the crawl waits in the database for svc serve or svc worker; prints its record. */
async function queue(req: CrawlRequest, values: ConfigValues, io: Terminal): Promise<number> {
  const rec = await withApp(values, io, (app) => app.backend.queueCrawl(req, 'request'));
  // A remote backend has the other service start it at once.
  io.stderr.write(
    rec.status === 'queued'
      ? `crawl ${rec.id} queued: svc serve or svc worker on this database runs it in its turn\n`
      : `crawl ${rec.id} ${rec.status}\n`,
  );
  io.stdout.write(`${JSON.stringify(rec)}\n`);
  return 0;
}

/** `svc crawl stop [ID]`: asks the crawl (default: the running one) to stop and waits up to 30 s for it to end. */
async function stop(args: string[], values: ConfigValues, io: Terminal): Promise<number> {
  if (args.length > 1) throw new CliError('stop: give at most one crawl id');
  const id = args[0] === undefined ? undefined : intOption('ID', args[0], 1, Number.MAX_SAFE_INTEGER);
  const app = await openAppFrom(values, io);
  try {
    let target = id;
    if (target === undefined) {
      // The running crawl; else the newest queued one (scheduled and live-update crawls wait in a queue).
      const recent = await app.backend.listCrawls({ limit: 100, offset: 0 });
      const pick = recent.find((c) => c.status === 'running') ?? recent.find((c) => c.status === 'queued');
      if (!pick) {
        const latest = recent[0];
        throw new CliError(
          `no crawl is running${latest ? ` (the latest, crawl ${latest.id}, is ${latest.status})` : ''}`,
          1,
        );
      }
      target = pick.id;
    }
    try {
      await app.backend.stopCrawl(target);
    } catch (err) {
      throw toCliError(err);
    }
    const rec = await app.backend.waitForCrawl(target, { timeoutMs: 30_000 });
    io.stderr.write(
      rec.status === 'stopped' ? `crawl ${rec.id} stopped\n` : `crawl ${rec.id} asked to stop; it is ${rec.status}\n`,
    );
    io.stdout.write(`${JSON.stringify(rec)}\n`);
    return rec.status === 'stopped' ? 0 : 1;
  } finally {
    await app.close();
  }
}
