// The PostgreSQL store (database_url set): one PgSql per project, on that project's own schema of one database.
//
// Opening is lazy: the constructor connects to nothing; the first statement (of any caller) waits for the store to
// be ready — connected, migrated, and the crawls left running by a process that died marked failed — and every
// later one goes straight through (after a failure, the next statement tries again). That keeps the app's open path synchronous, as it is for SQLite, so none of its
// callers changed; a server that cannot be reached shows as the first statement's error (the password never in it).
import type { CrawlReader, CrawlSink } from '../../model/crawl-writes.js';
import { describeDatabaseUrl, withoutPassword } from '../../model/database-url.js';
import type { SearchParams, SearchResults } from '../../model/types.js';
import { CRAWL_DEAD_AFTER_MS, failDeadCrawls } from '../crawls.js';
import { recoverPendingIndex } from '../pending-index.js';
import { schemaBytes } from '../operator-reads.js';
import { fillPathWords } from './path-words-fill.js';
import { crawlReaderOf } from '../pages.js';
import type { CrawlWriterOptions, SearchScope, ServiceStore } from '../service-store.js';
import type { RunResult, Sql, SqlParams } from '../sql.js';
import { PgCrawlWriter } from './crawl-writer.js';
import { PgOutage, type OutageOptions, type OutageState } from './outage.js';
import { migratePg } from './migrations/index.js';
import { lockKey, PgSql } from './pg-sql.js';
import { searchPagesPg } from './search.js';

/**
 * The schema a project's tables live in: `svc_<id>_<region>` of its public token, lower-cased, every character
 * other than a-z, 0-9 and _ as `_` (demo:local → svc_demo_local). Where that could name two tokens alike (a `-`
 * in the token) or is longer than PostgreSQL's 63 characters, a hash of the exact token is appended.
 */
export function projectSchema(token: string): string {
  const plain = `svc_${token.toLowerCase().replace(/[^a-z0-9_]/g, '_')}`;
  if (!token.includes('-') && plain.length <= 63 && token === token.toLowerCase()) return plain;
  const hash = (lockKey(token) >>> 0).toString(16).padStart(8, '0');
  return `${plain.slice(0, 54)}_${hash}`;
}

export interface PgStoreOptions {
  /** postgres://… (config database_url). */
  url: string;
  /** The project's public token: its schema (projectSchema). */
  token: string;
  /** Opened for reading only: no migration, no clean-up of dead crawls. */
  readonly?: boolean;
  /** A crawl whose owner has not beaten for this long is dead (default CRAWL_DEAD_AFTER_MS). */
  deadAfterMs?: number;
  /** Told the crawls found dead once the store is ready (the SQLite store knows them at open). */
  onRecovered?: (ids: number[]) => void;
  /** Connections in the project's pool (default 10). */
  max?: number;
  /** How a server that stops answering once the store is ready is waited for (default: 60 s), and who hears of it. */
  outage?: OutageOptions;
}

/** The driver's error with the URL's password taken out of its message. */
function scrubbed(err: unknown, url: string): unknown {
  if (err instanceof Error) err.message = withoutPassword(err.message, url);
  return err;
}

export class PgStore implements ServiceStore {
  readonly dialect = 'pg' as const;
  readonly sql: Sql;
  readonly readonly: boolean;
  readonly location: string;
  readonly schema: string;
  /** Filled once the store is ready (empty before). */
  readonly recoveredCrawls: number[] = [];
  readonly pg: PgSql;
  /** Connecting, migrating and recovering: settled once it succeeded; null before the first statement or after a failure. */
  private readying: Promise<void> | null = null;
  private readonly prepare: () => Promise<void>;
  /** Once the store has been ready, a lost server is waited for (before, it is the first statement's error). */
  private readonly outage: PgOutage;
  private wasReady = false;

  constructor(opts: PgStoreOptions) {
    this.schema = projectSchema(opts.token);
    this.readonly = opts.readonly ?? false;
    this.location = `${describeDatabaseUrl(opts.url)} (schema ${this.schema})`;
    this.pg = new PgSql({ connectionString: opts.url, schema: this.schema, max: opts.max });
    this.prepare = async () => {
      try {
        if (this.readonly) {
          await this.pg.get('SELECT 1');
          return;
        }
        await migratePg(this.pg);
        const before = Date.now() - (opts.deadAfterMs ?? CRAWL_DEAD_AFTER_MS);
        const ids = await this.pg.tx((t) => failDeadCrawls(t, before));
        this.recoveredCrawls.push(...ids.sort((a, b) => a - b));
        if (ids.length) opts.onRecovered?.(this.recoveredCrawls);
        await recoverPendingIndex(this.pg);
        await fillPathWords(this.pg);
      } catch (err) {
        throw scrubbed(err, opts.url);
      }
    };
    const pgSql = this.pg;
    const url = opts.url;
    this.outage = new PgOutage(opts.outage);
    const once = async <T>(fn: () => Promise<T>): Promise<T> => {
      await this.ready();
      this.wasReady = true;
      return fn();
    };
    const when = async <T>(fn: () => Promise<T>): Promise<T> => {
      try {
        return await (this.wasReady ? this.outage.run(() => once(fn)) : once(fn));
      } catch (err) {
        throw scrubbed(err, url);
      }
    };
    this.sql = {
      dialect: 'pg',
      get: <T>(s: string, p?: SqlParams) => when(() => pgSql.get<T>(s, p)),
      all: <T>(s: string, p?: SqlParams) => when(() => pgSql.all<T>(s, p)),
      run: (s: string, p?: SqlParams): Promise<RunResult> => when(() => pgSql.run(s, p)),
      exec: (s: string) => when(() => pgSql.exec(s)),
      tx: <T>(fn: (sql: Sql) => Promise<T>) => when(() => pgSql.tx(fn)),
      rowTx: <T>(fn: (sql: Sql) => Promise<T>) => when(() => pgSql.rowTx(fn)),
      snapshot: <T>(fn: (sql: Sql) => Promise<T>) => when(() => pgSql.snapshot(fn)),
    };
  }

  /**
   * Waits until the store is ready, starting it on the first call. A failure (the server down, say) is the error of
   * the statements waiting then; the next statement tries again, so the service recovers once the server is back.
   */
  private ready(): Promise<void> {
    if (!this.readying) {
      const p = this.prepare();
      this.readying = p;
      p.catch(() => {
        if (this.readying === p) this.readying = null;
      });
    }
    return this.readying;
  }

  async sizeOnDisk(): Promise<{ bytes: number; counted: string }> {
    return {
      bytes: await schemaBytes(this.sql, this.schema),
      counted: "the tables and indexes of the project's schema",
    };
  }

  /** While the server does not answer (once the store has been ready): since when, and what the last try met. */
  unavailable(): OutageState | null {
    return this.outage.current();
  }

  /** When the server last answered again after not answering (ms since the epoch); null when it never stopped. */
  answeringAgainSince(): number | null {
    return this.outage.endedAt;
  }

  /** Connects and migrates now (else the first statement does); rejects with the reason the store cannot be used. */
  async open(): Promise<this> {
    await this.ready();
    return this;
  }

  searchPages(terms: string, params: SearchParams | undefined, scope: SearchScope = {}): Promise<SearchResults> {
    return searchPagesPg(this.sql as Sql & { snapshot: Sql['snapshot'] }, terms, params, scope);
  }

  openCrawlWriter(crawlId: number, opts: CrawlWriterOptions = {}): CrawlSink {
    // The database commits on its own connection while the crawl goes on: no writer thread either way.
    return new PgCrawlWriter(this.sql, crawlId, { deferIndex: opts.deferIndex });
  }

  crawlReader(): CrawlReader {
    return crawlReaderOf(this.sql);
  }

  private closing: Promise<void> | null = null;

  /** Ends the pool (once: closing again waits for the same end). */
  close(): Promise<void> {
    return (this.closing ??= (async () => {
      // A store never used has nothing to wait for; one opening finishes first so its pool ends cleanly.
      await this.readying?.catch(() => {});
      await this.pg.close();
    })());
  }
}
