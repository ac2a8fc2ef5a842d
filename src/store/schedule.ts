// What the scheduler remembers per project and schedule kind (see ScheduleState), so a restart knows what it missed;
// and the schedule set through /v1, the CLI or the console, which takes the config's place while it is stored.
import type { ScheduleKind, ScheduleSet, ScheduleState } from '../model/schedule.js';
import type { Sql } from './sql.js';

export async function getScheduleState(sql: Sql, project: string, kind: ScheduleKind): Promise<ScheduleState | null> {
  const row = await sql.get<{ checked_at: number | null; last_run: number | null }>(
    'SELECT checked_at, last_run FROM schedule_state WHERE project = ? AND kind = ?',
    [project, kind],
  );
  return row ? { checkedAt: row.checked_at, lastRun: row.last_run } : null;
}

export async function setScheduleState(
  sql: Sql,
  project: string,
  kind: ScheduleKind,
  state: ScheduleState,
): Promise<void> {
  await sql.run(
    `INSERT INTO schedule_state (project, kind, checked_at, last_run) VALUES (?, ?, ?, ?)
     ON CONFLICT (project, kind) DO UPDATE SET checked_at = excluded.checked_at, last_run = excluded.last_run`,
    [project, kind, state.checkedAt, state.lastRun],
  );
}

/** A project's stored schedule and when it was set, or null when it has none (the config's is in force). */
export async function getStoredSchedule(
  sql: Sql,
  project: string,
): Promise<{ schedule: ScheduleSet; setAt: string } | null> {
  const row = await sql.get<{ full_cron: string | null; partial_cron: string | null; set_at: string }>(
    'SELECT full_cron, partial_cron, set_at FROM stored_schedules WHERE project = ?',
    [project],
  );
  return row ? { schedule: { full: row.full_cron, partial: row.partial_cron }, setAt: row.set_at } : null;
}

export async function setStoredSchedule(
  sql: Sql,
  project: string,
  schedule: ScheduleSet,
  setAt: string,
): Promise<void> {
  await sql.run(
    `INSERT INTO stored_schedules (project, full_cron, partial_cron, set_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (project) DO UPDATE SET full_cron = excluded.full_cron, partial_cron = excluded.partial_cron, set_at = excluded.set_at`,
    [project, schedule.full, schedule.partial, setAt],
  );
}

/** Forgets the stored schedule (the config's is in force again); whether there was one. */
export async function clearStoredSchedule(sql: Sql, project: string): Promise<boolean> {
  return (await sql.run('DELETE FROM stored_schedules WHERE project = ?', [project])).changes > 0;
}

/** A kind whose expression changed counts its runs from `now`: none of the new expression's is taken as missed. */
export async function restartScheduleCount(sql: Sql, project: string, kind: ScheduleKind, now: number): Promise<void> {
  await sql.run('UPDATE schedule_state SET checked_at = ? WHERE project = ? AND kind = ?', [now, project, kind]);
}
