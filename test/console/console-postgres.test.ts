// The console's owner round and a subscriber's view on the PostgreSQL store (database_url), in headless
// Chromium on a real `svc serve`: sessions, keys, crawls and search all in PostgreSQL.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { CHROMIUM } from '../support/chromium.js';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { pgFixture, skip, type PgFixture } from '../support/postgres.js';
import {
  launchBrowser,
  ownerFlow,
  startConsoleService,
  subscriberView,
  type ConsoleService,
} from '../support/console-flow.js';

const available = existsSync(CHROMIUM);

describe.skipIf(skip || !available)('the console in headless Chromium (PostgreSQL)', () => {
  let db: PgFixture;
  let svc: ConsoleService;
  let browser: BrowserContext;

  beforeAll(async () => {
    db = pgFixture();
    svc = await startConsoleService({ databaseUrl: db.cluster.connectionString(await db.createDatabase()) });
    browser = await launchBrowser(svc.dir);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    rmSync(join(svc?.dir ?? '/nonexistent', 'profile'), { recursive: true, force: true });
    await svc?.close();
    await db?.close();
  });

  it('an owner signs in, crawls, reads the report, searches, makes and revokes a key, and signs out', async () => {
    await ownerFlow(browser, svc, false);
  }, 180_000);

  // Retried once, as in the SQLite file: it has hung past its timeout on a loaded machine (cause not found yet).
  it('a subscriber sees Search only', { retry: 1, timeout: 25_000 }, async () => {
    await subscriberView(browser, svc, false);
  });
});
