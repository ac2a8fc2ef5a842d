import { describe, expect, it } from 'vitest';
import { foldWord } from '../../../src/store/search/fold.js';

/** The fold as defined: the whole text decomposed, its marks removed, lower case. */
const reference = (text: string) =>
  text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();

describe('foldWord', () => {
  it('folds case and diacritics, composed or combining, beside ASCII', () => {
    expect(foldWord('Vacuüm')).toBe('vacuum');
    expect(foldWord('Ñandú ¶ Tiếng Việt')).toBe('nandu ¶ tieng viet');
    // A combining mark after an ASCII letter, and several marks in a row.
    expect(foldWord('cafe\u0301 E\u0323\u0302')).toBe('cafe e');
    expect(foldWord('“wal_level” ¶')).toBe('“wal_level” ¶');
  });

  it('answers as folding the whole text at once does', () => {
    const parts = ['a', 'Z', ' ', '¶', 'é', 'e\u0301', '\u0323\u0302', 'Ḿ', '😀', 'ǅ', 'ﬁ', 'İ', 'ß', '—', '9', '_'];
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (let n = 0; n < 500; n++) {
      const text = Array.from({ length: 1 + (next() % 12) }, () => parts[next() % parts.length]).join('');
      expect(foldWord(text), JSON.stringify(text)).toBe(reference(text));
    }
  });
});
