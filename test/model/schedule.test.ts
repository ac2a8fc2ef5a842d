// The scheduler's decisions as pure functions of an injected clock: next runs, missed runs, skips while busy.
import { describe, expect, it } from 'vitest';
import {
  cronProblem,
  decideSchedule,
  nextRunAfter,
  nextRunsAfter,
  normalizedSet,
  scheduleInfo,
  ScheduleSetSchema,
  sleepMs,
  stateAfter,
  type ScheduleState,
} from '../../src/model/schedule.js';
import { parseConfig } from '../../src/cli/load-config.js';

const T = (iso: string) => Date.parse(iso);
// The tests' expressions name minutes and seconds only, so they do not depend on the machine's time zone.
const EVERY_10_MIN = '*/10 * * * *';

describe('cron expressions', () => {
  it('takes 5 fields, or 6 with seconds first', () => {
    expect(cronProblem('0 3 * * 1')).toBeNull();
    expect(cronProblem('*/5 * * * * *')).toBeNull();
    expect(nextRunAfter('*/5 * * * * *', T('2026-01-01T00:00:02Z'))).toBe(T('2026-01-01T00:00:05Z'));
    expect(nextRunAfter(EVERY_10_MIN, T('2026-01-01T00:10:00Z'))).toBe(T('2026-01-01T00:20:00Z'));
  });

  it('refuses anything else with the reason', () => {
    expect(cronProblem('every day')).toMatch(/five, six, or seven|5 or 6 parts/);
    expect(cronProblem('* * * *')).toMatch(/parts/);
    expect(cronProblem('1 2 3 4 5 6 7')).toMatch(/5 or 6 parts/);
    expect(cronProblem('61 * * * *')).toMatch(/minute/);
  });

  it('a bad expression in the config is an error naming the field', () => {
    expect(() => parseConfig({ schedule: { full: '61 * * * *' } })).toThrow(
      /schedule\.full: must be a cron expression of 5 fields .*minute/,
    );
    expect(() => parseConfig({ schedule: { partial: 'hourly please' } })).toThrow(
      /schedule\.partial: must be a cron expression/,
    );
    expect(() => parseConfig({ schedule: { weekly: '0 3 * * 1' } })).toThrow(/schedule.*weekly/);
    const c = parseConfig({ schedule: { full: '0 3 * * 1' } });
    expect(c.schedule).toEqual({ full: '0 3 * * 1' });
    expect(c.host.live_update).toBe(true);
    expect(parseConfig({}).schedule).toEqual({});
  });
});

describe('decideSchedule with an injected clock', () => {
  const start = T('2026-03-01T10:00:00Z');

  it('first sight starts counting from now: nothing before it counts as missed', () => {
    expect(decideSchedule(EVERY_10_MIN, null, start, false)).toEqual({ action: 'init' });
    expect(stateAfter({ action: 'init' }, null, start)).toEqual({ checkedAt: start, lastRun: null });
  });

  it('waits until the next run, then runs it once', () => {
    const s: ScheduleState = { checkedAt: start, lastRun: null };
    expect(decideSchedule(EVERY_10_MIN, s, start + 9 * 60_000, false)).toEqual({
      action: 'wait',
      nextRun: T('2026-03-01T10:10:00Z'),
    });
    const due = decideSchedule(EVERY_10_MIN, s, T('2026-03-01T10:10:00.020Z'), false);
    expect(due).toEqual({ action: 'run', slot: T('2026-03-01T10:10:00Z'), missed: false });
    const after = stateAfter(due, s, T('2026-03-01T10:10:00.020Z'));
    expect(after).toEqual({ checkedAt: T('2026-03-01T10:10:00.020Z'), lastRun: T('2026-03-01T10:10:00.020Z') });
    // The same run is not due twice.
    expect(decideSchedule(EVERY_10_MIN, after, T('2026-03-01T10:15:00Z'), false).action).toBe('wait');
  });

  it('a run that falls while a crawl is queued or running is skipped, and not run later', () => {
    const s: ScheduleState = { checkedAt: start, lastRun: start - 3_600_000 };
    const now = T('2026-03-01T10:10:01Z');
    const d = decideSchedule(EVERY_10_MIN, s, now, true);
    expect(d).toEqual({ action: 'skip', slot: T('2026-03-01T10:10:00Z'), missed: false });
    const after = stateAfter(d, s, now);
    expect(after).toEqual({ checkedAt: now, lastRun: s.lastRun });
    expect(decideSchedule(EVERY_10_MIN, after, T('2026-03-01T10:12:00Z'), false).action).toBe('wait');
  });

  it('runs missed while the server was down count as one run at start', () => {
    const s: ScheduleState = { checkedAt: start, lastRun: start };
    const back = T('2026-03-01T13:05:00Z'); // 18 runs fell while it was down
    const d = decideSchedule(EVERY_10_MIN, s, back, false);
    expect(d).toEqual({ action: 'run', slot: T('2026-03-01T10:10:00Z'), missed: true });
    const after = stateAfter(d, s, back);
    expect(decideSchedule(EVERY_10_MIN, after, back + 1000, false)).toEqual({
      action: 'wait',
      nextRun: T('2026-03-01T13:10:00Z'),
    });
  });

  it('sleeps until the nearest next run, at most the cap, and not at all when something is due', () => {
    const now = start;
    expect(
      sleepMs(
        [
          { action: 'wait', nextRun: now + 5000 },
          { action: 'wait', nextRun: now + 2000 },
        ],
        now,
      ),
    ).toBe(2000);
    expect(sleepMs([{ action: 'wait', nextRun: now + 3_600_000 }], now, 30_000)).toBe(30_000);
    expect(sleepMs([{ action: 'wait', nextRun: null }], now, 30_000)).toBe(30_000);
    expect(sleepMs([{ action: 'wait', nextRun: now + 5000 }, { action: 'init' }], now)).toBe(0);
  });

  it('shows each kind with its next and last run, null for a kind without a schedule', () => {
    const info = scheduleInfo(
      { schedule: { full: EVERY_10_MIN }, source: 'config', setAt: null },
      { full: { checkedAt: start, lastRun: start } },
      T('2026-03-01T10:04:00Z'),
    );
    expect(info).toEqual({
      full: { cron: EVERY_10_MIN, nextRun: '2026-03-01T10:10:00.000Z', lastRun: '2026-03-01T10:00:00.000Z' },
      partial: null,
      source: 'config',
      setAt: null,
    });
  });
});

describe('a schedule set through /v1, the CLI or the console', () => {
  it('the next runs of an expression, in order, strictly after the time given', () => {
    const at = T('2026-03-01T10:00:00Z');
    expect(nextRunsAfter(EVERY_10_MIN, at, 3)).toEqual([
      T('2026-03-01T10:10:00Z'),
      T('2026-03-01T10:20:00Z'),
      T('2026-03-01T10:30:00Z'),
    ]);
  });

  it('both kinds always present (left out: none); each field checked by the config rule; unknown fields refused', () => {
    expect(normalizedSet(ScheduleSetSchema.parse({ partial: EVERY_10_MIN }))).toEqual({
      full: null,
      partial: EVERY_10_MIN,
    });
    const bad = ScheduleSetSchema.safeParse({ full: '61 * * * *', every: 'day' });
    expect(bad.success).toBe(false);
    const messages = bad.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(messages).toContainEqual(
      expect.stringMatching(/^full: must be a cron expression .*Invalid value for minute: 61$/),
    );
    expect(bad.error!.issues.some((i) => i.code === 'unrecognized_keys')).toBe(true);
  });
});
