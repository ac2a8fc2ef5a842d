// A page's address as words the index can search: every manual names a page by its address (`/mod/mod_rewrite.html`,
// `/programs/apachectl.html`, `/library/os.path.html`), and a word a person types may be there and nowhere else on
// the page. Both stores index these words as a field of their own (SQLite's pages_fts column path_words,
// PostgreSQL's vector weight B with the headings), written by the crawl writers and filled by the migrations.

/** A file extension at the end of the address's last part: letters (and digits after one), at most five. */
const EXTENSION = /\.[a-z][a-z0-9]{0,4}$/i;
/**
 * Where an address's words part: `/ . - _` and any other character that is no letter or digit (as the indexes cut
 * words: a control character an escape decoded to is no word either).
 */
const SEPARATORS = /[^\p{L}\p{N}\p{M}\p{Co}]+/u;
/** A directory's default page names nothing of its own. */
const DEFAULT_PAGE = 'index';
/** Words of an address kept at most (an address of hundreds of parts is no name a person types). */
const MAX_WORDS = 64;

/**
 * The words of a page's URL path, in order, space-separated: the path decoded, its last part's file extension and a
 * part `index` dropped, split on `/ . - _` (and
 * any other character no word holds). The host and the query string are not part of it. '' when nothing is left
 * (the root, an index page) or the URL does not parse.
 */
export function pathWords(url: string): string {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return '';
  }
  try {
    path = decodeURIComponent(path);
  } catch {
    // A malformed escape: the path as written.
  }
  const parts = path.split('/').filter((p) => p.length > 0);
  const last = parts.length - 1;
  if (last >= 0) parts[last] = parts[last]!.replace(EXTENSION, '');
  return parts
    .flatMap((p) => p.split(SEPARATORS))
    .filter((w) => w.length > 0 && w.toLowerCase() !== DEFAULT_PAGE)
    .slice(0, MAX_WORDS)
    .join(' ');
}
