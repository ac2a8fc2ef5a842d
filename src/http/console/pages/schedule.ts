// Schedule: the crawl schedules in force and where they come from, and a form to change them without the CLI. The
// entered expressions are checked by the rule the scheduler, /v1 and the CLI use (croner) and their next three runs
// shown before saving; a refused one names its field and the form keeps what was typed. Saving stores a schedule
// that replaces the config's (the backend's setSchedule, as PUT …/schedule); Clear goes back to the config's.
import { escapeHtml as e } from '../../../lib/escape-html.js';
import { formatPath } from '../../../lib/zod-issues.js';
import {
  nextRunsAfter,
  normalizedSet,
  type ScheduleSet,
  SCHEDULE_KINDS,
  type ScheduleInfo,
  type ScheduleKind,
  ScheduleSetSchema,
} from '../../../model/schedule.js';
import { hiddenCsrf, projectPath, type PageContent } from '../layout.js';
import { refusalMessage, table, when, type ActionOutcome, type PageCtx } from './page.js';

const LABELS: Record<ScheduleKind, string> = { full: 'Full crawl', partial: 'Partial crawl' };
/** How many runs ahead the form shows for an expression. */
const RUNS_SHOWN = 3;

/** What the form holds: the expressions as typed, and the rule each broke (by kind). */
interface ScheduleForm {
  values: Record<ScheduleKind, string>;
  problems: Partial<Record<ScheduleKind, string>>;
}

/** The form's fields checked by the one schedule rule: empty is "no crawls of this kind". */
function checkForm(f: URLSearchParams): ScheduleForm & { set: ScheduleSet | null } {
  const values = { full: (f.get('full') ?? '').trim(), partial: (f.get('partial') ?? '').trim() };
  const parsed = ScheduleSetSchema.safeParse({ full: values.full || null, partial: values.partial || null });
  if (parsed.success) return { values, problems: {}, set: normalizedSet(parsed.data) };
  const problems: Partial<Record<ScheduleKind, string>> = {};
  for (const issue of parsed.error.issues) {
    const kind = formatPath(issue.path) as ScheduleKind;
    problems[kind] ??= issue.message;
  }
  return { values, problems, set: null };
}

/** The next runs of an expression as a list, or why there are none. */
function runsOf(cron: string, now: number): string {
  const runs = nextRunsAfter(cron, now, RUNS_SHOWN);
  if (runs.length === 0) return '<span class="muted">never runs again</span>';
  return `<ol class="runs">${runs.map((t) => `<li>${when(new Date(t).toISOString())}</li>`).join('')}</ol>`;
}

function field(kind: ScheduleKind, form: ScheduleForm, now: number): string {
  const id = `cron-${kind}`;
  const value = form.values[kind];
  const problem = form.problems[kind];
  const below = problem
    ? `<p class="field-error" id="${id}-error">${e(`${LABELS[kind]} (${kind}): ${problem}`)}</p>`
    : value
      ? `<div id="${id}-runs"><span class="muted">Next ${RUNS_SHOWN} runs:</span>${runsOf(value, now)}</div>`
      : `<p class="muted" id="${id}-runs">No ${kind} crawls.</p>`;
  return `<div class="field"><label for="${id}">${LABELS[kind]} (cron)</label>
<input type="text" id="${id}" name="${kind}" value="${e(value)}" placeholder="${kind === 'full' ? '0 3 * * *' : '0 */6 * * *'}" autocomplete="off" spellcheck="false" aria-describedby="cron-help ${id}-${problem ? 'error' : 'runs'}"${problem ? ' aria-invalid="true"' : ''}>
${below}</div>`;
}

function sourceText(info: ScheduleInfo): string {
  return info.source === 'stored'
    ? `<p id="schedule-source">Set here (or by <code>svc schedule set</code> or <code>PUT …/schedule</code>) ${when(info.setAt)}: the config file's <code>schedule</code> is ignored until you clear this one.</p>`
    : `<p id="schedule-source">From the config file (<code>schedule</code>). Saving below stores a schedule that replaces it until you clear it.</p>`;
}

export async function schedulePage(
  ctx: PageCtx,
  msg: { notice?: string | null; error?: string | null; form?: ScheduleForm } = {},
): Promise<PageContent> {
  const token = ctx.project.token;
  const info = await ctx.project.backend.schedule();
  const now = Date.now();
  const rows = SCHEDULE_KINDS.map((kind) => {
    const s = info[kind];
    return [e(LABELS[kind]), s ? `<code>${e(s.cron)}</code>` : 'not scheduled', when(s?.nextRun), when(s?.lastRun)];
  });
  const form = msg.form ?? {
    values: { full: info.full?.cron ?? '', partial: info.partial?.cron ?? '' },
    problems: {},
  };
  const clear =
    info.source === 'stored'
      ? `<form method="post" action="${projectPath(token, 'schedule/clear')}">${hiddenCsrf(ctx.csrf)}<button type="submit" id="clear-schedule">Clear: back to the config's schedule</button></form>`
      : '';
  return {
    title: 'Schedule',
    notice: msg.notice,
    error: msg.error,
    body: `${sourceText(info)}${table('schedule', ['Crawl', 'When', 'Next run', 'Last run'], rows, '')}${clear}
<h2>Change the schedule</h2>
<p class="muted" id="cron-help">A cron expression per kind: 5 fields (minute hour day-of-month month weekday), or 6 with seconds first, in the server's time zone — <code>0 3 * * *</code> is every night at 03:00, <code>0 */6 * * *</code> every six hours. Leave a field empty for no crawls of that kind. A running <code>svc serve</code> follows a saved schedule without a restart.</p>
<form method="post" action="${projectPath(token, 'schedule')}" id="schedule-form">${hiddenCsrf(ctx.csrf)}
${SCHEDULE_KINDS.map((k) => field(k, form, now)).join('\n')}
<div class="row"><button type="submit" name="action" value="check" id="check-schedule">Show the next runs</button>
<button type="submit" name="action" value="save" class="primary" id="save-schedule">Save schedule</button></div></form>`,
  };
}

/** Check (show the next runs of what was typed) or Save; a refusal keeps the input and names the field. */
export async function scheduleAction(ctx: PageCtx, f: URLSearchParams): Promise<ActionOutcome> {
  const checked = checkForm(f);
  const form = { values: checked.values, problems: checked.problems };
  const saving = f.get('action') !== 'check';
  if (!checked.set) {
    const fields = SCHEDULE_KINDS.filter((k) => checked.problems[k]).map((k) => `${LABELS[k]} (${k})`);
    return {
      status: 400,
      page: await schedulePage(ctx, {
        error: `${saving ? 'Not saved' : 'Not a schedule'}: ${fields.join(' and ')} ${fields.length > 1 ? 'are not cron expressions' : 'is not a cron expression'}; see below.${saving ? ' The schedule in force is unchanged.' : ''}`,
        form,
      }),
    };
  }
  if (!saving)
    return { status: 200, page: await schedulePage(ctx, { notice: 'Checked: nothing is saved yet.', form }) };
  try {
    await ctx.project.backend.setSchedule(checked.set);
  } catch (err) {
    const r = refusalMessage(err);
    return { status: r.status, page: await schedulePage(ctx, { error: `Not saved: ${r.message}`, form }) };
  }
  return { redirect: `${projectPath(ctx.project.token, 'schedule')}?notice=schedule-saved` };
}

export async function clearSchedule(ctx: PageCtx): Promise<ActionOutcome> {
  try {
    await ctx.project.backend.setSchedule(null);
  } catch (err) {
    const r = refusalMessage(err);
    return { status: r.status, page: await schedulePage(ctx, { error: `Not cleared: ${r.message}` }) };
  }
  return { redirect: `${projectPath(ctx.project.token, 'schedule')}?notice=schedule-cleared` };
}
