// PostgreSQL's versioned schema: the tables of the SQLite schema (src/store/sqlite/migrations) with the same names,
// columns and keys, so one SQL text of the store runs on both, and PostgreSQL's own full-text search instead of
// FTS5. Each migration runs once, in its own transaction, recorded in schema_migrations; every transaction first
// takes an advisory lock, so processes that start together migrate one after the other. Add a file and list it at
// the end (in step with a SQLite migration that changes tables both have); never edit one that has shipped.
//
// Kept as SQLite stores them: ids and counts are bigint (back as JS numbers), flags integer 0/1, times ISO 8601
// text (or ms/seconds since the epoch as bigint where SQLite keeps integers), JSON text. Text compares and sorts as
// SQLite's BINARY does (COLLATE "C": code point order), whatever the database's locale: the report's documented
// order, and every key compared with < or >, are the same on both.
import type { Sql } from '../../sql.js';
import { LOCK_CLASS_MIGRATE, type PgSql } from '../pg-sql.js';
import { migration as schemaWithTsvectorSearch } from './001-schema-with-tsvector-search.js';
import { migration as sharedFrontierAndHostLeases } from './002-shared-frontier-and-host-leases.js';
import { migration as sharedCrawlPlanAndWorkerReports } from './003-shared-crawl-plan-and-worker-reports.js';
import { migration as rateLimitWindows } from './004-rate-limit-windows.js';
import { migration as oauthRotatedRefreshTokens } from './005-oauth-rotated-refresh-tokens.js';
import { migration as serverKeys } from './006-server-keys.js';
import { migration as crawlTasks } from './007-crawl-tasks.js';
import { migration as reportBeforeIndex } from './008-report-before-index.js';
import { migration as consoleSessions } from './009-console-sessions.js';
import { migration as webhookReceivers } from './012-webhook-receivers.js';
import { migration as searchUrlPath } from './013-search-url-path.js';
import { migration as keptPagesOfACrawl } from './014-kept-pages-of-a-crawl.js';
import { migration as spentRequestStates } from './030-spent-request-states.js';
import { migration as pageContent } from './035-page-content.js';
import { migration as crawlProblemCounts } from './045-crawl-problem-counts.js';
import { migration as crawlRetries } from './047-crawl-retries.js';
import { migration as apiKeyPrefixLastUsed } from './055-api-key-prefix-last-used.js';
import { migration as storedSchedules } from './060-stored-schedules.js';
import { migration as searchQueries } from './065-search-queries.js';
import { migration as searchWordsAsWritten } from './075-search-words-as-written.js';
import { migration as spentSignInForms } from './085-spent-sign-in-forms.js';

export interface PgMigration {
  version: number;
  name: string;
  sql: string;
}

export const PG_MIGRATIONS: PgMigration[] = [
  schemaWithTsvectorSearch,
  sharedFrontierAndHostLeases,
  sharedCrawlPlanAndWorkerReports,
  rateLimitWindows,
  oauthRotatedRefreshTokens,
  serverKeys,
  crawlTasks,
  reportBeforeIndex,
  consoleSessions,
  webhookReceivers,
  searchUrlPath,
  keptPagesOfACrawl,
  spentRequestStates,
  pageContent,
  crawlProblemCounts,
  crawlRetries,
  apiKeyPrefixLastUsed,
  storedSchedules,
  searchQueries,
  searchWordsAsWritten,
  spentSignInForms,
];

/** The latest version the migrations reach. */
export const PG_SCHEMA_VERSION = PG_MIGRATIONS.at(-1)!.version;

/**
 * Brings the database (the schema of `sql`, created when missing) up to date; returns the versions applied. Safe to
 * run from several processes at once: each migration's transaction takes the migration lock, then looks again.
 */
export async function migratePg(sql: PgSql, migrations: readonly PgMigration[] = PG_MIGRATIONS): Promise<number[]> {
  // One lock for the whole database, not per schema: projects migrating side by side share the unaccent extension.
  const lock = `SELECT pg_advisory_xact_lock(${LOCK_CLASS_MIGRATE}, 0)`;
  const applied: number[] = [];
  const inLock = <T>(fn: (tx: Sql) => Promise<T>) =>
    sql.tx(async (tx) => {
      await tx.exec(lock);
      return fn(tx);
    });
  await inLock(async (tx) => {
    if (sql.schema) await tx.exec(`CREATE SCHEMA IF NOT EXISTS ${sql.schema}`);
    await tx.exec(
      `CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text COLLATE "C" NOT NULL, applied_at text COLLATE "C" NOT NULL)`,
    );
  });
  for (const m of migrations) {
    await inLock(async (tx) => {
      if (await tx.get('SELECT 1 FROM schema_migrations WHERE version = ?', [m.version])) return;
      try {
        await tx.exec(m.sql);
      } catch (err) {
        if (err instanceof Error) err.message = `migration ${m.version} (${m.name}) failed: ${err.message}`;
        throw err;
      }
      await tx.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [
        m.version,
        m.name,
        new Date().toISOString(),
      ]);
      applied.push(m.version);
    });
  }
  return applied;
}
