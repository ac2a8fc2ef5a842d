// The URL path as a search field, on both stores: a word a person types that only a page's address holds finds that
// page first, and the address never outranks a title that is the query. pathWords itself: what an address's words are.
import { describe, expect, it } from 'vitest';
import { pathWords } from '../../../src/store/search/path-words.js';
import { DIALECTS, rankingCorpus } from '../../support/stores.js';
import { BASE, searchPage as page } from '../../support/writes.js';

describe('pathWords', () => {
  it('splits the path on / . - _, drops the file extension and an index page, keeps the host out', () => {
    expect(pathWords('https://example.test/programs/apachectl.html')).toBe('programs apachectl');
    expect(pathWords('https://example.test/mod/mod_rewrite.html')).toBe('mod mod rewrite');
    expect(pathWords('https://example.test/library/os.path.html')).toBe('library os path');
    expect(pathWords('https://example.test/dns-caveats.html?x=1#top')).toBe('dns caveats');
    expect(pathWords('https://example.test/docs/2.4/index.html')).toBe('docs 2 4');
    expect(pathWords('https://example.test/howto/')).toBe('howto');
    expect(pathWords('https://example.test/')).toBe('');
    expect(pathWords('https://example.test/caf%C3%A9/na%00me')).toBe('café na me');
    expect(pathWords('not a url')).toBe('');
  });
});

const filler = (n: number) => 'The server answers requests and writes what it did to its logs. '.repeat(n);

const PAGES = [
  // Its name only in its address: the title and text say "control interface".
  page('/programs/apachectl.html', {
    title: 'Server Control Interface',
    content: `A front end to the server's binary: start, stop and restart it. ${filler(6)}`,
  }),
  // A page that names apachectl in its text.
  page('/invoking.html', {
    title: 'Starting the server',
    content: `Run apachectl start to start the server in the background. ${filler(6)}`,
  }),
  // An address that holds a word another page has as its whole title.
  page('/caveats/timeouts.html', {
    title: 'Timeout notes',
    content: `Requests wait for timeouts; timeouts. ${filler(2)}`,
  }),
  page('/guide.html', {
    title: 'Caveats',
    content: `What to keep in mind before you start. ${filler(8)}`,
  }),
  // Two words of the address, as a person writes the page's topic.
  page('/dns-caveats.html', {
    title: 'Issues Regarding DNS and the Server',
    content: `The configuration should not depend on name lookups. ${filler(5)}`,
  }),
  page('/misc/dns.html', {
    title: 'Name resolution',
    content: `DNS lookups and caveats of DNS: caveats when DNS is slow. ${filler(5)}`,
  }),
  // Pages with none of the query words: a word's rarity means something (bm25 gives a word on most pages no weight).
  ...['logs', 'modules', 'ports', 'users', 'limits', 'files', 'hosts', 'cache'].map((topic) =>
    page(`/${topic}.html`, { title: `About ${topic}`, content: `Of ${topic}. ${filler(4)}` }),
  ),
];

describe.each(DIALECTS)('the URL path as a search field (%s)', (dialect) => {
  const { order } = rankingCorpus(dialect, PAGES, BASE);

  it('finds a page by a word only its address holds, first, above a page whose text names it', async () => {
    expect(await order('apachectl')).toEqual(['/programs/apachectl.html', '/invoking.html']);
  });

  it('finds a page by two words of its address, above a page whose text has both', async () => {
    expect((await order('dns caveats'))[0]).toBe('/dns-caveats.html');
  });

  it('does not rank an address above a title that is the query', async () => {
    expect(await order('caveats')).toEqual(expect.arrayContaining(['/guide.html', '/caveats/timeouts.html']));
    expect((await order('caveats'))[0]).toBe('/guide.html');
  });
});
