// The general ranking rules, on both stores: the order of the first hits on a small fixed corpus for a title with
// version numbers, a dotted and a dashed name, a phrase that is a page's whole title (or its name after a
// separator), a short how-to query, a section heading many pages share, and a function's definition. No rule here
// names this corpus: its pages only make each rule decide.
import { describe, expect, it } from 'vitest';
import { DIALECTS, rankingCorpus } from '../../support/stores.js';
import { BASE, searchPage as page } from '../../support/writes.js';

const filler = (n: number) =>
  'The server reads its configuration at start and serves requests for every client that connects. '.repeat(n);

const PAGES = [
  // Titles with version numbers: the 2.4 page speaks of 2.2 and of new features too.
  page('/new_features_2_2.html', {
    title: 'Overview of new features in Apache HTTP Server 2.2',
    content: `New features in version 2.2: smarter caching and proxy load balancing. ${filler(8)}`,
  }),
  page('/new_features_2_4.html', {
    title: 'Overview of new features in Apache HTTP Server 2.4',
    content: `New features in 2.4, with 2 modules from 2.2 reworked and 2 new ones: ${filler(2)} features features 2 2 4.`,
  }),
  page('/upgrading.html', {
    title: 'Upgrading to 2.4 from 2.2',
    content: `What changed when upgrading to 2.4 from 2.2: configuration changes. ${filler(10)}`,
  }),
  // A dotted name: its module's page, and a short page that has its words apart, often.
  page('/library/os.path.html', {
    title: 'os.path — Common pathname manipulations',
    content: `This module implements some useful functions on pathnames: os.path.join, os.path.exists. ${filler(12)}`,
  }),
  page('/library/glob.html', {
    title: 'glob — Unix style pathname pattern expansion',
    content: 'The path of each file found; the os module lists a path; os and path, path and os, os path.',
  }),
  // A dashed name: the page about the header, and one whose words are the same, apart.
  page('/mod/mod_remoteip.html', {
    title: 'mod_remoteip - Apache HTTP Server Version 2.4',
    content: `${filler(10)} RemoteIPHeader X-Forwarded-For takes the client address from the X-Forwarded-For header. ${filler(10)}`,
  }),
  page('/faq.html', {
    title: 'Questions',
    content: 'For x in the list, for each x the requests are forwarded for you; forwarded for x, and for x.',
  }),
  // A joined name whose last word is written in another form ("f-string" for `f-strings`).
  page('/reference/lexical.html', {
    title: 'Lexical analysis',
    content: `${filler(6)} A formatted string literal or f-string is a string literal prefixed with f. ${filler(6)}`,
  }),
  // A phrase that is a page's whole title, and two module pages with a section of that name.
  page('/howto/ssi.html', {
    title: 'Introduction to Server Side Includes',
    content: `Server side includes let pages include other files. ${filler(25)}`,
  }),
  page('/mod/mod_include.html', {
    title: 'mod_include - Apache HTTP Server Version 2.4',
    headings: ['Summary', 'Server Side Includes', 'Directives'],
    content: `Server side includes are parsed by this module. Server side includes, server side includes. ${filler(4)}`,
  }),
  page('/misc/security.html', {
    title: 'Security Tips - Apache HTTP Server Version 2.4',
    headings: ['Security Tips', 'Server Side Includes', 'CGI in General'],
    content: `Server side includes can run programs: server side includes, server side includes. ${filler(4)}`,
  }),
  // A heading no other page has: the section of the one page about it comes before mere mentions.
  page('/warm-standby.html', {
    title: 'Log-Shipping Standby Servers',
    headings: ['27.2. Log-Shipping Standby Servers', '27.2.5. Streaming Replication'],
    content: `${filler(20)} Streaming replication allows a standby server to stay more up-to-date. ${filler(20)}`,
  }),
  page('/high-availability.html', {
    title: 'High Availability',
    content: 'Replication methods: streaming of the log, and replication by triggers; streaming replication too.',
  }),
  // A short how-to query: the guide titled by it, above the module page that uses its words most.
  page('/howto/reverse_proxy.html', {
    title: 'Reverse Proxy Guide',
    content: `How to set up a reverse proxy in front of your servers. ${filler(25)}`,
  }),
  page('/mod/mod_proxy.html', {
    title: 'mod_proxy - Apache HTTP Server Version 2.4',
    headings: ['Forward Proxies and Reverse Proxies', 'Reverse Proxy'],
    content: 'A reverse proxy and a forward proxy. The reverse proxy: reverse proxy, reverse proxy, reverse proxy.',
  }),
  page('/urlmapping.html', {
    title: 'Mapping URLs to Filesystem Locations',
    headings: ['Mapping URLs', 'Reverse Proxy'],
    content: 'Reverse proxy: a reverse proxy maps a remote server. Reverse proxy, reverse proxy.',
  }),
  // A title whose own name comes after the series' ("Tutorial: …"), and a page with a section of that name.
  page('/howto/htaccess.html', {
    title: 'Apache HTTP Server Tutorial: .htaccess files',
    content: `.htaccess files provide a way to make configuration changes per directory. ${filler(25)}`,
  }),
  page('/configuring.html', {
    title: 'Configuration Files',
    headings: ['Main Configuration Files', '.htaccess Files'],
    content: `Files named .htaccess: .htaccess files, .htaccess files hold directives. ${filler(3)}`,
  }),
  // Identifiers of several parts, the last one typed as a prefix.
  page('/runtime-config-logging.html', {
    title: '20.8. Error Reporting and Logging',
    content: `${filler(10)} log_min_duration_statement (integer) Causes the duration of each statement to be logged. ${filler(10)}`,
  }),
  page('/app-pgdump.html', {
    title: 'pg_dump',
    content: `pg_dump extracts a database into a script file. ${filler(5)}`,
  }),
  page('/dump-notes.html', { title: 'Notes', content: 'Dump the pg cluster with a tool; to dump pg.' }),
  // A function's page defines it (its signature); another page refers to it and calls it in an example.
  page('/c3ref/prepare.html', {
    title: 'Compiling An SQL Statement',
    content: `${filler(10)} int sqlite3_prepare_v2(\n  sqlite3 *db,\n  const char *zSql\n); ${filler(10)}`,
  }),
  page('/unlock_notify.html', {
    title: 'Unlock Notify',
    content: `A call to sqlite3_prepare_v2() may wait: rc = sqlite3_prepare_v2(db, zSql, n, &p, 0); then
      sqlite3_prepare_v2() again, if( f(x, sqlite3_prepare_v2(db, z, n, &p, 0)) ) once more.`,
  }),
];

describe.each(DIALECTS)('general ranking rules (%s)', (dialect) => {
  const { order } = rankingCorpus(dialect, PAGES, BASE);

  it('ranks the page whose whole title is the query, version numbers and all, first', async () => {
    expect((await order('upgrading to 2.4 from 2.2'))[0]).toBe('/upgrading.html');
    expect((await order('new features in 2.2'))[0]).toBe('/new_features_2_2.html');
    // `2.2` is the version as typed: the 2.4 page, whose title holds the words 2 and 2 apart, comes after.
    const twoTwo = await order('new features 2.2');
    expect(twoTwo[0]).toBe('/new_features_2_2.html');
  });

  it('matches a dotted or dashed name as typed, not as its words anywhere', async () => {
    expect((await order('os.path'))[0]).toBe('/library/os.path.html');
    expect(await order('x-forwarded-for')).toEqual(['/mod/mod_remoteip.html']);
    expect(await order('X-Forwarded-For header')).toEqual(['/mod/mod_remoteip.html']);
  });

  it("finds a joined name by its last word's other form", async () => {
    expect(await order('f-strings')).toEqual(['/reference/lexical.html']);
  });

  it('ranks a phrase that is a whole title above pages with a section of that name on several pages', async () => {
    const hits = await order('server side includes');
    expect(hits[0]).toBe('/howto/ssi.html');
    expect(hits.slice(1).sort()).toEqual(['/misc/security.html', '/mod/mod_include.html']);
  });

  it('ranks the guide a short how-to query names above module pages that repeat its words', async () => {
    const hits = await order('reverse proxy');
    expect(hits[0]).toBe('/howto/reverse_proxy.html');
    expect(hits).toHaveLength(3);
  });

  it('still ranks a section heading that only one page has above pages that only mention its words', async () => {
    expect(await order('streaming replication')).toEqual(['/warm-standby.html', '/high-availability.html']);
  });

  it("ranks a page first whose title names it after a separator, above a page's section of that name", async () => {
    expect(await order('htaccess files')).toEqual(['/howto/htaccess.html', '/configuring.html']);
  });

  it("ranks a function's defining page above one that names it with empty parentheses and calls it", async () => {
    expect(await order('sqlite3_prepare_v2')).toEqual(['/c3ref/prepare.html', '/unlock_notify.html']);
  });

  it('searches an identifier of several parts typed as a prefix, in its order', async () => {
    expect(await order('log_min_duration_statement')).toEqual(['/runtime-config-logging.html']);
    expect(await order('log_min_duration_stat')).toEqual(['/runtime-config-logging.html']);
    // `pg_dump` is pg then dump: "dump pg" on a page is not it.
    expect(await order('pg_dump')).toEqual(['/app-pgdump.html']);
  });
});
