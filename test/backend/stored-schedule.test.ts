// A schedule set through the backend (what /v1's PUT, svc schedule set and the console call) is stored, replaces the
// config's until cleared, is refused whole when a field is wrong, and is followed by a running scheduler — in this
// process at once, and in another process on the same database at its next look — with no restart.
import { afterAll, describe, expect, it } from 'vitest';
import { EmbeddedBackend } from '../../src/backend/embedded.js';
import { saveSchedule, Scheduler } from '../../src/backend/scheduler.js';
import { parseConfig } from '../../src/cli/load-config.js';
import { silentLogger } from '../../src/lib/log.js';
import { BackendError } from '../../src/model/errors.js';
import { listCrawls } from '../../src/store/crawls.js';
import type { ServiceStore } from '../../src/store/service-store.js';
import { DIALECTS, storeKit } from '../support/stores.js';

const PROJECT = 'sched123:eu-north-1';

function backend(store: ServiceStore, over: Record<string, unknown> = {}, now?: () => number): EmbeddedBackend {
  const config = parseConfig({
    project: { public_token: PROJECT },
    targets: [{ host: '127.0.0.1:9', scheme: 'http', use_sitemap: false }],
    log_level: 'silent',
    ...over,
  });
  return new EmbeddedBackend({ config, store, logger: silentLogger, now });
}

describe.each(DIALECTS)('on %s', (dialect) => {
  const kit = storeKit(dialect);
  afterAll(() => kit.stop());

  it('a stored schedule replaces the config one as a whole, survives a reopen, and clearing goes back', async () => {
    const { store, reopen } = await kit.fresh();
    const b = backend(store, { schedule: { full: '0 3 * * *', partial: '0 */6 * * *' } });
    try {
      expect(await b.schedule()).toMatchObject({
        source: 'config',
        setAt: null,
        full: { cron: '0 3 * * *' },
        partial: { cron: '0 */6 * * *' },
      });
      const set = await b.setSchedule({ full: '30 2 * * 1' });
      expect(set).toMatchObject({ source: 'stored', full: { cron: '30 2 * * 1', lastRun: null }, partial: null });
      expect(Date.parse(set.setAt!)).toBeGreaterThan(Date.now() - 60_000);
      // Another connection (another process) reads the same.
      const other = backend(await reopen(), { schedule: { full: '0 3 * * *' } });
      expect(await other.schedule()).toMatchObject({ source: 'stored', full: { cron: '30 2 * * 1' }, partial: null });
      await other.close();
      // Nothing scheduled at all is a schedule too (pauses the config's).
      expect(await b.setSchedule({ full: null, partial: null })).toMatchObject({
        source: 'stored',
        full: null,
        partial: null,
      });
      const cleared = await b.setSchedule(null);
      expect(cleared).toMatchObject({ source: 'config', setAt: null, full: { cron: '0 3 * * *' } });
    } finally {
      await b.close();
      await store.close();
    }
  });

  it('bad input names the field and the rule, and nothing stored is lost', async () => {
    const { store } = await kit.fresh();
    const b = backend(store);
    try {
      await b.setSchedule({ full: '0 4 * * *', partial: '*/15 * * * *' });
      const refusal = async (input: unknown) => {
        const err = await b.setSchedule(input).then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(BackendError);
        expect((err as BackendError).code).toBe('invalid_input');
        return (err as BackendError).message;
      };
      expect(await refusal({ full: '0 4 * * *', partial: '61 * * * *' })).toMatch(
        /^partial: must be a cron expression/,
      );
      expect(await refusal({ full: 'every day' })).toMatch(/^full: must be a cron expression .*: /);
      expect(await refusal({ full: '0 4 * * *', weekly: '0 0 * * 0' })).toMatch(/unknown field.*"weekly"/);
      expect(await refusal({ full: 42 })).toMatch(/^full: must be a cron expression \(a string\)/);
      expect(await b.schedule()).toMatchObject({
        source: 'stored',
        full: { cron: '0 4 * * *' },
        partial: { cron: '*/15 * * * *' },
      });
    } finally {
      await b.close();
      await store.close();
    }
  });

  it('a project without targets refuses a schedule that would crawl nothing', async () => {
    const { store } = await kit.fresh();
    const b = backend(store, { targets: [] });
    try {
      await expect(b.setSchedule({ full: '0 3 * * *' })).rejects.toMatchObject({ code: 'conflict' });
      expect((await b.schedule()).source).toBe('config');
    } finally {
      await b.close();
      await store.close();
    }
  });

  it('a running scheduler follows a change made by another process at its next look; the new expression starts counting then', async () => {
    const { store, reopen } = await kit.fresh();
    const elsewhere = await reopen();
    const t0 = Date.parse('2026-03-01T10:00:00Z');
    let now = t0;
    const s = new Scheduler({
      sql: store.sql,
      project: PROJECT,
      schedule: { full: '0 3 * * *' },
      logger: silentLogger,
      now: () => now,
    });
    const queued = async () => (await listCrawls(store.sql, PROJECT, 100, 0)).map((c) => c.trigger);
    try {
      expect(await s.tick()).toEqual([{ action: 'init' }]);
      now = t0 + 3 * 60_000;
      expect((await s.tick())[0]).toMatchObject({ action: 'wait' });
      // Another process (svc schedule set, another instance) stores a schedule of every ten minutes with partials.
      now = t0 + 4 * 60_000;
      await saveSchedule(
        elsewhere.sql,
        PROJECT,
        { full: '0 3 * * *' },
        { full: '*/10 * * * *', partial: '*/5 * * * *' },
        now,
      );
      // The full crawl's new expression counts from the change: its 10:00 run was before it, so not a missed one.
      now = t0 + 4 * 60_000 + 500;
      const seen = await s.tick();
      expect(seen[0]).toMatchObject({ action: 'wait', nextRun: t0 + 10 * 60_000 });
      expect(seen[1]).toEqual({ action: 'init' });
      now = t0 + 10 * 60_000 + 10;
      expect((await s.tick())[0]).toMatchObject({ action: 'run', missed: false });
      expect(await queued()).toEqual(['schedule:full']);
      // Cleared: the config's nightly run is in force again, and nothing more is queued before it.
      await saveSchedule(elsewhere.sql, PROJECT, { full: '0 3 * * *' }, null, now);
      now = t0 + 30 * 60_000;
      const after = await s.tick();
      expect(after).toHaveLength(1);
      expect(after[0]).toMatchObject({ action: 'wait' });
      expect(await queued()).toEqual(['schedule:full']);
    } finally {
      s.stop();
      await elsewhere.close();
      await store.close();
    }
  });

  it('a change made in this process wakes the running scheduler at once (no restart, no wait for its next look)', async () => {
    const { store } = await kit.fresh();
    const b = backend(store);
    try {
      b.runUnattended({ queuePollMs: 60_000 });
      // Every second, with seconds: the first look initialises, the next one after a second queues.
      await b.setSchedule({ full: '* * * * * *' });
      const deadline = Date.now() + 20_000;
      let triggers: string[] = [];
      while (Date.now() < deadline) {
        triggers = (await listCrawls(store.sql, PROJECT, 100, 0)).map((c) => c.trigger ?? '');
        if (triggers.includes('schedule:full')) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(triggers).toContain('schedule:full');
    } finally {
      await b.close();
      await store.close();
    }
  });
});
