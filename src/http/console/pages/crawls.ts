// Crawls: start a full, partial or manual crawl, follow the running one on a live bar, stop it, and the list of
// the project's crawls. Starting and stopping call the backend as /v1 does (the same checks, the same 409 while
// a crawl runs); the bar polls the progress answer below, so it goes on after a restart of the server.
import { escapeHtml as e } from '../../../lib/escape-html.js';
import { crawlEnded, CRAWL_MODES, type CrawlProgress, type CrawlRecord } from '../../../model/types.js';
import { countsPhrase, plural } from '../../../model/counts.js';
import { hiddenCsrf, projectPath, type PageContent } from '../layout.js';
import { refusalMessage, table, when, type ActionOutcome, type PageCtx } from './page.js';

export const CRAWL_HEAD = ['Crawl', 'Mode', 'Status', 'Started', 'Finished', 'Pages', 'Links', 'Problem links', ''];

/** Rows of a crawl table; with `actions`, a stop button on each crawl that has not ended. */
export function crawlRows(ctx: PageCtx, crawls: readonly CrawlRecord[], actions = true): string[][] {
  return crawls.map((c) => [
    `<span id="crawl-${c.id}">${c.id}</span>`,
    e(c.mode),
    // A crawl that has not ended carries where its progress is read: the script keeps the row live until it ends.
    `<span class="status"${crawlEnded(c.status) ? '' : ` data-progress-url="${projectPath(ctx.project.token, `crawls/${c.id}/progress`)}"`}>${e(c.status)}</span>${c.error ? ` <span class="muted">${e(c.error)}</span>` : ''}`,
    when(c.startedAt),
    `<span class="finished">${when(c.finishedAt)}</span>`,
    `<span class="pages">${c.stats.pages}</span>`,
    `<span class="links">${c.stats.links}</span> <span class="muted">(<span class="errors">${c.stats.errors}</span> broken)</span>`,
    `<span class="problem-links">${
      c.stats.problemLinks === undefined
        ? '—'
        : `${c.stats.problemLinks} <span class="muted">(${plural(c.stats.occurrences ?? 0, 'occurrence')})</span>`
    }</span>`,
    actions && !crawlEnded(c.status)
      ? `<form class="inline" method="post" action="${projectPath(ctx.project.token, `crawls/${c.id}/stop`)}">${hiddenCsrf(ctx.csrf)}<button type="submit" class="danger" id="stop-${c.id}">Stop</button></form>`
      : '',
  ]);
}

export async function crawlsPage(ctx: PageCtx, msg: { notice?: string; error?: string } = {}): Promise<PageContent> {
  const crawls = await ctx.project.backend.listCrawls({ limit: 20, offset: 0 });
  const followed = Number(ctx.url.searchParams.get('crawl'));
  const live = crawls.find((c) => c.id === followed) ?? crawls.find((c) => !crawlEnded(c.status));
  const liveBox = live
    ? `<section class="live" id="crawl-live" aria-live="polite" data-status="${e(live.status)}" data-progress-url="${projectPath(ctx.project.token, `crawls/${live.id}/progress`)}">
<label for="crawl-bar">Crawl ${live.id} (${e(live.mode)})</label>
<progress id="crawl-bar"${crawlEnded(live.status) ? ' max="1" value="1"' : ''}></progress>
<p id="crawl-text">Crawl ${live.id} ${e(live.status)}: ${e(countsPhrase(live.stats))}</p>
<p id="crawl-note" class="muted"></p>
<p><a href="${projectPath(ctx.project.token, 'report')}">Open the link report</a></p></section>`
    : '';
  const modes = CRAWL_MODES.map(
    (m, i) =>
      `<label><input type="radio" name="mode" value="${m}" id="mode-${m}"${i === 0 ? ' checked' : ''}> ${m}</label>`,
  ).join(' ');
  return {
    title: 'Crawls',
    ...msg,
    body: `${liveBox}<h2>Start a crawl</h2>
<form method="post" action="${projectPath(ctx.project.token, 'crawls')}" id="start-crawl">${hiddenCsrf(ctx.csrf)}
<fieldset><legend>Mode</legend>${modes}
<p class="muted">Full: the whole site. Partial: pages changed since the last crawl (sitemap dates). Manual: only the URLs below.</p></fieldset>
<div class="field"><label for="urls">URLs (manual crawl: one per line)</label><textarea id="urls" name="urls"></textarea></div>
<button type="submit" class="primary" id="start">Start crawl</button></form>
<h2>Crawls</h2>${table('crawls', CRAWL_HEAD, crawlRows(ctx, crawls), 'No crawl yet.')}`,
  };
}

export async function startCrawl(ctx: PageCtx, form: URLSearchParams): Promise<ActionOutcome> {
  const urls = (form.get('urls') ?? '')
    .split(/\r?\n/)
    .map((u) => u.trim())
    .filter(Boolean);
  try {
    const record = await ctx.project.backend.startCrawl({
      mode: (form.get('mode') ?? '') as CrawlRecord['mode'],
      ...(urls.length ? { urls } : {}),
    });
    return { redirect: `${projectPath(ctx.project.token, 'crawls')}?crawl=${record.id}&notice=crawl-started` };
  } catch (err) {
    const r = refusalMessage(err);
    const message = r.status === 409 ? `${r.message}: wait for it to end, or stop it first.` : r.message;
    return { status: r.status, page: await crawlsPage(ctx, { error: `The crawl was not started. ${message}` }) };
  }
}

export async function stopCrawl(ctx: PageCtx, id: number): Promise<ActionOutcome> {
  try {
    await ctx.project.backend.stopCrawl(id, 'stopped from the console');
    return { redirect: `${projectPath(ctx.project.token, 'crawls')}?crawl=${id}&notice=crawl-stopping` };
  } catch (err) {
    const r = refusalMessage(err);
    return { status: r.status, page: await crawlsPage(ctx, { error: `Crawl ${id} was not stopped: ${r.message}` }) };
  }
}

/** What the live bar shows: the record's counts, and the pages known so far while this process runs it. */
export async function crawlProgress(ctx: PageCtx, id: number): Promise<object | null> {
  let progress: CrawlProgress | null = null;
  const backend = ctx.project.backend;
  const first = await backend.getCrawl(id);
  if (!first) return null;
  // A short wait hears the runner's live progress when the crawl runs here; elsewhere it reads the record.
  const record = crawlEnded(first.status)
    ? first
    : await backend.waitForCrawl(id, { timeoutMs: 800, onProgress: (p) => (progress = p) });
  const ended = crawlEnded(record.status);
  // Once the crawl has ended the record is the truth: a progress event heard during the wait may be older than
  // it, and the live row must then say what the table says after a reload.
  const p = ended ? null : (progress as CrawlProgress | null);
  const stats = p?.stats ?? record.stats;
  // A total only when it is known (a manual crawl's URLs), and the bar never past it.
  const total = record.mode === 'manual' ? (record.urls?.length ?? null) : null;
  const done = p?.pagesDone ?? stats.pages;
  return {
    id: record.id,
    status: record.status,
    ended,
    finishedAt: record.finishedAt,
    error: record.error,
    pagesDone: total === null ? done : Math.min(done, total),
    pagesKnown: total,
    pages: stats.pages,
    links: stats.links,
    errors: stats.errors,
    // Known once the crawl's report is final: the row's problem-links cell is filled from it.
    problemLinksText:
      ended && record.stats.problemLinks !== undefined
        ? `${record.stats.problemLinks} (${plural(record.stats.occurrences ?? 0, 'occurrence')})`
        : null,
    text: `Crawl ${record.id} ${record.status}: ${countsPhrase(stats)}`,
  };
}
