// Known-item queries on the PostgreSQL 15 manual (Debian's postgresql-doc-15), the TUNING corpus:
// what a person would type, the page they want (its file name), and why that page is the right one. Written
// from the manual's contents before measuring; where two pages could answer, the one whose subject is exactly
// the query wins (a reference page over a chapter's table of contents; the setting's definition over mentions).

import type { Corpus, KnownItem } from './known-item.js';

const items: KnownItem[] = [
  // Programs and settings: identifiers as people type them.
  { query: 'pg_dump', page: 'app-pgdump.html', why: 'the reference page of the pg_dump program, titled "pg_dump"' },
  { query: 'pg_restore', page: 'app-pgrestore.html', why: 'the reference page of pg_restore' },
  { query: 'pg_dumpall', page: 'app-pg-dumpall.html', why: 'the reference page of pg_dumpall' },
  { query: 'pg_basebackup', page: 'app-pgbasebackup.html', why: 'the reference page of pg_basebackup' },
  { query: 'pg_ctl', page: 'app-pg-ctl.html', why: 'the reference page of pg_ctl' },
  { query: 'pg_upgrade', page: 'pgupgrade.html', why: 'the reference page of pg_upgrade' },
  { query: 'psql', page: 'app-psql.html', why: 'the reference page of the psql client' },
  { query: 'initdb', page: 'app-initdb.html', why: 'the reference page of initdb' },
  { query: 'pgbench', page: 'pgbench.html', why: 'the reference page of pgbench' },
  { query: 'vacuumdb', page: 'app-vacuumdb.html', why: 'the reference page of vacuumdb' },
  {
    query: 'max_connections',
    page: 'runtime-config-connection.html',
    why: 'where the max_connections setting is defined (20.3.1 Connection Settings)',
  },
  {
    query: 'shared_buffers',
    page: 'runtime-config-resource.html',
    why: 'where the shared_buffers setting is defined (20.4.1 Memory)',
  },
  {
    query: 'work_mem',
    page: 'runtime-config-resource.html',
    why: 'where the work_mem setting is defined (20.4.1 Memory)',
  },
  {
    query: 'wal_level',
    page: 'runtime-config-wal.html',
    why: 'where the wal_level setting is defined (20.5.1 Settings)',
  },
  {
    query: 'log_min_duration_statement',
    page: 'runtime-config-logging.html',
    why: 'where the setting is defined (20.8.2 When to Log)',
  },
  {
    query: 'statement_timeout',
    page: 'runtime-config-client.html',
    why: 'where statement_timeout is defined (20.11.1 Statement Behavior)',
  },
  {
    query: 'random_page_cost',
    page: 'runtime-config-query.html',
    why: 'where random_page_cost is defined (20.7.2 Planner Cost Constants)',
  },
  { query: 'pg_hba.conf', page: 'auth-pg-hba-conf.html', why: 'the page titled "The pg_hba.conf File"' },
  { query: 'pg_stat_statements', page: 'pgstatstatements.html', why: 'the page of the pg_stat_statements module' },
  {
    query: 'pg_stat_activity',
    page: 'monitoring-stats.html',
    why: 'the pg_stat_activity view is documented in the cumulative statistics system section',
  },
  { query: 'pg_locks', page: 'view-pg-locks.html', why: 'the page of the pg_locks system view' },
  { query: 'pg_trgm', page: 'pgtrgm.html', why: 'the page of the pg_trgm module' },
  { query: 'postgres_fdw', page: 'postgres-fdw.html', why: 'the page of the postgres_fdw module' },
  { query: 'hstore', page: 'hstore.html', why: 'the page of the hstore module' },
  { query: 'pgcrypto', page: 'pgcrypto.html', why: 'the page of the pgcrypto module' },
  // SQL commands and clauses.
  {
    query: 'vacuum full',
    page: 'sql-vacuum.html',
    why: 'VACUUM FULL is an option of the VACUUM command, documented on its reference page',
  },
  {
    query: 'create index concurrently',
    page: 'sql-createindex.html',
    why: 'CONCURRENTLY is an option of CREATE INDEX ("Building Indexes Concurrently" is on that page)',
  },
  { query: 'alter table add column', page: 'sql-altertable.html', why: 'ADD COLUMN is a form of ALTER TABLE' },
  { query: 'create table', page: 'sql-createtable.html', why: 'the reference page of CREATE TABLE' },
  { query: 'copy from csv', page: 'sql-copy.html', why: 'COPY ... FROM with FORMAT csv is the COPY command' },
  { query: 'insert on conflict', page: 'sql-insert.html', why: 'ON CONFLICT is a clause of INSERT' },
  {
    query: 'upsert',
    page: 'sql-insert.html',
    why: 'INSERT ... ON CONFLICT is what the manual calls an upsert (on the INSERT page)',
  },
  { query: 'merge', page: 'sql-merge.html', why: 'the reference page of the MERGE command' },
  { query: 'truncate table', page: 'sql-truncate.html', why: 'the reference page of TRUNCATE' },
  { query: 'create extension', page: 'sql-createextension.html', why: 'the reference page of CREATE EXTENSION' },
  {
    query: 'refresh materialized view',
    page: 'sql-refreshmaterializedview.html',
    why: 'the reference page of REFRESH MATERIALIZED VIEW',
  },
  { query: 'create trigger', page: 'sql-createtrigger.html', why: 'the reference page of CREATE TRIGGER' },
  { query: 'create function', page: 'sql-createfunction.html', why: 'the reference page of CREATE FUNCTION' },
  { query: 'alter system', page: 'sql-altersystem.html', why: 'the reference page of ALTER SYSTEM' },
  { query: 'create type', page: 'sql-createtype.html', why: 'the reference page of CREATE TYPE' },
  { query: 'savepoint', page: 'sql-savepoint.html', why: 'the reference page of SAVEPOINT' },
  { query: 'reindex', page: 'sql-reindex.html', why: 'the reference page of REINDEX' },
  {
    query: 'explain analyze',
    page: 'using-explain.html',
    why: 'section 14.1.2 "EXPLAIN ANALYZE" explains reading its output',
  },
  {
    query: 'with recursive',
    page: 'queries-with.html',
    why: 'recursive queries are explained in "WITH Queries (Common Table Expressions)"',
  },
  {
    query: 'common table expressions',
    page: 'queries-with.html',
    why: 'the page titled "WITH Queries (Common Table Expressions)"',
  },
  {
    query: 'union intersect except',
    page: 'queries-union.html',
    why: 'the page titled "Combining Queries (UNION, INTERSECT, EXCEPT)"',
  },
  { query: 'limit and offset', page: 'queries-limit.html', why: 'the page titled "LIMIT and OFFSET"' },
  // Functions.
  { query: 'json functions', page: 'functions-json.html', why: 'the page titled "JSON Functions and Operators"' },
  {
    query: 'window functions',
    page: 'functions-window.html',
    why: 'the reference page "Window Functions" listing them (the tutorial page 3.5 only introduces them)',
  },
  {
    query: 'aggregate functions',
    page: 'functions-aggregate.html',
    why: 'the reference page "Aggregate Functions" listing them (the tutorial page 2.7 only introduces them)',
  },
  { query: 'string functions', page: 'functions-string.html', why: 'the page titled "String Functions and Operators"' },
  { query: 'array functions', page: 'functions-array.html', why: 'the page titled "Array Functions and Operators"' },
  {
    query: 'date_trunc',
    page: 'functions-datetime.html',
    why: 'date_trunc is documented in "Date/Time Functions and Operators"',
  },
  {
    query: 'to_char',
    page: 'functions-formatting.html',
    why: 'to_char is documented in "Data Type Formatting Functions"',
  },
  {
    query: 'generate_series',
    page: 'functions-srf.html',
    why: 'generate_series is documented in "Set Returning Functions"',
  },
  { query: 'coalesce', page: 'functions-conditional.html', why: 'COALESCE is documented in "Conditional Expressions"' },
  {
    query: 'regular expressions',
    page: 'functions-matching.html',
    why: 'POSIX regular expressions are documented in "Pattern Matching"',
  },
  {
    query: 'pg_terminate_backend',
    page: 'functions-admin.html',
    why: 'pg_terminate_backend is documented in "System Administration Functions"',
  },
  {
    query: 'nextval',
    page: 'functions-sequence.html',
    why: 'nextval is documented in "Sequence Manipulation Functions"',
  },
  { query: 'gen_random_uuid', page: 'functions-uuid.html', why: 'gen_random_uuid is documented in "UUID Functions"' },
  // Types.
  { query: 'jsonb', page: 'datatype-json.html', why: 'the json and jsonb types are documented in "JSON Types"' },
  {
    query: 'timestamp with time zone',
    page: 'datatype-datetime.html',
    why: 'the timestamp types are documented in "Date/Time Types"',
  },
  { query: 'enum types', page: 'datatype-enum.html', why: 'the page titled "Enumerated Types"' },
  { query: 'range types', page: 'rangetypes.html', why: 'the page titled "Range Types"' },
  { query: 'composite types', page: 'rowtypes.html', why: 'the page titled "Composite Types"' },
  { query: 'bytea', page: 'datatype-binary.html', why: 'bytea is the type of "Binary Data Types"' },
  { query: 'tsvector', page: 'datatype-textsearch.html', why: 'tsvector is documented in "Text Search Types"' },
  // Concepts and tasks.
  { query: 'transaction isolation', page: 'transaction-iso.html', why: 'the page titled "Transaction Isolation"' },
  {
    query: 'advisory locks',
    page: 'explicit-locking.html',
    why: 'advisory locks are section 13.3.5 of "Explicit Locking"',
  },
  { query: 'row level security', page: 'ddl-rowsecurity.html', why: 'the page titled "Row Security Policies"' },
  { query: 'table partitioning', page: 'ddl-partitioning.html', why: 'the page titled "Table Partitioning"' },
  { query: 'partial indexes', page: 'indexes-partial.html', why: 'the page titled "Partial Indexes"' },
  {
    query: 'index only scans',
    page: 'indexes-index-only-scans.html',
    why: 'the page titled "Index-Only Scans and Covering Indexes"',
  },
  { query: 'multicolumn indexes', page: 'indexes-multicolumn.html', why: 'the page titled "Multicolumn Indexes"' },
  { query: 'gin indexes', page: 'gin.html', why: 'the chapter titled "GIN Indexes"' },
  {
    query: 'autovacuum',
    page: 'routine-vacuuming.html',
    why: 'the autovacuum daemon is explained in "Routine Vacuuming" (25.1.6)',
  },
  {
    query: 'point in time recovery',
    page: 'continuous-archiving.html',
    why: 'the page titled "Continuous Archiving and Point-in-Time Recovery (PITR)"',
  },
  {
    query: 'streaming replication',
    page: 'warm-standby.html',
    why: 'streaming replication is section 27.2.5 of "Log-Shipping Standby Servers"',
  },
  { query: 'logical replication', page: 'logical-replication.html', why: 'the chapter titled "Logical Replication"' },
  { query: 'hot standby', page: 'hot-standby.html', why: 'the page titled "Hot Standby"' },
  { query: 'ssl connections', page: 'ssl-tcp.html', why: 'the page titled "Secure TCP/IP Connections with SSL"' },
  { query: 'password authentication', page: 'auth-password.html', why: 'the page titled "Password Authentication"' },
  { query: 'predefined roles', page: 'predefined-roles.html', why: 'the page titled "Predefined Roles"' },
  { query: 'error codes', page: 'errcodes-appendix.html', why: 'the appendix titled "PostgreSQL Error Codes"' },
  {
    query: 'reserved key words',
    page: 'sql-keywords-appendix.html',
    why: 'the appendix "SQL Key Words" lists which are reserved',
  },
  {
    query: 'raise exception plpgsql',
    page: 'plpgsql-errors-and-messages.html',
    why: 'RAISE is documented in PL/pgSQL "Errors and Messages"',
  },
  {
    query: 'plpgsql trigger functions',
    page: 'plpgsql-trigger.html',
    why: 'the PL/pgSQL page titled "Trigger Functions"',
  },
  {
    query: 'character set encoding',
    page: 'multibyte.html',
    why: 'the page titled "Character Set Support" (encodings)',
  },
  { query: 'parallel query', page: 'parallel-query.html', why: 'the chapter titled "Parallel Query"' },
  { query: 'generated columns', page: 'ddl-generated-columns.html', why: 'the page titled "Generated Columns"' },
];

export const POSTGRESQL: Corpus = {
  name: 'PostgreSQL 15 manual',
  role: 'tuning',
  root: '/usr/share/doc/postgresql-doc-15/html',
  debianPackage: 'postgresql-doc-15',
  pages: (path) => !path.includes('/') && path.endsWith('.html'),
  items,
};
