// Crawl schedules: cron expressions (read by croner, never by hand) and the scheduler's decisions as pure
// functions of the clock, so they are tested with any `now` instead of waiting for real time to pass.
import { Cron } from 'croner';
import { z } from 'zod';

export const SCHEDULE_KINDS = ['full', 'partial'] as const;
export type ScheduleKind = (typeof SCHEDULE_KINDS)[number];

/** A cron job that never fires: only asked for its next run. 5 fields, or 6 with seconds first; server local time. */
function cronOf(expr: string): Cron {
  return new Cron(expr, { paused: true, mode: '5-or-6-parts' });
}

/** Why `expr` is not a 5- or 6-field cron expression, or null when it is. */
export function cronProblem(expr: string): string | null {
  try {
    const c = cronOf(expr);
    const next = c.nextRun(new Date());
    c.stop();
    return next ? null : 'never runs';
  } catch (err) {
    return (err as Error).message.replace(/^CronPattern: /, '');
  }
}

/** The rule of a cron expression wherever one is given (config, /v1, CLI, console), with the library's reason. */
export const cronExpression = z.string({ error: 'must be a cron expression (a string)' }).superRefine((s, ctx) => {
  const problem = cronProblem(s);
  if (problem)
    ctx.addIssue({
      code: 'custom',
      message: `must be a cron expression of 5 fields (minute hour day month weekday) or 6 (seconds first), e.g. "0 3 * * 1": ${problem}`,
    });
});

/**
 * A schedule as set through /v1, the CLI or the console: both kinds, a kind left out or null has no crawls. It takes
 * the place of the config's schedule as a whole until it is cleared.
 */
export const ScheduleSetSchema = z
  .strictObject({ full: cronExpression.nullable().optional(), partial: cronExpression.nullable().optional() })
  .meta({
    title: 'ScheduleSet',
    description:
      "The crawl schedules to keep in the database: a cron expression per kind (5 fields, or 6 with seconds first; server local time), null or left out for none. Replaces the config's schedule until cleared (DELETE).",
  });

export type ScheduleSet = Record<ScheduleKind, string | null>;

/** The set schedule with every kind present (left out: none). */
export function normalizedSet(input: z.output<typeof ScheduleSetSchema>): ScheduleSet {
  return { full: input.full ?? null, partial: input.partial ?? null };
}

/** The first run of `expr` strictly after `after` (ms since the epoch), or null when there is none. */
export function nextRunAfter(expr: string, after: number): number | null {
  const c = cronOf(expr);
  const next = c.nextRun(new Date(after));
  c.stop();
  return next ? next.getTime() : null;
}

/** The first `n` runs of `expr` strictly after `after` (fewer when it has no more). */
export function nextRunsAfter(expr: string, after: number, n: number): number[] {
  const c = cronOf(expr);
  const runs = c.nextRuns(n, new Date(after)).map((d) => d.getTime());
  c.stop();
  return runs;
}

/**
 * What the scheduler remembers of one schedule (in the database, so a restart knows it): `checkedAt`, the time up to
 * which its runs are accounted for (queued or skipped); `lastRun`, when it last queued a crawl. Both ms, null: never.
 */
export interface ScheduleState {
  checkedAt: number | null;
  lastRun: number | null;
}

export type ScheduleDecision =
  /** First sight of this schedule: start counting from now; nothing before it was missed. */
  | { action: 'init' }
  /** Nothing due yet. */
  | { action: 'wait'; nextRun: number | null }
  /**
   * A run is due (`slot`, the earliest one not accounted for): queue a crawl, or skip it while another is queued or
   * running. `missed`: more than one run fell since the last check (the server was down): they count as one.
   */
  | { action: 'run' | 'skip'; slot: number; missed: boolean };

/** The decision for one schedule at `now`, given what is remembered and whether a crawl is queued or running. */
export function decideSchedule(
  cron: string,
  state: ScheduleState | null,
  now: number,
  busy: boolean,
): ScheduleDecision {
  if (state?.checkedAt == null) return { action: 'init' };
  const slot = nextRunAfter(cron, state.checkedAt);
  if (slot === null || slot > now) return { action: 'wait', nextRun: slot };
  const after = nextRunAfter(cron, slot);
  const missed = after !== null && after <= now;
  return { action: busy ? 'skip' : 'run', slot, missed };
}

/** The state to remember after acting on `decision` at `now`. */
export function stateAfter(decision: ScheduleDecision, state: ScheduleState | null, now: number): ScheduleState {
  const lastRun = state?.lastRun ?? null;
  if (decision.action === 'wait') return { checkedAt: state?.checkedAt ?? now, lastRun };
  return { checkedAt: now, lastRun: decision.action === 'run' ? now : lastRun };
}

/** How long the scheduler may sleep before something can be due: until the nearest next run, at most `capMs`. */
export function sleepMs(decisions: readonly ScheduleDecision[], now: number, capMs = 30_000): number {
  let ms = capMs;
  for (const d of decisions) {
    if (d.action !== 'wait') return 0;
    if (d.nextRun !== null) ms = Math.min(ms, d.nextRun - now);
  }
  return Math.max(0, ms);
}

/** One schedule as `GET …/schedule` and `svc schedule` show it. */
export interface ScheduleEntry {
  cron: string;
  /** ISO 8601; null when the expression has no further run. */
  nextRun: string | null;
  /** When it last queued a crawl (ISO 8601), or null. */
  lastRun: string | null;
}

/**
 * Where the schedule in force comes from: `config` (the config file's `schedule`), or `stored` (set through /v1, the
 * CLI or the console, kept in the database; it takes the config's place until cleared).
 */
export type ScheduleSource = 'config' | 'stored';

export type ScheduleInfo = Record<ScheduleKind, ScheduleEntry | null> & {
  source: ScheduleSource;
  /** When the stored schedule was set (ISO 8601); null for the config's. */
  setAt: string | null;
};

/** The schedule in force and where it comes from. */
export interface EffectiveSchedule {
  schedule: Partial<Record<ScheduleKind, string | null | undefined>>;
  source: ScheduleSource;
  setAt: string | null;
}

/** The schedule as shown at `now`: each kind's expression, its next run after now, its last run. */
export function scheduleInfo(
  effective: EffectiveSchedule,
  states: Partial<Record<ScheduleKind, ScheduleState | null>>,
  now: number,
): ScheduleInfo {
  const { schedule } = effective;
  const entry = (kind: ScheduleKind): ScheduleEntry | null => {
    const cron = schedule[kind];
    if (!cron) return null;
    const next = nextRunAfter(cron, now);
    const last = states[kind]?.lastRun ?? null;
    return {
      cron,
      nextRun: next === null ? null : new Date(next).toISOString(),
      lastRun: last === null ? null : new Date(last).toISOString(),
    };
  };
  return { full: entry('full'), partial: entry('partial'), source: effective.source, setAt: effective.setAt };
}
