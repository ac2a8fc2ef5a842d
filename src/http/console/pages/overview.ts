// Overview: the project's targets, what its index holds (pages stored, pages in search, size on disk), its schedule
// with the next and last runs, the problem links after each full crawl as a small line, and its last crawls.
import { escapeHtml as e } from '../../../lib/escape-html.js';
import type { IndexFigures } from '../deps.js';
import { projectPath, type PageContent } from '../layout.js';
import { problemTrend, trendSparkline } from './changes.js';
import { crawlRows, CRAWL_HEAD } from './crawls.js';
import { table, when, type PageCtx } from './page.js';

/** A size on disk for people: bytes in the largest binary unit that keeps it at 1 or more, e.g. "3.4 MiB". */
export function diskSize(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let n = bytes;
  let u = 0;
  while (n >= 1024 && u < units.length - 1) {
    n /= 1024;
    u++;
  }
  return u === 0 ? `${bytes} bytes` : `${n < 10 ? n.toFixed(1) : Math.round(n)} ${units[u]}`;
}

function figuresOf(f: IndexFigures | null): string {
  if (!f)
    return '<p class="muted" id="index-figures">The index is kept by the /v1 service at api.base_url: see its console.</p>';
  const item = (id: string, label: string, value: string, title = '') =>
    `<div><dt>${e(label)}</dt><dd id="${id}"${title ? ` title="${e(title)}"` : ''}>${e(value)}</dd></div>`;
  return `<dl class="figures" id="index-figures">${item('figure-pages', 'Pages stored', f.pages.toLocaleString('en'))}${item('figure-in-search', 'Pages in search', f.inSearch.toLocaleString('en'))}${item('figure-size', 'Size on disk', diskSize(f.bytes), `${f.bytes} bytes: ${f.counted}`)}</dl>
<p class="muted">Size on disk: ${e(f.counted)}.</p>`;
}

export async function overviewPage(ctx: PageCtx): Promise<PageContent> {
  const { backend, targets } = ctx.project;
  const [schedule, crawls, trend, figures] = await Promise.all([
    backend.schedule(),
    backend.listCrawls({ limit: 5, offset: 0 }),
    problemTrend(ctx),
    ctx.project.figures?.() ?? null,
  ]);
  const targetRows = targets.map((t) => [
    e(`${t.scheme}://${t.host}`),
    e(t.track_links),
    e(String(t.max_pages)),
    e(t.start_paths.join(', ')),
  ]);
  const scheduleRows = (['full', 'partial'] as const).map((kind) => {
    const s = schedule[kind];
    return [e(kind), s ? `<code>${e(s.cron)}</code>` : 'not scheduled', when(s?.nextRun), when(s?.lastRun)];
  });
  return {
    title: 'Overview',
    body: `<h2>Targets</h2>${table('targets', ['Site', 'Links tracked', 'Most pages', 'Start paths'], targetRows, 'No targets configured.')}
<h2>Index</h2>${figuresOf(figures)}
<h2>Schedule</h2>${table('schedule', ['Crawl', 'When', 'Next run', 'Last run'], scheduleRows, '')}
<p class="muted" id="schedule-note">${schedule.source === 'stored' ? "Set in the console, the CLI or /v1 (it replaces the config file's)." : 'From the config file.'} <a href="${projectPath(ctx.project.token, 'schedule')}" id="change-schedule">Change the schedule</a></p>
<h2>Problem links</h2>${trendSparkline(ctx, trend)}
<h2>Last crawls</h2>${table('last-crawls', CRAWL_HEAD, crawlRows(ctx, crawls, false), 'No crawl yet: start one on the Crawls page.')}`,
  };
}
