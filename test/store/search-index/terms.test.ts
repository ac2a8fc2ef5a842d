import { describe, expect, it } from 'vitest';
import { DEFINITION_TERM } from '../../../src/model/crawl-writes.js';
import { distinctWords, extraTerms } from '../../../src/store/search-index/terms.js';
import {
  addressNameLevel,
  definitionPattern,
  exactTitleLevel,
  headingLevel,
  pathHolds,
  queryUnits,
  titleNames,
  titleSegments,
  titleScore,
  type RankWord,
} from '../../../src/store/search/titles.js';
import { algorithmFor, stemmable, stemWord } from '../../../src/store/search/stems.js';
import { buildQuery, parseTerms, toExpression } from '../../../src/store/search/query.js';

const terms = (text: string, lang: string | null) => extraTerms(text, lang).split(' ').filter(Boolean).sort();
const w = (word: string, prefix = false): RankWord => ({ word, prefix, idf: 1 });

describe('extra terms of a page (stems and identifier parts)', () => {
  it('adds the English stems that differ from their word, each once', () => {
    expect(terms('Functions and indexes: running functions', 'en')).toEqual(['function', 'index', 'run']);
    // Words that are their own stem add nothing: the index holds them already.
    expect(terms('index run', 'en-GB')).toEqual([]);
  });

  it('stems Swedish pages with the Swedish stemmer, diacritics kept for it', () => {
    expect(terms('Flickorna och husen, hästarnas möjligheter', 'sv')).toEqual(['flick', 'hus', 'häst', 'möj']);
    expect(terms('Husen', 'sv-FI')).toEqual(['hus']);
  });

  it('leaves pages in a language without a stemmer as they were, and stems pages without a language as English', () => {
    expect(terms('runners running', 'ja')).toEqual([]);
    expect(algorithmFor('ja')).toBeNull();
    expect(algorithmFor(null)).toBe('english');
    expect(terms('runners', null)).toEqual(['runner']);
  });

  it('splits camelCase identifiers into their parts (and stems those), in any language', () => {
    expect(terms('ProxyPass', 'en')).toEqual(['pass', 'proxi', 'proxy']);
    expect(terms('DirectoryIndex', 'ja')).toEqual(['directory', 'index']);
    expect(terms('maxConnections getHTTPServer', 'ja')).toEqual(['connections', 'get', 'http', 'max', 'server']);
  });

  it('keeps numbers and codes as they are and copes with any Unicode', () => {
    expect(terms('2024 x86_64 ÅÄÖ 日本語 😀 \u0301', 'en')).toEqual([]);
    expect(() => extraTerms('\u0000\uffff\ud800 '.repeat(1000), 'sv')).not.toThrow();
  });
});

describe('stems of query words', () => {
  it("stems a word in each language's Snowball algorithm, and only words of letters", () => {
    expect(stemWord('english', 'functions')).toBe('function');
    expect(stemWord('swedish', 'husen')).toBe('hus');
    expect(stemWord('english', 'index')).toBe('index');
    expect(stemmable('x86')).toBe(false);
    expect(stemWord('english', 'x86')).toBe('x86');
  });
});

describe('identifiers in queries', () => {
  it('searches snake_case identifiers as the phrase of their parts, the last part typed as a prefix', () => {
    expect(parseTerms('max_connections')).toEqual([
      { words: ['max', 'connections'], phrase: true, prefix: true, identifier: true, typed: 'max_connections' },
    ]);
    // Words joined by a dot, a dash, a slash or an apostrophe are one name too, as typed.
    for (const typed of ['os.path', 'x-forwarded-for', '2.4', 'http/2', "what's"])
      expect(parseTerms(typed)).toMatchObject([{ phrase: true, identifier: true, typed }]);
    expect(parseTerms('end. next')).toMatchObject([{ words: ['end'] }, { words: ['next'] }]);
    expect(buildQuery('pg_dump restore').expression).toBe('"pg dump" AND "restore"*');
    expect(buildQuery('mod_rewrite').expression).toBe('"mod rewrite"*');
  });

  it('ranks an identifier by its parts too, matching the same pages', () => {
    expect(toExpression(parseTerms('shared_buffers size'), undefined, undefined, true)).toBe(
      '("shared buffers" AND ("shared" OR "buffers")) AND "size"*',
    );
    expect(toExpression(parseTerms('shared_buff'), undefined, undefined, true)).toBe('("shared buff"* AND ("shared"))');
    expect(toExpression(parseTerms('shared_buff'))).toBe('"shared buff"*');
  });

  it('treats an option as its word and searches plain words with their other forms, not phrases', () => {
    expect(buildQuery('--force').expression).toBe('"force"*');
    // The forms come from the index's vocabulary (completions.ts stemForms); here a fixed list.
    const forms: Record<string, string[]> = { vacuuming: ['vacuum', 'vacuumed'], tables: ['table'] };
    const variants = (word: string) => forms[word] ?? [];
    expect(buildQuery('vacuuming tables now', undefined, variants).expression).toBe(
      '("vacuuming" OR "vacuum" OR "vacuumed") AND ("tables" OR "table") AND "now"*',
    );
    expect(buildQuery('"vacuuming tables"', undefined, variants).expression).toBe('"vacuuming tables"');
  });

  it('also matches two words in a row as the one word they make together (a camelCase identifier)', () => {
    const joined = (words: string[], prefix: boolean) =>
      words.join('').toLowerCase() === 'proxypass'
        ? ['proxypass']
        : prefix && words.join('') === 'proxypas'
          ? ['proxypass', 'proxypassreverse']
          : [];
    expect(toExpression(parseTerms('proxy pass directive'), undefined, undefined, false, joined)).toBe(
      '(("proxy" AND "pass") OR "proxypass") AND "directive"*',
    );
    expect(toExpression(parseTerms('proxy pas'), (p) => [p + 's'], undefined, false, joined)).toBe(
      '(("proxy" AND "pass") OR ("proxypass" OR "proxypassreverse"))',
    );
    // Phrases and identifiers are not joined.
    expect(toExpression(parseTerms('"proxy" pass x'), undefined, undefined, false, joined)).toBe(
      '"proxy" AND "pass" AND "x"',
    );
  });
});

describe('addresses', () => {
  it("tells whether a page's path names every word of the query (as titles match words)", () => {
    expect(pathHolds('http://h/docs/functions-window.html', [w('window'), w('functions')], ['english'])).toBe(true);
    expect(pathHolds('http://h/docs/tutorial-window.html', [w('window'), w('functions')], ['english'])).toBe(false);
    // The same stem, or a word still being typed.
    expect(pathHolds('http://h/functions-window.html', [w('window'), w('function')], ['english'])).toBe(true);
    expect(pathHolds('http://h/functions-window.html', [w('win', true)], [])).toBe(true);
    // The host is not the path.
    expect(pathHolds('http://window.example/', [w('window')], [])).toBe(false);
    expect(pathHolds('not a url', [w('window')], [])).toBe(false);
  });

  it("tells whether the page's name in its address is the query run together, or a compound ending in it", () => {
    expect(addressNameLevel('http://h/queryplanner.html', [w('query'), w('planner')])).toBe(2);
    expect(addressNameLevel('http://h/docs/git-mailmap.html', [w('git'), w('mailmap')])).toBe(2);
    expect(addressNameLevel('http://h/rtree.html', [w('rtree')])).toBe(2);
    expect(addressNameLevel('http://h/gitmailmap.html', [w('mailmap')])).toBe(1);
    // A path of parts is no compound, a short end is no part, an index names nothing, the host is not the path.
    expect(addressNameLevel('http://h/runtime-config-autovacuum.html', [w('autovacuum')])).toBe(0);
    expect(addressNameLevel('http://h/catalog.html', [w('log')])).toBe(0);
    expect(addressNameLevel('http://h/docs/index.html', [w('index')])).toBe(0);
    expect(addressNameLevel('http://rtree.example/', [w('rtree')])).toBe(0);
    expect(addressNameLevel('not a url', [w('rtree')])).toBe(0);
  });
});

describe('definitions of identifiers', () => {
  it('finds an identifier followed by a parenthesis, as settings and functions are defined', () => {
    const wal = definitionPattern(['wal', 'level']);
    expect(wal.test('Settings wal_level (enum) wal_level determines')).toBe(true);
    expect(wal.test('WAL_LEVEL(enum)')).toBe(true);
    expect(definitionPattern(['pg', 'terminate', 'backend']).test('pg_terminate_backend ( pid integer )')).toBe(true);
    // Mentions are no definitions, nor is a longer identifier.
    expect(wal.test('ALTER SYSTEM SET wal_level = replica; wal_level configuration parameter')).toBe(false);
    expect(wal.test('max_wal_level (enum)')).toBe(false);
    // A function named with empty parentheses is referred to, not defined; its signature has its parameters.
    const prepare = definitionPattern(['sqlite3', 'prepare', 'v2']);
    expect(prepare.test('Call sqlite3_prepare_v2() first, or sqlite3_prepare_v2( ) again.')).toBe(false);
    expect(prepare.test('int sqlite3_prepare_v2(\n  sqlite3 *db,')).toBe(true);
    // A call in an example's code is no definition either.
    expect(
      prepare.test('while( (rc = sqlite3_prepare_v2(db, zSql, -1, &p, 0)) ){ f(x, sqlite3_prepare_v2(db)) }'),
    ).toBe(false);
    // Whatever the words, the pattern is a valid one that matches them literally.
    expect(definitionPattern(['a+b', '(c']).test('a+b_(c (')).toBe(true);
  });
});

describe('titles', () => {
  it('names a title by itself and by its leading part, without a section number', () => {
    expect(titleNames('mod_rewrite - Apache HTTP Server Version 2.4')).toEqual([
      ['mod', 'rewrite', 'apache', 'http', 'server', 'version', '2', '4'],
      ['mod', 'rewrite'],
    ]);
    expect(titleNames('9.16. JSON Functions and Operators')).toEqual([['json', 'functions', 'and', 'operators']]);
    expect(titleNames('Chapter 11. Indexes | Docs')).toEqual([['indexes', 'docs'], ['indexes']]);
    // The parts after the first separator are the title's other names.
    expect(titleSegments('Apache HTTP Server Tutorial: .htaccess files')).toEqual([['htaccess', 'files']]);
    expect(titleSegments('abc — Abstract Base Classes — Python 3.11 documentation')).toEqual([
      ['abstract', 'base', 'classes'],
      ['python', '3', '11', 'documentation'],
    ]);
    expect(exactTitleLevel('Apache HTTP Server Tutorial: .htaccess files', [w('htaccess'), w('files')])).toBe(2);
  });

  it('tells an exact title from one exact up to a word being typed', () => {
    expect(exactTitleLevel('CREATE TABLE', [w('create'), w('table', true)])).toBe(2);
    expect(exactTitleLevel('CREATE TABLESPACE', [w('create'), w('table', true)])).toBe(1);
    expect(exactTitleLevel('Café crème', [w('cafe'), w('creme')])).toBe(2);
    expect(exactTitleLevel('CREATE TABLE AS', [w('create'), w('table')])).toBe(0);
    // The same stem is not the same title: exact words rank above stems.
    expect(exactTitleLevel('Window Functions', [w('window'), w('function')])).toBe(0);
  });

  it('scores a short title holding the words above a long one', () => {
    const q = [w('partial'), w('indexes')];
    const short = titleScore('11.8. Partial Indexes', q, ['english']);
    const long = titleScore('Notes on partial and expression indexes in large clusters', q, ['english']);
    expect(short).toBeGreaterThan(long);
    expect(long).toBeGreaterThan(titleScore('Indexes', q, ['english']));
    expect(titleScore('Unrelated', q, ['english'])).toBe(0);
  });
});

describe('distinctWords', () => {
  it('cuts the same words as the index tokenizer pattern, in order, up to the cap (ASCII, accents, CJK, astral, lone surrogates)', () => {
    const re = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;
    const alphabet = [
      'a',
      'Z',
      '9',
      ' ',
      '-',
      '_',
      '.',
      'é',
      'e\u0301',
      'ß',
      '中',
      '\u{1D400}',
      '\u{1F600}',
      '\u{F0000}',
      '\uD800',
      '\uDC00',
      '٣',
      '\u00A0',
      '\n',
    ];
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let n = 0; n < 500; n++) {
      let text = '';
      for (let i = 0; i < 40; i++) text += alphabet[Math.floor(rand() * alphabet.length)];
      expect([...distinctWords(text, 1_000)]).toEqual([...new Set(text.match(re) ?? [])]);
    }
    for (const text of [
      'pg_dump --clean, ProxyPass → 9.22. “Window” Functions—§ x',
      'Hästarnas stall: café Ωmega 𝒜x a\u0301b 中文 ok\u200bz',
      '',
      '  ',
    ]) {
      expect(distinctWords(text, 1_000)).toEqual(new Set(text.match(re) ?? []));
    }
    expect([...distinctWords('one two three two four', 2)]).toEqual(['one', 'two']);
  });
});

describe('headings', () => {
  const units = (q: string) => queryUnits(parseTerms(q));
  it('is 2 for a heading that is the query (no section number; before a separator or parenthesis)', () => {
    expect(headingLevel('13.3. Explicit Locking\n13.3.5. Advisory Locks', units('advisory locks'))).toBe(2);
    expect(headingLevel('Settings\nwal_level (enum)', units('wal_level'))).toBe(2);
    expect(headingLevel('8.11.1. tsvector', units('TSVECTOR'))).toBe(2);
    expect(headingLevel('Café - Menu', units('cafe'))).toBe(2);
  });
  it('is 1 for a heading holding every word the title does not, 0 otherwise', () => {
    expect(headingLevel('9.7.3. POSIX Regular Expressions', units('regular expressions'))).toBe(1);
    // A definition term counts only when it is the query, and then as a heading holding the words.
    expect(headingLevel(`Options\n${DEFINITION_TERM}wal_level (enum)`, units('wal_level'))).toBe(1);
    expect(headingLevel(`${DEFINITION_TERM}ENABLE ROW LEVEL SECURITY`, units('row level security'))).toBe(0);
    expect(headingLevel('ON CONFLICT Clause', units('insert on conflict'), 'INSERT')).toBe(1);
    expect(headingLevel('ON CONFLICT Clause', units('insert on conflict'))).toBe(0);
    // An identifier is matched whole, with its joiners as typed: `os.environ` is not an attribute `os_environ`.
    expect(headingLevel(`${DEFINITION_TERM}os_environ¶`, units('os.environ'))).toBe(0);
    expect(headingLevel('os_environ (attribute)', units('os.environ'))).toBe(0);
    expect(headingLevel('14.4.4. Increase maintenance_work_mem', units('work_mem'))).toBe(0);
    expect(headingLevel('', units('anything'))).toBe(0);
    // The title alone holding every word is no heading match.
    expect(headingLevel('Outputs', units('insert'), 'INSERT')).toBe(0);
  });
});
