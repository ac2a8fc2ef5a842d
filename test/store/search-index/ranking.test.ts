// The order of the first hits on a small fixed corpus: identifiers, titles, stems, languages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchPages } from '../../../src/store/search-index/search.js';
import type { SearchParams } from '../../../src/model/types.js';
import { BASE, searchPage as page } from '../../support/writes.js';
import { integrityCheck, tempStore, type TempStore } from '../../support/stored.js';

const filler = (n: number) =>
  'The server reads its configuration at start and serves requests for every client that connects. '.repeat(n);

const PAGES = [
  // An Apache-like manual: the page about an identifier is long; short pages and a sitemap mention it often.
  page('/mod/mod_rewrite.html', {
    title: 'mod_rewrite - Apache HTTP Server Version 2.4',
    content: `${filler(30)} The rewrite engine of mod_rewrite applies RewriteRule and RewriteCond directives. ${filler(30)}`,
  }),
  page('/sitemap.html', {
    title: 'Sitemap - Apache HTTP Server Version 2.4',
    // A sitemap lists every module and directive: long, each name once or a few times.
    content: `${Array.from({ length: 150 }, (_, i) => `mod_module${i} Directive${i}Name`).join(', ')}, mod_rewrite RewriteRule, mod_rewrite RewriteCond, mod_rewrite RewriteMap, mod_proxy ProxyPass, mod_dir DirectoryIndex.`,
  }),
  page('/rewrite/flags.html', {
    title: 'RewriteRule Flags - Apache HTTP Server Version 2.4',
    content: 'Flags of mod_rewrite rules: mod_rewrite reads them. mod_rewrite.',
  }),
  page('/mod/mod_proxy.html', {
    title: 'mod_proxy - Apache HTTP Server Version 2.4',
    content: `${filler(20)} The ProxyPass directive maps remote servers into the local space. ProxyPass /mirror/foo/ http://backend.example.com/ ProxyPassReverse. ${filler(20)}`,
  }),
  page('/mod/mod_dir.html', {
    title: 'mod_dir - Apache HTTP Server Version 2.4',
    content: `${filler(10)} DirectoryIndex Directive. DirectoryIndex index.html sets the file served for a directory; several DirectoryIndex directives add to the list. ${filler(10)}`,
  }),
  page('/howto/htaccess.html', {
    title: 'Apache HTTP Server Tutorial: .htaccess files',
    content: `${filler(10)} How to enable .htaccess files with AllowOverride. ${filler(10)}`,
  }),
  page('/howto/cgi.html', {
    title: 'Dynamic Content with CGI',
    content: `${filler(5)} To enable CGI, a .htaccess file may hold Options +ExecCGI. How to.`,
  }),
  // A PostgreSQL-like manual.
  page('/app-pgdump.html', {
    title: 'pg_dump',
    content: `pg_dump extracts a database into a script file. ${filler(15)} Run pg_dump --force? No: pg_dump has --clean.`,
  }),
  page('/app-pg-dumpall.html', {
    title: 'pg_dumpall',
    content: 'pg_dumpall extracts a cluster; it calls pg_dump for each database. pg_dump pg_dump.',
  }),
  page('/runtime-config-connection.html', {
    title: '20.3. Connections and Authentication',
    content: `${filler(20)} max_connections (integer) Determines the maximum number of concurrent connections to the database server. Raising max_connections costs shared memory. ${filler(20)}`,
  }),
  // A setting defined on a long page ("name (type)"), and a short page that only uses it.
  page('/runtime-config-wal.html', {
    title: '20.5. Write Ahead Log',
    content: `${filler(30)} wal_level (enum) wal_level determines how much information is written to the log. ${filler(30)}`,
  }),
  page('/sql-altersystem.html', {
    title: 'ALTER SYSTEM',
    content: 'Set the wal_level: ALTER SYSTEM SET wal_level = replica; then ALTER SYSTEM RESET wal_level.',
  }),
  page('/kernel-resources.html', {
    title: '19.4. Managing Kernel Resources',
    content: `${filler(20)} Semaphores: one per allowed connection (max_connections) and autovacuum worker. ${filler(20)}`,
  }),
  page('/sql-createtable.html', { title: 'CREATE TABLE', content: `CREATE TABLE defines a new table. ${filler(10)}` }),
  page('/sql-createtablespace.html', {
    title: 'CREATE TABLESPACE',
    content: 'CREATE TABLESPACE defines a tablespace, where to create a table.',
  }),
  page('/sql-createtableas.html', {
    title: 'CREATE TABLE AS',
    content: 'CREATE TABLE AS creates a table from a query.',
  }),
  page('/functions-window.html', {
    title: '9.22. Window Functions',
    content: `Window functions compute over a window frame. ${filler(10)}`,
  }),
  // A tutorial titled the same, short and full of the words: the reference named by its address comes first.
  page('/tutorial-window.html', {
    title: '3.5. Window Functions',
    content: 'Window functions: a window function call. Window functions, window functions.',
  }),
  page('/sql-expressions.html', {
    title: '4.2. Value Expressions',
    content:
      'Window function calls: a window function applies to window functions frames; window functions window functions window functions.',
  }),
  page('/routine-vacuuming.html', {
    title: '25.1. Routine Vacuuming',
    content: `Vacuuming reclaims storage. ${filler(8)}`,
  }),
  page('/sql-vacuum.html', {
    title: 'VACUUM',
    content: `VACUUM reclaims storage occupied by dead tuples. ${filler(8)}`,
  }),
  page('/cli.html', {
    title: 'Command line',
    content: `Options: --force overwrites, --quiet prints less. ${filler(3)}`,
  }),
  page('/force.html', { title: 'Forces of nature', content: 'Wind is a force; gravity is a force.' }),
  // Other languages.
  page('/sv/husen.html', {
    title: 'Om husen i byn',
    content: 'Husen byggdes av trä. Hästarnas stall ligger bakom.',
    language: 'sv',
  }),
  page('/ja/walkers.html', { title: 'ウォーカー', content: 'walkers walked', language: 'ja' }),
  page('/walks.html', { title: 'Walks', content: 'We walked home.' }),
  // Headings: the page with a section about the query, against pages that mention its words more often.
  page('/explicit-locking.html', {
    title: '13.3. Explicit Locking',
    content: `${filler(30)} Advisory Locks. PostgreSQL provides a means for creating locks that have application-defined meanings. ${filler(30)}`,
    headings: ['13.3. Explicit Locking', '13.3.1. Table-Level Locks', '13.3.5. Advisory Locks'],
  }),
  page('/view-pg-locks.html', {
    title: '54.12. pg_locks',
    content: 'The view pg_locks shows locks: advisory locks, table locks, row locks. Advisory locks are locks.',
  }),
  page('/sql-insert.html', {
    title: 'INSERT',
    content: `INSERT creates new rows. ${filler(30)} The optional ON CONFLICT clause specifies an alternative action to raising a unique violation. ${filler(30)}`,
    headings: ['INSERT', 'ON CONFLICT Clause', 'Outputs'],
  }),
  page('/logical-replication-conflicts.html', {
    title: '31.5. Conflicts',
    content: 'An insert that violates a constraint is a conflict; conflicts stop replication. Conflict on insert.',
  }),
  page('/runtime-config-resource.html', {
    title: '20.4. Resource Consumption',
    content: `${filler(30)} work_mem (integer) Sets the base maximum amount of memory for a query operation. ${filler(30)}`,
    headings: ['20.4. Resource Consumption', '20.4.1. Memory', 'work_mem (integer)'],
  }),
  page('/populate.html', {
    title: '14.4. Populating a Database',
    content: 'Increase maintenance_work_mem; work_mem matters less; work_mem work_mem.',
    headings: ['14.4.4. Increase maintenance_work_mem'],
  }),
];

let t: TempStore;
const first = (terms: string, n = 3, params: SearchParams = {}) =>
  searchPages(t.store, terms, { size: 20, ...params })
    .hits.slice(0, n)
    .map((h) => h.url.slice(BASE.length));
const all = (terms: string, params: SearchParams = {}) =>
  searchPages(t.store, terms, { size: 100, ...params }).hits.map((h) => h.url.slice(BASE.length));

beforeAll(() => {
  t = tempStore(PAGES);
});
afterAll(() => t.close());

describe('ranking', () => {
  it('puts the page whose title names an identifier first, above pages that repeat it', () => {
    expect(first('mod_rewrite', 1)).toEqual(['/mod/mod_rewrite.html']);
    expect(first('"mod_rewrite"', 1)).toEqual(['/mod/mod_rewrite.html']);
    expect(first('rewrite', 1)).toEqual(['/mod/mod_rewrite.html']);
    expect(first('pg_dump', 2)).toEqual(['/app-pgdump.html', '/app-pg-dumpall.html']);
    expect(first('pg_dumpall', 1)).toEqual(['/app-pg-dumpall.html']);
  });

  it('finds identifiers as whole tokens and by their parts', () => {
    expect(first('ProxyPass', 1)).toEqual(['/mod/mod_proxy.html']);
    expect(all('proxy pass')).toContain('/mod/mod_proxy.html');
    expect(first('DirectoryIndex', 1)).toEqual(['/mod/mod_dir.html']);
    expect(all('directory index')).toContain('/mod/mod_dir.html');
    expect(first('max_connections', 1)).toEqual(['/runtime-config-connection.html']);
    // The page that defines an identifier ("wal_level (enum)") before a shorter one that only uses it.
    expect(first('wal_level', 2)).toEqual(['/runtime-config-wal.html', '/sql-altersystem.html']);
    expect(all('connections')).toEqual(
      expect.arrayContaining(['/runtime-config-connection.html', '/kernel-resources.html']),
    );
    // An option is found by its word (the index has no token for the dashes).
    expect(all('--force')).toEqual(expect.arrayContaining(['/cli.html', '/force.html']));
  });

  it('ranks an exact title first, then titles holding every word, then body mentions', () => {
    expect(first('create table', 1)).toEqual(['/sql-createtable.html']);
    expect(first('create table', 3).sort()).toEqual([
      '/sql-createtable.html',
      '/sql-createtableas.html',
      '/sql-createtablespace.html',
    ]);
    expect(first('window functions', 3)).toEqual([
      '/functions-window.html',
      '/tutorial-window.html',
      '/sql-expressions.html',
    ]);
    expect(first('how to enable htaccess', 1)).toEqual(['/howto/htaccess.html']);
    expect(first('vacuum', 1)).toEqual(['/sql-vacuum.html']);
  });

  it('matches a word through its stem, below the word itself', () => {
    expect(first('vacuuming', 2)).toEqual(['/routine-vacuuming.html', '/sql-vacuum.html']);
    expect(all('vacuumed')).toEqual(expect.arrayContaining(['/routine-vacuuming.html', '/sql-vacuum.html']));
    // "force" is on both; the page with the word itself before the one with "forces" only in its title.
    expect(all('force')).toEqual(expect.arrayContaining(['/cli.html', '/force.html']));
  });

  it('stems Swedish pages in Swedish, and leaves a language without a stemmer as it was', () => {
    // "hästen" and "hästarnas" share the stem "häst", "byggde" and "byggdes" the stem "bygg".
    expect(first('hästen', 1, { lang: 'sv' })).toEqual(['/sv/husen.html']);
    expect(first('byggde', 1)).toEqual(['/sv/husen.html']);
    // "walking" is searched as the index's words of its stem in each stemmer the index uses ("walked", on any page);
    // with `lang`, in that language's stemmer only, and Japanese has none.
    expect(all('walking').sort()).toEqual(['/ja/walkers.html', '/walks.html']);
    expect(all('walking', { lang: 'ja' })).toEqual([]);
    expect(all('walked', { lang: 'ja' })).toEqual(['/ja/walkers.html']);
    expect(all('walked').sort()).toEqual(['/ja/walkers.html', '/walks.html']);
  });

  it('ranks a page with a heading that is the query above pages that only mention its words', () => {
    expect(first('advisory locks', 1)).toEqual(['/explicit-locking.html']);
    // A heading is read under its page's title: "INSERT" › "ON CONFLICT Clause".
    expect(first('insert on conflict', 1)).toEqual(['/sql-insert.html']);
    // An identifier in a heading is the whole identifier: work_mem is not maintenance_work_mem.
    expect(first('work_mem', 1)).toEqual(['/runtime-config-resource.html']);
  });

  it('keeps the index in step through all of it', () => {
    integrityCheck(t.store);
  });
});
