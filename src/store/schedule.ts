// What the scheduler remembers per project and schedule kind (see ScheduleState), so a restart knows what it missed.
import type { ScheduleKind, ScheduleState } from '../model/schedule.js';
import type { Store } from './store.js';

export function getScheduleState(store: Store, project: string, kind: ScheduleKind): ScheduleState | null {
  const row = store.prepare('SELECT checked_at, last_run FROM schedule_state WHERE project = ? AND kind = ?').get(project, kind) as
    | { checked_at: number | null; last_run: number | null }
    | undefined;
  return row ? { checkedAt: row.checked_at, lastRun: row.last_run } : null;
}

export function setScheduleState(store: Store, project: string, kind: ScheduleKind, state: ScheduleState): void {
  store
    .prepare(
      `INSERT INTO schedule_state (project, kind, checked_at, last_run) VALUES (?, ?, ?, ?)
       ON CONFLICT(project, kind) DO UPDATE SET checked_at = excluded.checked_at, last_run = excluded.last_run`,
    )
    .run(project, kind, state.checkedAt, state.lastRun);
}
