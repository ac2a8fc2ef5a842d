// Search analytics' pure rules: the terms as recorded (as the pipeline reads them), the period a reader asks for
// (since: a date or time, never in the future, no earlier than the retention window), every day of it, and the
// config's search_stats.retention_days.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/cli/load-config.js';
import { everyDay, retentionStart, statsLimit, statsPeriod } from '../../src/model/search-stats.js';
import { recordedTerms } from '../../src/store/search/recorded-terms.js';

const NOW = Date.parse('2026-11-27T12:00:00Z');
const DAY_MS = 86_400_000;

describe('recordedTerms', () => {
  it('folds case and marks, drops punctuation, quotes phrases and keeps identifiers joined', () => {
    expect(recordedTerms('  Proxy   PASS! ')).toBe('proxy pass');
    expect(recordedTerms('Café crème')).toBe('cafe creme');
    expect(recordedTerms('"Virtual Host" config')).toBe('"virtual host" config');
    expect(recordedTerms('pg_dump OS.Path x-forwarded-for')).toBe('pg_dump os.path x-forwarded-for');
    expect(recordedTerms('"one"')).toBe('one');
  });

  it('is empty for terms with no word (nothing to record)', () => {
    expect(recordedTerms('?! -- ""')).toBe('');
  });

  it('keeps no more words than the search reads', () => {
    const many = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');
    expect(recordedTerms(many).split(' ')).toHaveLength(32);
  });
});

describe('statsPeriod', () => {
  it('defaults to the retention window and never starts before it', () => {
    expect(statsPeriod(undefined, NOW, 90)).toBe(retentionStart(NOW, 90));
    expect(statsPeriod('2020-01-01', NOW, 90)).toBe(new Date(NOW - 90 * DAY_MS).toISOString());
    expect(statsPeriod('2026-11-20', NOW, 90)).toBe('2026-11-20T00:00:00.000Z');
    expect(statsPeriod('2026-11-27T13:00:00+02:00', NOW, 90)).toBe('2026-11-27T11:00:00.000Z');
  });

  it('refuses what is not a date, and a time in the future, naming since and the rule', () => {
    expect(() => statsPeriod('last week', NOW, 90)).toThrow(/^since: must be an ISO 8601 time .* not in the future$/);
    expect(() => statsPeriod('2026-11-28', NOW, 90)).toThrow(/^since: must not be in the future \(got 2026-11-28;/);
    expect(() => statsPeriod('2026-13-01', NOW, 90)).toThrow(/^since: /);
  });

  it('limit: a whole number from 1 to 100, 20 by default', () => {
    expect(statsLimit(undefined)).toBe(20);
    expect(statsLimit(100)).toBe(100);
    for (const bad of [0, 101, 1.5])
      expect(() => statsLimit(bad)).toThrow(/^limit: must be a whole number from 1 to 100/);
  });
});

describe('everyDay', () => {
  it("lists each UTC day from since's to now's, zeros where nothing was counted", () => {
    const days = everyDay('2026-11-25T18:00:00.000Z', NOW, [{ day: '2026-11-26', searches: 4, no_results: 1 }]);
    expect(days).toEqual([
      { day: '2026-11-25', searches: 0, no_results: 0 },
      { day: '2026-11-26', searches: 4, no_results: 1 },
      { day: '2026-11-27', searches: 0, no_results: 0 },
    ]);
  });
});

describe('search_stats.retention_days', () => {
  const config = (search_stats: unknown) => () => parseConfig({ search_stats } as never);

  it('is 90 by default; 0 turns recording off', () => {
    expect(parseConfig({}).search_stats.retention_days).toBe(90);
    expect(parseConfig({ search_stats: { retention_days: 0 } }).search_stats.retention_days).toBe(0);
  });

  it('refuses a value that is not a whole number of days from 0 to 3650, naming the field', () => {
    for (const bad of [-1, 1.5, '90', 3651, null])
      expect(config({ retention_days: bad }), String(bad)).toThrow(
        /search_stats\.retention_days: must be a whole number of days from 0 to 3650 \(0: record no search\)/,
      );
    expect(config({ retention: 30 })).toThrow(/search_stats/);
  });
});
