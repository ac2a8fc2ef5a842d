// What the scheduler remembers per project and schedule kind (see ScheduleState), so a restart knows what it missed.
import type { ScheduleKind, ScheduleState } from '../model/schedule.js';
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
