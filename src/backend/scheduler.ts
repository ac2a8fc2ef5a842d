// Runs the config's crawl schedules in a serving process: at each due run it queues a crawl (or skips the run while
// one is queued or running), remembering in the database what it has handled, so a run missed while no server was up
// is run once at the next start. The decisions are the pure ones of model/schedule; this file only does the I/O.
import type { Logger } from '../lib/log.js';
import {
  decideSchedule,
  SCHEDULE_KINDS,
  scheduleInfo,
  sleepMs,
  stateAfter,
  type ScheduleDecision,
  type ScheduleInfo,
  type ScheduleKind,
  type ScheduleState,
} from '../model/schedule.js';
import { enqueueCrawl, hasPendingCrawl } from '../store/crawls.js';
import { getScheduleState, setScheduleState } from '../store/schedule.js';
import type { Sql } from '../store/sql.js';
import type { CrawlRecord } from '../model/types.js';

export type Schedules = Partial<Record<ScheduleKind, string | null | undefined>>;

export interface SchedulerOptions {
  sql: Sql;
  project: string;
  schedule: Schedules;
  logger: Logger;
  /** Called after a crawl was queued (the queue runner can claim it at once). */
  onQueued?: (rec: CrawlRecord) => void;
  /** The clock (ms since the epoch); tests move it. */
  now?: () => number;
  /** Longest sleep between looks, so a changed system clock is noticed (default 30 s). */
  maxSleepMs?: number;
}

/** The schedule of a project as shown at `now`: expressions, next runs, last runs from the database. */
export async function readSchedule(sql: Sql, project: string, schedule: Schedules, now: number): Promise<ScheduleInfo> {
  const states: Partial<Record<ScheduleKind, ScheduleState | null>> = {};
  for (const k of SCHEDULE_KINDS) states[k] = schedule[k] ? await getScheduleState(sql, project, k) : null;
  return scheduleInfo(schedule, states, now);
}

export class Scheduler {
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** Until the first look is done: runs due then fell while no server looked, and are queued even behind a crawl. */
  private starting = true;
  private readonly now: () => number;

  constructor(private readonly opts: SchedulerOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** The kinds that have an expression. */
  private kinds(): ScheduleKind[] {
    return SCHEDULE_KINDS.filter((k) => this.opts.schedule[k]);
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
    for (const kind of this.kinds()) {
      const cron = this.opts.schedule[kind]!;
      const seen = decideSchedule(cron, await getScheduleState(sql, project, kind), now, false);
      if (seen.action === 'wait') {
        decisions.push(seen);
        continue;
      }
      const decided = await sql.tx(async (t) => {
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
    try {
      decisions = await this.tick();
    } catch (err) {
      this.opts.logger.warn({ err }, 'schedule check failed; trying again shortly');
      decisions = [{ action: 'wait', nextRun: this.now() + 1000 }];
    }
    if (this.stopped) return;
    // Wake just after the nearest run is due (a timer may fire a little early).
    const ms = Math.max(10, sleepMs(decisions, this.now(), this.opts.maxSleepMs ?? 30_000) + 5);
    this.timer = setTimeout(() => void this.loop(), ms);
    this.timer.unref();
  }
}
