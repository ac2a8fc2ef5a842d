// Overview: the project's targets, its schedule with the next and last runs, the problem links after each full
// crawl as a small line, and its last crawls.
import { escapeHtml as e } from '../../../lib/escape-html.js';
import type { PageContent } from '../layout.js';
import { problemTrend, trendSparkline } from './changes.js';
import { crawlRows, CRAWL_HEAD } from './crawls.js';
import { table, when, type PageCtx } from './page.js';

export async function overviewPage(ctx: PageCtx): Promise<PageContent> {
  const { backend, targets } = ctx.project;
  const [schedule, crawls, trend] = await Promise.all([
    backend.schedule(),
    backend.listCrawls({ limit: 5, offset: 0 }),
    problemTrend(ctx),
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
<h2>Schedule</h2>${table('schedule', ['Crawl', 'When', 'Next run', 'Last run'], scheduleRows, '')}
<h2>Problem links</h2>${trendSparkline(ctx, trend)}
<h2>Last crawls</h2>${table('last-crawls', CRAWL_HEAD, crawlRows(ctx, crawls, false), 'No crawl yet: start one on the Crawls page.')}`,
  };
}
