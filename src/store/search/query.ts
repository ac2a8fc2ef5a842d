// Turns whatever a user typed into a safe FTS5 expression. Pure: no I/O, no SQL.
//
// The user's text is never handed to FTS5's query parser. It is cut into words (runs of letters, digits and
// marks, the same characters FTS5's unicode61 tokenizer keeps), each word goes out as a double-quoted FTS5
// string, and the words are joined with AND. So quotes, AND/OR/NOT/NEAR, `*`, `-`, `:`, `^`, parentheses
// and control characters are either separators or plain words, and every input is a valid query.

/** Words beyond this many are ignored: a pasted page of text must not become a thousand-term query. */
export const MAX_QUERY_WORDS = 32;
/** Longer "words" are cut: no real token is this long, and FTS5 would only fail to find it anyway. */
export const MAX_WORD_CHARS = 100;
/** The last word matches as a prefix only from this many characters on: a shorter one matches nearly every page. */
export const MIN_PREFIX_CHARS = 3;

export interface QueryPart {
  /** One word, or the words of a quoted phrase in order. */
  words: string[];
  phrase: boolean;
  prefix: boolean;
  /**
   * Words typed joined, with no space (`pg_dump`, `os.path`, `x-forwarded-for`, `2.4`, `http/2`): searched as the
   * phrase of its parts, the last one maybe a prefix, as a person means it (not as words anywhere on the page).
   */
  identifier?: boolean;
  /** The joined token as typed (with `identifier`): a store whose index keeps such tokens whole looks it up so. */
  typed?: string;
}

export interface BuiltQuery {
  /** The FTS5 MATCH expression, or null when the text holds no searchable word (the answer is then empty). */
  expression: string | null;
  parts: QueryPart[];
}

// unicode61 keeps letters, numbers and private-use characters in tokens and folds marks into them.
export const WORD_RE = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;
const HAS_BASE_RE = /[\p{L}\p{N}\p{Co}]/u;
// A word, or words joined by underscores or by one dot, dash, slash or apostrophe each (an identifier, a dotted or
// dashed name, a version: max_connections, os.path, x-forwarded-for, 2.4, http/2, what's).
export const TOKEN_RE = /[\p{L}\p{N}\p{M}\p{Co}]+(?:(?:_+|[.\-/'\u2019])[\p{L}\p{N}\p{M}\p{Co}]+)*/gu;
/** The joiners of a token's words (TOKEN_RE), any run of them read as one: units and definitions compare through it. */
export const JOINER_RE = /(?:_|[.\-/'\u2019])+/gu;

function wordsOf(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(WORD_RE)) {
    // A run of marks alone is no token for FTS5; drop it rather than send an empty string.
    if (HAS_BASE_RE.test(m[0]))
      out.push(m[0].length > MAX_WORD_CHARS ? [...m[0]].slice(0, MAX_WORD_CHARS).join('') : m[0]);
  }
  return out;
}

/**
 * Splits the user's text into words and quoted phrases. A quote left open runs to the end of the text. The last
 * part becomes a prefix match when it is a plain word (or a phrase still being typed) of at least MIN_PREFIX_CHARS.
 */
export function parseTerms(terms: string): QueryPart[] {
  const parts: QueryPart[] = [];
  let budget = MAX_QUERY_WORDS;
  const push = (words: string[], phrase: boolean, typed?: string) => {
    if (budget <= 0 || !words.length) return;
    const kept = words.slice(0, budget);
    budget -= kept.length;
    // A "phrase" of one word is just that word; it keeps `phrase` so it is not made a prefix.
    const part: QueryPart = { words: kept, phrase, prefix: false };
    if (typed !== undefined && kept.length > 1) {
      part.identifier = true;
      part.typed = typed;
    }
    parts.push(part);
  };
  const segments = terms.split('"');
  let openQuote = false;
  segments.forEach((seg, i) => {
    const inQuotes = i % 2 === 1;
    if (inQuotes) {
      openQuote = i === segments.length - 1; // no closing quote after it
      push(wordsOf(seg), true);
    } else {
      for (const m of seg.matchAll(TOKEN_RE)) {
        const words = wordsOf(m[0]);
        if (words.length > 1) push(words, true, m[0]);
        else push(words, false);
      }
    }
  });
  const last = parts.at(-1);
  // Typing-as-you-search: the last word is still being typed, unless it closed a quoted phrase.
  if (last && (!last.phrase || openQuote || last.identifier) && [...last.words.at(-1)!].length >= MIN_PREFIX_CHARS)
    last.prefix = true;
  return parts;
}

/** An FTS5 string: double quotes around, inner double quotes doubled. The tokenizer then folds case and diacritics. */
function ftsString(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

/**
 * The words of the index that start with a prefix (as typed), or an empty list when none is known; see
 * completions.ts. Without it, or when it finds none, a prefix is left to FTS5's own `*` operator.
 */
export type Expand = (prefix: string) => string[];

/** The other forms a whole word is also searched as (the index's words of the same stem, see stems.ts), not the word itself. */
export type Variants = (word: string) => string[];

/**
 * The index's words that are the given words written together, the last maybe still being typed (`proxy pass` →
 * proxypass): a camelCase identifier is one word to the index. None when there are none.
 */
export type Joined = (words: string[], prefix: boolean) => string[];

function partExpression(p: QueryPart, expand?: Expand, variants?: Variants, rank = false): string {
  const matched = matchExpression(p, expand, variants);
  if (!rank || !p.identifier) return matched;
  // To rank, an identifier's parts count as words too: a page about `shared_buffers` speaks of shared buffers.
  const parts = [...new Set(p.prefix ? p.words.slice(0, -1) : p.words)];
  return parts.length ? `(${matched} AND (${parts.map(ftsString).join(' OR ')}))` : matched;
}

/** A word and its other forms, any of which matches. */
function withForms(word: string, others: string[]): string {
  return others.length ? `(${[word, ...others].map(ftsString).join(' OR ')})` : ftsString(word);
}

function matchExpression(p: QueryPart, expand?: Expand, variants?: Variants): string {
  const phrase = p.words.join(' ');
  if (!p.prefix) return withForms(phrase, !p.phrase && variants ? variants(phrase) : []);
  const last = p.words.at(-1)!;
  const completed = expand ? expand(last) : [];
  const head = p.words.slice(0, -1).join(' ');
  // A word typed whole also matches through its stems, and so does the last word of a joined name (`f-strings`
  // finds "f-string"); a quoted phrase does not.
  const others =
    (!head && !p.phrase) || p.identifier ? (variants?.(last) ?? []).filter((v) => !completed.includes(v)) : [];
  const alternatives = completed.length
    ? completed.map((w) => ftsString(head ? `${head} ${w}` : w))
    : [`${ftsString(phrase)}*`];
  alternatives.push(...others.map((v) => ftsString(head ? `${head} ${v}` : v)));
  return alternatives.length === 1 ? alternatives[0]! : `(${alternatives.join(' OR ')})`;
}

/** A single word typed as such: no phrase, no identifier. */
const plainWord = (p: QueryPart | undefined): p is QueryPart =>
  !!p && !p.phrase && !p.identifier && p.words.length === 1;

/**
 * `rank`: the expression that ranks the matches of the other (the same pages; identifiers' parts also scored).
 * `joined`: two words in a row also match the index's word that is both written together (`proxy pass` finds
 * ProxyPass).
 */
export function toExpression(
  parts: QueryPart[],
  expand?: Expand,
  variants?: Variants,
  rank = false,
  joined?: Joined,
): string | null {
  if (!parts.length) return null;
  const out: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    const next = parts[i + 1];
    const own = partExpression(p, expand, variants, rank);
    if (joined && plainWord(p) && plainWord(next)) {
      const together = joined([p.words[0]!, next.words[0]!], next.prefix);
      if (together.length) {
        out.push(
          `((${own} AND ${partExpression(next, expand, variants, rank)}) OR ${withForms(together[0]!, together.slice(1))})`,
        );
        i++;
        continue;
      }
    }
    out.push(own);
  }
  return out.join(' AND ');
}

export function buildQuery(terms: string, expand?: Expand, variants?: Variants): BuiltQuery {
  const parts = parseTerms(terms);
  return { expression: toExpression(parts, expand, variants), parts };
}
