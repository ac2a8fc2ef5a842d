// A word folded as both indexes fold it (case and diacritics), so the query's words compare with the index's.

const NON_ASCII_RUN = /[^\x00-\x7f]+/g;
const stripMarks = (run: string) => run.normalize('NFD').replace(/\p{M}+/gu, '');
/** Case and diacritics folded as the index's tokenizer (unicode61 remove_diacritics 2) folds them. */
export function foldWord(word: string): string {
  // ASCII has no marks to strip: only the runs of other characters are normalized (the same as normalizing the
  // whole, since an ASCII character never reorders with a mark), and most text (a heading with a '¶') is ASCII.
  return word.replace(NON_ASCII_RUN, stripMarks).toLowerCase();
}

/** The smallest string greater than every string that starts with `prefix`: a prefix as a range of a sorted index. */
export function upperBound(prefix: string): string {
  const cps = [...prefix];
  const last = cps.pop()!.codePointAt(0)!;
  return cps.join('') + String.fromCodePoint(last + 1);
}
