// Known-item queries on the SQLite documentation (Debian's sqlite3-doc, its top-level pages and the C interface's
// c3ref/ pages), a MEASURED-ONLY corpus added with issue 43 and never tuned on: written from the pages' titles and
// contents before any engine was run on it. Where two pages could answer, the one whose subject is exactly the
// query wins: a statement's own page over the pages that use it, a C function's c3ref page over the guides.
// The site's lists of documents (doclist, sitemap, the crossreferences) are left out, as a site's index pages.
import type { Corpus, KnownItem } from './known-item.js';

const items: KnownItem[] = [
  // Statements and clauses, by name.
  { query: 'upsert', page: 'lang_upsert.html', why: 'the UPSERT page' },
  { query: 'alter table', page: 'lang_altertable.html', why: 'the ALTER TABLE statement' },
  { query: 'create index', page: 'lang_createindex.html', why: 'the CREATE INDEX statement' },
  { query: 'create trigger', page: 'lang_createtrigger.html', why: 'the CREATE TRIGGER statement' },
  { query: 'create table', page: 'lang_createtable.html', why: 'the CREATE TABLE statement' },
  { query: 'attach database', page: 'lang_attach.html', why: 'the ATTACH DATABASE statement' },
  { query: 'savepoint', page: 'lang_savepoint.html', why: 'the Savepoints page' },
  { query: 'vacuum', page: 'lang_vacuum.html', why: 'the VACUUM statement' },
  { query: 'on conflict clause', page: 'lang_conflict.html', why: 'the ON CONFLICT clause' },
  { query: 'explain query plan', page: 'eqp.html', why: 'the EXPLAIN QUERY PLAN page' },
  { query: 'select statement', page: 'lang_select.html', why: 'the SELECT statement' },
  // Features and extensions.
  { query: 'autoincrement', page: 'autoinc.html', why: '"SQLite Autoincrement"' },
  { query: 'window functions', page: 'windowfunctions.html', why: 'the Window Functions page' },
  { query: 'generated columns', page: 'gencol.html', why: 'the Generated Columns page' },
  { query: 'strict tables', page: 'stricttables.html', why: 'the STRICT Tables page' },
  { query: 'json functions', page: 'json1.html', why: '"JSON Functions And Operators"' },
  { query: 'json_extract', page: 'json1.html', why: 'json_extract() is defined among the JSON functions' },
  { query: 'fts5', page: 'fts5.html', why: '"SQLite FTS5 Extension"' },
  { query: 'rtree', page: 'rtree.html', why: '"The SQLite R*Tree Module"' },
  { query: 'generate_series', page: 'series.html', why: '"The generate_series Table-Valued Function"' },
  { query: 'in-memory database', page: 'inmemorydb.html', why: 'the In-Memory Databases page' },
  { query: 'memory mapped io', page: 'mmap.html', why: '"Memory-Mapped I/O"' },
  { query: 'write-ahead logging', page: 'wal.html', why: 'the Write-Ahead Logging page' },
  { query: 'without rowid', page: 'withoutrowid.html', why: '"the WITHOUT ROWID Optimization"' },
  { query: 'partial indexes', page: 'partialindex.html', why: 'the Partial Indexes page' },
  { query: 'indexes on expressions', page: 'expridx.html', why: 'the Indexes On Expressions page' },
  { query: 'foreign keys', page: 'foreignkeys.html', why: '"SQLite Foreign Key Support"' },
  { query: 'date and time functions', page: 'lang_datefunc.html', why: 'the Date And Time Functions page' },
  { query: 'aggregate functions', page: 'lang_aggfunc.html', why: '"Built-in Aggregate Functions"' },
  { query: 'loadable extensions', page: 'loadext.html', why: '"Run-Time Loadable Extensions"' },
  { query: 'session extension', page: 'sessionintro.html', why: '"The Session Extension"' },
  { query: 'backup api', page: 'backup.html', why: '"SQLite Backup API"' },
  { query: 'spellfix', page: 'spellfix1.html', why: 'the Spellfix1 Virtual Table' },
  // Concepts and how-tos.
  { query: 'type affinity', page: 'datatype3.html', why: 'type affinity is explained in "Datatypes In SQLite"' },
  { query: 'compile time options', page: 'compile.html', why: 'the Compile-time Options page' },
  { query: 'temporary files', page: 'tempfiles.html', why: '"Temporary Files Used By SQLite"' },
  { query: 'implementation limits', page: 'limits.html', why: '"Implementation Limits For SQLite"' },
  { query: 'file locking', page: 'lockingv3.html', why: '"File Locking And Concurrency In SQLite Version 3"' },
  { query: 'atomic commit', page: 'atomiccommit.html', why: '"Atomic Commit In SQLite"' },
  { query: 'how to corrupt a database', page: 'howtocorrupt.html', why: '"How To Corrupt An SQLite Database File"' },
  { query: 'command line shell', page: 'cli.html', why: '"Command Line Shell For SQLite"' },
  { query: 'query planner', page: 'queryplanner.html', why: 'the Query Planning page' },
  { query: 'journal_mode', page: 'pragma.html', why: 'PRAGMA journal_mode is defined among the pragmas' },
  { query: 'shared cache mode', page: 'sharedcache.html', why: '"SQLite Shared-Cache Mode"' },
  // The C interface, by function name.
  { query: 'sqlite3_open', page: 'c3ref/open.html', why: '"Opening A New Database Connection"' },
  { query: 'sqlite3_prepare_v2', page: 'c3ref/prepare.html', why: '"Compiling An SQL Statement"' },
  { query: 'sqlite3_exec', page: 'c3ref/exec.html', why: '"One-Step Query Execution Interface"' },
  { query: 'sqlite3_busy_timeout', page: 'c3ref/busy_timeout.html', why: '"Set A Busy Timeout"' },
  {
    query: 'sqlite3_bind_int',
    page: 'c3ref/bind_blob.html',
    why: 'sqlite3_bind_int is one of "Binding Values To Prepared Statements"',
  },
];

const INDEX_PAGES = new Set([
  'doclist.html',
  'sitemap.html',
  'doc_backlink_crossref.html',
  'doc_pagelink_crossref.html',
]);

export const SQLITE: Corpus = {
  name: 'SQLite documentation',
  role: 'measured',
  root: '/usr/share/doc/sqlite3',
  debianPackage: 'sqlite3-doc',
  pages: (path) =>
    path.endsWith('.html') && (!path.includes('/') || path.startsWith('c3ref/')) && !INDEX_PAGES.has(path),
  items,
};
