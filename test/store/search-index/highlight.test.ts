import { describe, expect, it } from 'vitest';
import type { HighlightWords } from '../../../src/store/search/engine.js';
import { findMatches, makeHighlight, withoutRegion } from '../../../src/store/search/highlight.js';
import { SCAN_CHUNK } from '../../../src/store/search/latin1-scan.js';
import { definitionInBytes, pageHighlighter } from '../../../src/store/search/page-highlight.js';
import { definitionPattern } from '../../../src/store/search/titles.js';

const visible = (html: string) => html.replace(/<\/?em>/g, '').replace(/&(amp|lt|gt|quot|#39);/g, 'x');
const words = (text: string, found: [number, number][]) => found.map(([s, e]) => text.slice(s, e));

describe('findMatches', () => {
  it('finds whole words, case and diacritics folded', () => {
    const text = 'The VACUUM command; vacuuming Vacuum. Café crème brûlée, cafeteria';
    expect(words(text, findMatches(text, ['vacuum', 'cafe', 'creme'], null))).toEqual([
      'VACUUM',
      'Vacuum',
      'Café',
      'crème',
    ]);
  });

  it('folds capital and Vietnamese-style letters too, and an accented word typed as a prefix', () => {
    const text = 'ÉCOLE école Ecole; Ðiều điều; Øre øre; RÉSUMÉS résumé';
    expect(words(text, findMatches(text, ['ecole', 'ðieu', 'øre'], null))).toEqual([
      'ÉCOLE',
      'école',
      'Ecole',
      // Đ (D with stroke) is a letter of its own, not Ð (eth).
      'Ðiều',
      'Øre',
      'øre',
    ]);
    expect(words(text, findMatches(text, [], 'resum'))).toEqual(['RÉSUMÉS', 'résumé']);
  });

  it('finds the prefix as the start of longer words, and as a word of its own', () => {
    const text = 'statistics state stat: statue, ecstatic';
    expect(words(text, findMatches(text, [], 'stat'))).toEqual(['statistics', 'state', 'stat', 'statue']);
    // A longer query word does not hide the prefix at the same place.
    expect(words(text, findMatches(text, ['statue'], 'sta'))).toEqual(['statistics', 'state', 'stat', 'statue']);
    expect(words('exact: stat statx', findMatches('exact: stat statx', ['stat'], null))).toEqual(['stat']);
  });

  it('treats words of other scripts as words, and regex characters in words as text', () => {
    expect(words('日本語 テキスト', findMatches('日本語 テキスト', ['日本語'], null))).toEqual(['日本語']);
    expect(words('a+b (x) ab', findMatches('a+b (x) ab', ['a+b', '(x)'], null))).toEqual(['a+b', '(x)']);
  });
});

describe('makeHighlight', () => {
  const hl = (text: string, w: string[], length = 200, prefix: string | null = null) =>
    makeHighlight(text, findMatches(text, w, prefix), length);

  it('wraps matches in <em> and keeps short text whole', () => {
    expect(hl('the vacuum command', ['vacuum'])).toBe('the <em>vacuum</em> command');
  });

  it('cuts about `length` characters around the densest run of matches, at word boundaries', () => {
    const filler = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');
    const text = `${filler(100)} alpha once. ${filler(50)} beta and alpha again beta. ${filler(100)}`;
    const h = hl(text, ['alpha', 'beta'], 120);
    expect(h.startsWith('…')).toBe(true);
    expect(h.endsWith('…')).toBe(true);
    expect(h.match(/<em>/g)).toHaveLength(3);
    const shown = visible(h).length;
    expect(shown).toBeGreaterThan(60);
    expect(shown).toBeLessThanOrEqual(125);
    expect(h).toMatch(/^…word\d+ /); // starts at a whole word
  });

  it('keeps the window full when the match is near the end', () => {
    const text = `${Array.from({ length: 30 }, (_, i) => `w${i}`).join(' ')} alpha`;
    const h = hl(text, ['alpha'], 60);
    expect(h.endsWith('<em>alpha</em>')).toBe(true);
    expect(visible(h).length).toBeGreaterThan(45);
  });

  it('starts at the beginning of the text when nothing in it matched (a title-only match)', () => {
    const h = hl('Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor', ['zzz'], 30);
    expect(h).toMatch(/^Lorem ipsum dolor sit amet,?…$/);
    expect(h).not.toContain('<em>');
  });

  it('escapes HTML in the text so only <em> is markup', () => {
    expect(hl(`if a < b && c > d then script "x" 'y'`, ['script'])).toBe(
      'if a &lt; b &amp;&amp; c &gt; d then <em>script</em> &quot;x&quot; &#39;y&#39;',
    );
  });

  it('collapses whitespace', () => {
    expect(hl('a\n\n\t b   c', ['b'])).toBe('a <em>b</em> c');
  });

  it('answers an empty string for empty content', () => {
    expect(hl('', ['x'])).toBe('');
  });
});

describe('withoutRegion (contentNoHighlight)', () => {
  it('leaves the hidden text and its matches out, moving the rest', () => {
    const text = 'visible alpha text. secret alpha words. tail alpha';
    const r = withoutRegion(text, findMatches(text, ['alpha'], null), 'secret alpha words.');
    expect(r.text).toBe('visible alpha text.  tail alpha');
    expect(words(r.text, r.matches)).toEqual(['alpha', 'alpha']);
    expect(makeHighlight(r.text, r.matches, 200)).toBe('visible <em>alpha</em> text. tail <em>alpha</em>');
  });

  it('keeps what is left of a match cut by the edge, and changes nothing when the text is absent', () => {
    const text = 'x alphabet y';
    const m = findMatches(text, ['alphabet'], null);
    expect(words(withoutRegion(text, m, 'bet y').text, withoutRegion(text, m, 'bet y').matches)).toEqual(['alpha']);
    expect(withoutRegion(text, m, 'not there')).toEqual({ text, matches: m });
  });
});

describe("pageHighlighter on a page's UTF-8 bytes", () => {
  // Pages long enough that only a part of them is decoded, with what makes UTF-8 differ from UTF-16: two- and
  // three-byte characters, characters outside the BMP, accented and capital forms of the words asked.
  const filler = (n: number, seed: number) =>
    Array.from(
      { length: n },
      (_, i) => ['lorem', 'ipsum¶', '“dolor”', 'sit—amet', '😀', 'ñandú', 'x'][(i * 7 + seed) % 7],
    ).join(' ');
  const pages = [
    '',
    'no match at all here ¶',
    `plain ASCII: ${'lorem ipsum '.repeat(200)} the VACUUM of a database, vacuuming ${'sit amet '.repeat(100)}`,
    `${filler(400, 1)} Vacuum the DATABASE ${filler(30, 2)} vacuümed vacuum ${filler(500, 3)}`,
    `${filler(900, 4)} the rarest Ünïcode word at the very end: vacuum`,
    `vacuum at the start ${filler(700, 5)} database database database ${filler(40, 6)}`,
    `😀vacuum😀 ñvacuum vacuumñ VACUUMING vacuums_x vacuum-db ${filler(300, 7)} vacuumé Vacuüm`,
    `${'¶'.repeat(3000)} database ${'😀'.repeat(2000)} vacuum ${'—'.repeat(50)}`,
  ];
  const cases: HighlightWords[] = [
    { words: ['vacuum'], prefix: null, rarest: ['vacuum'] },
    { words: ['database'], prefix: 'vac', rarest: ['vac'] },
    { words: ['vacuum', 'database'], prefix: null, rarest: ['database'] },
    { words: ['unicode'], prefix: 'wor', rarest: ['unicode'] },
    { words: [], prefix: 'v', rarest: ['v'] },
    // Not ASCII: the page is decoded and matched as a string.
    { words: ['ñandu'], prefix: null, rarest: ['ñandu'] },
  ];

  it('gives the highlight of the decoded text, for any window length', () => {
    for (const marks of cases) {
      const highlight = pageHighlighter(marks);
      for (const page of pages) {
        for (const length of [40, 200, 1000]) {
          const fromBytes = highlight(Buffer.from(page, 'utf8'), undefined, length);
          expect(fromBytes).toBe(highlight(page, undefined, length));
        }
      }
    }
  });

  // A page longer than a chunk is read a chunk at a time: a word, an accented letter or a four-byte character cut
  // by a chunk's end is found as in one string, and the rarest word is found chunks later.
  it('finds what a chunk boundary cuts, on pages several chunks long', () => {
    /** `text` placed so that it starts `before` bytes before the end of chunk k, after text of multi-byte characters. */
    const across = (k: number, before: number, text: string) => {
      const lead = `${'¶ “dolor” '.repeat(40)} `;
      const pad = k * SCAN_CHUNK - before - Buffer.byteLength(lead);
      return `${lead}${'lorem '.repeat(Math.floor(pad / 6))}${'x'.repeat(pad % 6)}${text}`;
    };
    const long = [
      ...[1, 2, 3, 5, 7].map((d) => `${across(1, d, 'vacuum database')} ${filler(200, d)} end`),
      ...[1, 2, 3].map((d) => `${across(1, d, 'Vacuüm ḾVACUUM 😀vacuum')} ${filler(100, d)}`),
      `${across(2, 2, '😀 database vacuumed')} ${'lorem '.repeat(30000)} vacuum at the end`,
      `${filler(30000, 1)} database ${filler(20000, 2)} the one vacuum ${filler(100, 3)}`,
    ];
    for (const page of long) expect(Buffer.byteLength(page)).toBeGreaterThan(SCAN_CHUNK);
    for (const marks of cases) {
      const highlight = pageHighlighter(marks);
      for (const page of long) {
        for (const length of [40, 200]) {
          expect(highlight(Buffer.from(page, 'utf8'), undefined, length)).toBe(highlight(page, undefined, length));
        }
      }
    }
    // The rarest word, once in the third chunk, is what the window shows.
    const rare = pageHighlighter({ words: ['database', 'vacuum'], prefix: null, rarest: ['vacuum'] });
    expect(rare(Buffer.from(long.at(-1)!), undefined, 60)).toContain('the one <em>vacuum</em>');
  });

  it('leaves out the hidden region as the text does', () => {
    const highlight = pageHighlighter(cases[0]!);
    const page = `hidden vacuum menu ¶ ${filler(50, 1)} shown vacuum`;
    expect(highlight(Buffer.from(page), 'hidden vacuum menu', 60)).toBe(highlight(page, 'hidden vacuum menu', 60));
    expect(highlight(page, 'hidden vacuum menu', 60)).not.toContain('menu');
  });
});

describe("definitionInBytes: an identifier's definition found in a page's bytes", () => {
  const texts = [
    'SET wal_level = replica',
    'wal_level (enum)',
    '¶ WAL__LEVEL(x)',
    'my_wal_level (enum)',
    'éwal_level(',
    '“wal_level (” and more',
    '😀wal_level(',
    '\u212aey_\u017fetting (int)',
    'xwal_level( then wal_level (',
    'call wal_level() or wal_level( \n) first',
    'wal_level() then wal_level(\n  int x)',
    'rc = wal_level(db); f(wal_level (x), \twal_level(y))',
    'rc =wal_level(db)\nint wal_level(int x)',
    '',
  ];
  for (const words of [['wal', 'level'], ['key', 'setting'], ['naïve']]) {
    it(`answers as definitionPattern does on the decoded text (${words.join('_')})`, () => {
      const definition = { pattern: definitionPattern(words), words };
      const test = definitionInBytes(definition);
      for (const text of texts) expect(test(Buffer.from(text)), text).toBe(definition.pattern.test(text));
    });
  }

  it('answers the same on pages several chunks long, a name or the white space after it cut by a chunk', () => {
    const definition = { pattern: definitionPattern(['wal', 'level']), words: ['wal', 'level'] };
    const test = definitionInBytes(definition);
    const at = (k: number, before: number, text: string) =>
      `${'¶'.repeat(100)}${'x'.repeat(k * SCAN_CHUNK - before - 200)} ${text}`;
    const pages = [
      ...[1, 3, 8, 12].map((d) => at(1, d, 'wal_level (enum)')),
      ...[1, 3, 8].map((d) => at(1, d, 'wal_level() and then nothing')),
      at(1, 5, `wal_level(${' '.repeat(300)}) only a call`),
      at(1, 5, `wal_level(${'\n'.repeat(300)}int x)`),
      at(2, 40, `wal_level(${' \t'.repeat(5000)}\n) only a call`),
      at(1, 4, `wal${'_'.repeat(16)}level(x)`),
      at(1, 4, `wal${'_'.repeat(17)}level(x)`),
      at(1, 2, '😀wal_level(x)'),
    ];
    for (const page of pages) {
      expect(Buffer.byteLength(page)).toBeGreaterThan(SCAN_CHUNK);
      expect(test(Buffer.from(page)), page.slice(-40)).toBe(definition.pattern.test(page));
    }
    expect(pages.map((p) => test(Buffer.from(p)))).toEqual([
      true,
      true,
      true,
      true,
      false,
      false,
      false,
      false,
      true,
      false,
      true,
      false,
      true,
    ]);
  });

  it('finds the definitions it should', () => {
    const test = definitionInBytes({ pattern: definitionPattern(['wal', 'level']), words: ['wal', 'level'] });
    expect(texts.filter((t) => test(Buffer.from(t)))).toEqual([
      'wal_level (enum)',
      '¶ WAL__LEVEL(x)',
      '“wal_level (” and more',
      '😀wal_level(',
      'xwal_level( then wal_level (',
      'wal_level() then wal_level(\n  int x)',
      'rc =wal_level(db)\nint wal_level(int x)',
    ]);
  });
});
