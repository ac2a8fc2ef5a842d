// Search terms as search analytics records them: what the pipeline reads of the text (query.ts's parts, folded as the
// index folds words), so "Proxy  Pass", "proxy pass" and "PROXY pass!" count as one query, and nothing the parser
// drops (punctuation, words past the limit) is kept.
import { foldWord } from './fold.js';
import { parseTerms } from './query.js';

/** The parsed terms as one string: words folded, phrases in double quotes, identifiers as typed (folded); '' for none. */
export function recordedTerms(terms: string): string {
  return parseTerms(terms)
    .map((part) => {
      if (part.identifier) return foldWord(part.typed!);
      const words = part.words.map(foldWord).join(' ');
      return part.phrase && part.words.length > 1 ? `"${words}"` : words;
    })
    .join(' ');
}
