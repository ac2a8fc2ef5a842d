// `svc schedule [--json]`: the config's crawl schedules (what runs next, what ran last) and the crawls waiting in
// the queue for a serving process.
import type { ScheduleInfo } from '../model/schedule.js';
import { SCHEDULE_KINDS } from '../model/schedule.js';
import type { CrawlRecord } from '../model/types.js';
import { CliError, parse, PROJECT_OPTION, withApp } from './common.js';

const USAGE = `usage: svc schedule [--json] [--config F] [--project TOKEN]

Shows the crawl schedules of the config (schedule.full, schedule.partial): the cron expression, the next run
and the last run; then the crawls queued for \`svc serve\` (scheduled and live-update crawls run in turn).
--json prints the schedule as GET /v1/projects/<token>/schedule answers it.
`;

/** The schedule and the queue as lines for people. */
export function formatSchedule(info: ScheduleInfo, queued: readonly CrawlRecord[]): string {
  const lines: string[] = [];
  for (const kind of SCHEDULE_KINDS) {
    const e = info[kind];
    if (!e) lines.push(`${kind.padEnd(8)} no schedule`);
    else
      lines.push(`${kind.padEnd(8)} ${e.cron.padEnd(16)} next ${e.nextRun ?? 'never'} · last ${e.lastRun ?? 'never'}`);
  }
  if (!info.full && !info.partial)
    lines.push('(set "schedule": {"full": "<cron>", "partial": "<cron>"} in the config; svc serve runs them)');
  if (queued.length) {
    lines.push(`queued (run in this order by svc serve):`);
    for (const c of queued)
      lines.push(
        `  crawl ${c.id} ${c.mode} (${c.trigger ?? 'request'})${c.urls ? `: ${c.urls.length} URL${c.urls.length === 1 ? '' : 's'}` : ''}`,
      );
  } else lines.push('queued: none');
  return lines.join('\n');
}

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { json: { type: 'boolean' }, ...PROJECT_OPTION });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (positionals.length) throw new CliError(`schedule: unexpected argument "${positionals[0]}"\n${USAGE}`);
  await withApp(
    values,
    async (app) => {
      const info = await app.backend.schedule();
      if (values.json) {
        process.stdout.write(`${JSON.stringify(info)}\n`);
        return;
      }
      const queued = (await app.backend.listCrawls({ limit: 100, offset: 0 }))
        .filter((c) => c.status === 'queued')
        .reverse();
      process.stdout.write(`${formatSchedule(info, queued)}\n`);
    },
    { readOnlyOk: true },
  );
  return 0;
}
