// Snowball stems of words, per page language. Pure apart from a cache of stems. The index holds a page's words
// as written; a query word is searched as the indexed words that share its stem (completions.ts stemForms), so
// no page's stems are computed when it is written.
import snowball from 'snowball-stemmers';

/** Snowball algorithm per primary language subtag. */
const ALGORITHMS: Record<string, string> = {
  ar: 'arabic',
  hy: 'armenian',
  eu: 'basque',
  ca: 'catalan',
  cs: 'czech',
  da: 'danish',
  nl: 'dutch',
  en: 'english',
  fi: 'finnish',
  fr: 'french',
  de: 'german',
  hu: 'hungarian',
  it: 'italian',
  ga: 'irish',
  no: 'norwegian',
  nb: 'norwegian',
  nn: 'norwegian',
  pt: 'portuguese',
  ro: 'romanian',
  ru: 'russian',
  es: 'spanish',
  sl: 'slovene',
  sv: 'swedish',
  ta: 'tamil',
  tr: 'turkish',
};
/** A page that does not say its language is stemmed as English: most sites that omit `lang` are written in it. */
const DEFAULT_ALGORITHM = 'english';

/** Stems per algorithm (a Snowball stemmer costs about 10 µs a word; the vocabulary of a site is small). */
const CACHE_LIMIT = 50_000;
interface Stemmer {
  stem(word: string): string;
}
const stemmers = new Map<string, Stemmer>();

/** The Snowball algorithm for a page language ("en", "sv-FI", null), or null when there is none for it. */
export function algorithmFor(language: string | null | undefined): string | null {
  if (language === null || language === undefined || language === '') return DEFAULT_ALGORITHM;
  return ALGORITHMS[language.toLowerCase().split(/[-_]/)[0]!] ?? null;
}

function stemmer(algorithm: string): Stemmer {
  let s = stemmers.get(algorithm);
  if (!s) {
    const impl = snowball.newStemmer(algorithm);
    const cache = new Map<string, string>();
    s = {
      stem(word) {
        let out = cache.get(word);
        if (out === undefined) {
          out = impl.stem(word);
          if (cache.size >= CACHE_LIMIT) cache.clear();
          cache.set(word, out);
        }
        return out;
      },
    };
    stemmers.set(algorithm, s);
  }
  return s;
}

/** Only words of letters (and marks) have stems; numbers and codes stay as they are. */
const STEMMABLE = /^[\p{L}\p{M}]+$/u;
const MAX_STEM_CHARS = 40;

/** Whether a (lower-case) word has a stem to look for: letters only, not too long. */
export function stemmable(word: string): boolean {
  return word.length <= MAX_STEM_CHARS && STEMMABLE.test(word);
}

/** The stem of a lower-case word in a Snowball algorithm; the word itself when it is no word to stem. */
export function stemWord(algorithm: string, word: string): string {
  return stemmable(word) ? stemmer(algorithm).stem(word) : word;
}
