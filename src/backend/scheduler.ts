// Runs a project's crawl schedules in a serving process: at each due run it queues a crawl (or skips the run while
// one is queued or running), remembering in the database what it has handled, so a run missed while no server was up
// is run once at the next start. The schedule in force is the one stored through /v1, the CLI or the console when
// there is one, else the config's; it is read again at every look, so a change made anywhere on the database takes
// effect without a restart. The decisions are the pure ones of model/schedule; this file only does the I/O.
import type { Logger } from '../lib/log.js';
import {
  decideSchedule,
  type EffectiveSchedule,
  SCHEDULE_KINDS,
  type ScheduleSet,
  scheduleInfo,
  sleepMs,
  stateAfter,
  type ScheduleDecision,
  type ScheduleInfo,
  type ScheduleKind,
  type ScheduleState,
} from '../model/schedule.js';
import { enqueueCrawl, hasPendingCrawl } from '../store/crawls.js';
import {
  clearStoredSchedule,
  getScheduleState,
  getStoredSchedule,
  restartScheduleCount,
  setScheduleState,
  setStoredSchedule,
} from '../store/schedule.js';
import type { Sql } from '../store/sql.js';
import type { CrawlRecord } from '../model/types.js';

export type Schedules = Partial<Record<ScheduleKind, string | null | undefined>>;

/**
 * Longest sleep between looks: a schedule changed by another process (svc schedule set, another instance on the same
 * PostgreSQL database) is seen within this; one changed in this process is seen at once (Scheduler.poke).
 */
export const SCHEDULE_REREAD_MS = 10_000;

export interface SchedulerOptions {
  sql: Sql;
  project: string;
  /** The config's schedule: in force while none is stored. */
  schedule: Schedules;
  logger: Logger;
  /** Called after a crawl was queued (the queue runner can claim it at once). */
  onQueued?: (rec: CrawlRecord) => void;
  /** The clock (ms since the epoch); tests move it. */
  now?: () => number;
  /** Longest sleep between looks, so a changed schedule or system clock is noticed (default SCHEDULE_REREAD_MS). */
  maxSleepMs?: number;
}

/** The schedule in force: the stored one when the project has one, else the config's. */
export async function effectiveSchedule(sql: Sql, project: string, config: Schedules): Promise<EffectiveSchedule> {
  const stored = await getStoredSchedule(sql, project);
  return stored
    ? { schedule: stored.schedule, source: 'stored', setAt: stored.setAt }
    : { schedule: config, source: 'config', setAt: null };
}

/** The schedule of a project as shown at `now`: expressions, next runs, last runs from the database. */
export async function readSchedule(sql: Sql, project: string, config: Schedules, now: number): Promise<ScheduleInfo> {
  const effective = await effectiveSchedule(sql, project, config);
  const states: Partial<Record<ScheduleKind, ScheduleState | null>> = {};
  for (const k of SCHEDULE_KINDS) states[k] = effective.schedule[k] ? await getScheduleState(sql, project, k) : null;
  return scheduleInfo(effective, states, now);
}

/**
 * Stores `schedule` as the project's (null: forgets the stored one, the config's is in force again), in one
 * transaction. A kind whose expression changes counts its runs from `now`, so the new expression's past runs are not
 * taken for runs missed while no server was up. Answers the schedule as shown then.
 */
export async function saveSchedule(
  sql: Sql,
  project: string,
  config: Schedules,
  schedule: ScheduleSet | null,
  now: number,
): Promise<ScheduleInfo> {
  await sql.tx(async (t) => {
    const before = (await effectiveSchedule(t, project, config)).schedule;
    if (schedule) await setStoredSchedule(t, project, schedule, new Date(now).toISOString());
    else await clearStoredSchedule(t, project);
    const after = (await effectiveSchedule(t, project, config)).schedule;
    for (const k of SCHEDULE_KINDS)
      if ((before[k] ?? null) !== (after[k] ?? null)) await restartScheduleCount(t, project, k, now);
  });
  return readSchedule(sql, project, config, now);
}

export class Scheduler {
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** Until the first look is done: runs due then fell while no server looked, and are queued even behind a crawl. */
  private starting = true;
  private readonly now: () => number;
  /** The expressions of the last look, to log a change once. */
  private seen = '';
  /** Poked during a look (which may have read the schedule before the change): look again right after it. */
  private poked = false;

  constructor(private readonly opts: SchedulerOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** Looks again now (the schedule was changed in this process), instead of at the end of the current sleep. */
  poke(): void {
    if (this.stopped) return;
    if (!this.timer) {
      this.poked = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = null;
    void this.loop();
  }

  start(): void {
    this.stopped = false;
    void this.loop();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /**
   * Looks at every schedule once at the clock's now and acts: queues a due run, skips (and logs) one that falls while
   * a crawl is queued or running. At the first look, a due run was missed while no server was up: it is queued even
   * behind another crawl (it waits its turn), so a crawl left by a crashed server cannot swallow it. Answers the decisions. Reads first; the write lock only when something is due, and
   * then decides again inside it, so two servers on one database queue a run once.
   */
  async tick(): Promise<ScheduleDecision[]> {
    const { sql, project, logger } = this.opts;
    const now = this.now();
    const queued: CrawlRecord[] = [];
    const decisions: ScheduleDecision[] = [];
    const effective = await effectiveSchedule(sql, project, this.opts.schedule);
    const shown = JSON.stringify({ ...effective.schedule, source: effective.source });
    if (this.seen && shown !== this.seen)
      logger.info(
        {
          schedule: { full: effective.schedule.full ?? null, partial: effective.schedule.partial ?? null },
          source: effective.source,
        },
        'crawl schedule changed',
      );
    this.seen = shown;
    for (const kind of SCHEDULE_KINDS.filter((k) => effective.schedule[k])) {
      const cron = effective.schedule[kind]!;
      const seen = decideSchedule(cron, await getScheduleState(sql, project, kind), now, false);
      if (seen.action === 'wait') {
        decisions.push(seen);
        continue;
      }
      const decided = await sql.tx(async (t) => {
        // Changed since the read above (another process set it): the next look acts on the new expression.
        if ((await effectiveSchedule(t, project, this.opts.schedule)).schedule[kind] !== cron)
          return { action: 'wait', nextRun: now } as const;
        const state = await getScheduleState(t, project, kind);
        const d = decideSchedule(cron, state, now, !this.starting && (await hasPendingCrawl(t, project)));
        if (d.action === 'wait') return d;
        if (d.action === 'run') {
          const rec = await enqueueCrawl(t, project, kind, undefined, `schedule:${kind}`);
          queued.push(rec);
          logger.info(
            { schedule: kind, cron, slot: new Date(d.slot).toISOString(), missed: d.missed, crawl: rec.id },
            d.missed
              ? 'scheduled crawl queued (runs were missed while no server was up; they count as one)'
              : 'scheduled crawl queued',
          );
        } else if (d.action === 'skip') {
          logger.info(
            { schedule: kind, cron, slot: new Date(d.slot).toISOString() },
            'scheduled crawl skipped: a crawl is queued or running',
          );
        }
        await setScheduleState(t, project, kind, stateAfter(d, state, now));
        return d;
      });
      decisions.push(decided);
    }
    this.starting = false;
    for (const rec of queued) this.opts.onQueued?.(rec);
    return decisions;
  }

  private async loop(): Promise<void> {
    if (this.stopped) return;
    let decisions: ScheduleDecision[] = [];
    this.poked = false;
    try {
      decisions = await this.tick();
    } catch (err) {
      this.opts.logger.warn({ err }, 'schedule check failed; trying again shortly');
      decisions = [{ action: 'wait', nextRun: this.now() + 1000 }];
    }
    if (this.stopped) return;
    // Wake just after the nearest run is due (a timer may fire a little early).
    const ms = this.poked
      ? 10
      : Math.max(10, sleepMs(decisions, this.now(), this.opts.maxSleepMs ?? SCHEDULE_REREAD_MS) + 5);
    this.timer = setTimeout(() => void this.loop(), ms);
    this.timer.unref();
  }
}
