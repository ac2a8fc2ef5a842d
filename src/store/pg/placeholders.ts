// The store's placeholders (`?` with an array, `@name` with an object) rewritten to PostgreSQL's $1, $2, …. Pure.
//
// Only SQL text is rewritten: string literals ('…', E'…' with backslash escapes, $tag$…$tag$), quoted identifiers
// ("…") and comments (-- and nested /* */) pass through untouched, so a `?` or `@` in them stays what it is.

export interface Rewritten {
  /** The SQL with $n placeholders. */
  text: string;
  /** Positional form: how many `?` there were. */
  count: number;
  /** Named form: the name bound to each $n, in order (a repeated name reuses its number). */
  names: string[];
}

const IDENT_START = /[A-Za-z_]/;
const IDENT_PART = /[A-Za-z0-9_]/;
const DOLLAR_TAG = /^\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/;

/**
 * Rewrites `?` (named = false) or `@name` (named = true). A `@` right after another `@` (the text-search `@@`) or
 * followed by no name is an operator, not a placeholder.
 */
export function rewritePlaceholders(sql: string, named: boolean): Rewritten {
  let out = '';
  let count = 0;
  const names: string[] = [];
  const numbers = new Map<string, number>();
  const n = sql.length;
  let i = 0;
  let from = 0;
  /** Copies sql[from, to) and moves on. */
  const flush = (to: number) => {
    out += sql.slice(from, to);
    from = to;
  };
  while (i < n) {
    const c = sql[i]!;
    if (c === "'") {
      // E'…' (and e'…') take backslash escapes; the E is just before the quote.
      const escapes = i > 0 && (sql[i - 1] === 'E' || sql[i - 1] === 'e') && (i < 2 || !IDENT_PART.test(sql[i - 2]!));
      i++;
      while (i < n) {
        if (escapes && sql[i] === '\\') i += 2;
        else if (sql[i] === "'") {
          if (sql[i + 1] === "'") i += 2;
          else break;
        } else i++;
      }
      i++;
    } else if (c === '"') {
      i++;
      while (i < n) {
        if (sql[i] === '"') {
          if (sql[i + 1] === '"') i += 2;
          else break;
        } else i++;
      }
      i++;
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? n : end + 1;
    } else if (c === '/' && sql[i + 1] === '*') {
      let depth = 1;
      i += 2;
      while (i < n && depth) {
        if (sql[i] === '/' && sql[i + 1] === '*') {
          depth++;
          i += 2;
        } else if (sql[i] === '*' && sql[i + 1] === '/') {
          depth--;
          i += 2;
        } else i++;
      }
    } else if (c === '$' && (i === 0 || !IDENT_PART.test(sql[i - 1]!))) {
      const tag = DOLLAR_TAG.exec(sql.slice(i, i + 64))?.[0];
      if (tag) {
        const end = sql.indexOf(tag, i + tag.length);
        i = end === -1 ? n : end + tag.length;
      } else i++;
    } else if (c === '?' && !named) {
      flush(i);
      out += `$${++count}`;
      from = ++i;
    } else if (c === '@' && named && IDENT_START.test(sql[i + 1] ?? '') && sql[i - 1] !== '@') {
      let end = i + 1;
      while (end < n && IDENT_PART.test(sql[end]!)) end++;
      const name = sql.slice(i + 1, end);
      let number = numbers.get(name);
      if (number === undefined) {
        names.push(name);
        numbers.set(name, (number = names.length));
      }
      flush(i);
      out += `$${number}`;
      from = i = end;
    } else i++;
  }
  flush(n);
  return { text: out, count, names };
}
