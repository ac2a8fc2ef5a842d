// `svc schedule [--json]`: the crawl schedules in force (what runs next, what ran last, whether they are the config's
// or stored) and the crawls waiting in the queue for a serving process; `svc schedule set` stores a schedule that
// replaces the config's, `svc schedule clear` forgets it.
import { formatPath } from '../lib/zod-issues.js';
import type { ScheduleInfo } from '../model/schedule.js';
import { normalizedSet, SCHEDULE_KINDS, ScheduleSetSchema } from '../model/schedule.js';
import type { CrawlRecord } from '../model/types.js';
import { CliError, parse, PROJECT_OPTION, withApp } from './common.js';
import type { Terminal } from './terminal.js';

const USAGE = `usage: svc schedule [--json] [--config F] [--project TOKEN]
       svc schedule set [--full CRON] [--partial CRON] [--json] [--config F] [--project TOKEN]
       svc schedule clear [--json] [--config F] [--project TOKEN]

Shows the crawl schedules in force: the cron expression, the next run and the last run, and where they come
from (the config's schedule.full and schedule.partial, or a stored schedule); then the crawls queued for
\`svc serve\` (scheduled and live-update crawls run in turn).

set    stores a schedule in the database that replaces the config's until cleared: a kind left out has no
       crawls. CRON: 5 fields (minute hour day month weekday) or 6 (seconds first), server local time, e.g.
       --full "0 3 * * *" --partial "0 */6 * * *". A running svc serve follows it without a restart.
clear  forgets the stored schedule: the config's is in force again.
--json prints the schedule as GET /v1/projects/<token>/schedule answers it.
`;

/** The schedule and (when given) the queue as lines for people. */
export function formatSchedule(info: ScheduleInfo, queued: readonly CrawlRecord[] | null): string {
  const lines: string[] = [];
  for (const kind of SCHEDULE_KINDS) {
    const e = info[kind];
    if (!e) lines.push(`${kind.padEnd(8)} no schedule`);
    else
      lines.push(`${kind.padEnd(8)} ${e.cron.padEnd(16)} next ${e.nextRun ?? 'never'} · last ${e.lastRun ?? 'never'}`);
  }
  lines.push(
    info.source === 'stored'
      ? `source   stored (set ${info.setAt ?? 'earlier'}; the config's schedule is ignored until svc schedule clear)`
      : 'source   config',
  );
  if (!info.full && !info.partial && info.source === 'config')
    lines.push(
      '(svc schedule set --full "<cron>", or "schedule": {"full": "<cron>", "partial": "<cron>"} in the config; svc serve runs them)',
    );
  if (queued === null) return lines.join('\n');
  if (queued.length) {
    lines.push(`queued (run in this order by svc serve):`);
    for (const c of queued)
      lines.push(
        `  crawl ${c.id} ${c.mode} (${c.trigger ?? 'request'})${c.urls ? `: ${c.urls.length} URL${c.urls.length === 1 ? '' : 's'}` : ''}`,
      );
  } else lines.push('queued: none');
  return lines.join('\n');
}

/** The schedule of --full and --partial, checked by the rule every surface uses; a refusal names the option. */
export function scheduleFromOptions(values: { full?: string; partial?: string }): {
  full: string | null;
  partial: string | null;
} {
  if (values.full === undefined && values.partial === undefined)
    throw new CliError(
      'schedule set: give --full CRON, --partial CRON or both (svc schedule clear goes back to the config)',
    );
  const parsed = ScheduleSetSchema.safeParse({ full: values.full ?? null, partial: values.partial ?? null });
  if (!parsed.success)
    throw new CliError(parsed.error.issues.map((i) => `--${formatPath(i.path)}: ${i.message}`).join('; '));
  return normalizedSet(parsed.data);
}

export async function run(argv: string[], io: Terminal): Promise<number> {
  const { values, positionals } = parse(argv, {
    json: { type: 'boolean' },
    full: { type: 'string' },
    partial: { type: 'string' },
    ...PROJECT_OPTION,
  });
  if (values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  const [action, extra] = positionals;
  if (extra !== undefined || (action !== undefined && action !== 'set' && action !== 'clear'))
    throw new CliError(`schedule: unexpected argument "${extra ?? action}"\n${USAGE}`);
  if (action !== 'set' && (values.full !== undefined || values.partial !== undefined))
    throw new CliError('--full and --partial go with svc schedule set');
  if (action) {
    const schedule = action === 'set' ? scheduleFromOptions(values) : null;
    await withApp(values, io, async (app) => {
      const info = await app.backend.setSchedule(schedule);
      io.stdout.write(values.json ? `${JSON.stringify(info)}\n` : `${formatSchedule(info, null)}\n`);
    });
    return 0;
  }
  await withApp(
    values,
    io,
    async (app) => {
      const info = await app.backend.schedule();
      if (values.json) {
        io.stdout.write(`${JSON.stringify(info)}\n`);
        return;
      }
      const queued = (await app.backend.listCrawls({ limit: 100, offset: 0 }))
        .filter((c) => c.status === 'queued')
        .reverse();
      io.stdout.write(`${formatSchedule(info, queued)}\n`);
    },
    { readOnlyOk: true },
  );
  return 0;
}
