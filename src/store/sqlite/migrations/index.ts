// SQLite's versioned schema: every migration in order, one file each, and what runs them. Each migration runs once,
// in its own transaction, recorded in PRAGMA user_version. Add a new file and list it at the end; never edit one
// that has shipped (a database already migrated would not see the change).
import type Database from 'better-sqlite3';
import { migration as initialSchema } from './001-initial-schema.js';
import { migration as linkReportRows } from './002-link-report-rows.js';
import { migration as searchWithoutPrefixIndexes } from './003-search-without-prefix-indexes.js';
import { migration as searchStemsAndIdentifierParts } from './004-search-stems-and-identifier-parts.js';
import { migration as oauthSignIn } from './005-oauth-sign-in.js';
import { migration as linkTextBlockedAnchors } from './006-link-text-blocked-anchors.js';
import { migration as crawlHeartbeatAndStop } from './007-crawl-heartbeat-and-stop.js';
import { migration as problemHistory } from './008-problem-history.js';
import { migration as webhookOutbox } from './009-webhook-outbox.js';
import { migration as crawlQueueAndSchedules } from './010-crawl-queue-and-schedules.js';
import { migration as pageValidatorsForRevisits } from './011-page-validators-for-revisits.js';
import { migration as pageHeadings } from './012-page-headings.js';
import { migration as searchWordsAsWritten } from './013-search-words-as-written.js';
import { migration as sharedFrontierAndHostLeases } from './014-shared-frontier-and-host-leases.js';
import { migration as sharedCrawlPlanAndWorkerReports } from './015-shared-crawl-plan-and-worker-reports.js';
import { migration as oauthRotatedRefreshTokens } from './016-oauth-rotated-refresh-tokens.js';
import { migration as crawlTasks } from './017-crawl-tasks.js';
import { migration as reportBeforeIndex } from './018-report-before-index.js';
import { migration as consoleSessions } from './019-console-sessions.js';
import { migration as webhookReceivers } from './022-webhook-receivers.js';
import { migration as searchUrlPath } from './023-search-url-path.js';
import { migration as keptPagesOfACrawl } from './024-kept-pages-of-a-crawl.js';
import { migration as spentRequestStates } from './030-spent-request-states.js';
import { migration as pageContent } from './035-page-content.js';
import { migration as crawlProblemCounts } from './045-crawl-problem-counts.js';
import { migration as crawlRetries } from './047-crawl-retries.js';
import { migration as apiKeyPrefixLastUsed } from './055-api-key-prefix-last-used.js';
import { migration as storedSchedules } from './060-stored-schedules.js';
import { migration as searchQueries } from './065-search-queries.js';
import { migration as spentSignInForms } from './085-spent-sign-in-forms.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: Migration[] = [
  initialSchema,
  linkReportRows,
  searchWithoutPrefixIndexes,
  searchStemsAndIdentifierParts,
  oauthSignIn,
  linkTextBlockedAnchors,
  crawlHeartbeatAndStop,
  problemHistory,
  webhookOutbox,
  crawlQueueAndSchedules,
  pageValidatorsForRevisits,
  pageHeadings,
  searchWordsAsWritten,
  sharedFrontierAndHostLeases,
  sharedCrawlPlanAndWorkerReports,
  oauthRotatedRefreshTokens,
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
  spentSignInForms,
];

/** Brings the database up to date: each migration past its user_version, in its own IMMEDIATE transaction. */
export function migrate(db: Database.Database): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  for (const m of MIGRATIONS) {
    if (m.version <= current) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    }).immediate();
  }
}
