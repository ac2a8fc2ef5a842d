// Full-text search over the FTS5 index: match count, ranking, highlights, filters, paging.
//
// Ranking. A query matching up to RANK_ALL pages is ranked by bm25 over all of them (title and superwords
// weighted far above the body). bm25 costs about two microseconds per matching page, so a broad query
// (thousands of matches on a large site) is ranked in bounded work instead: first the pages whose title or
// superwords hold every word (found in the small titles index pages_title_fts, ranked by bm25 there), then
// the other matches, ranked by bm25 within consecutive blocks of RANK_BLOCK pages in index (rowid) order.
// `total` is always the exact number of matching pages, and the order is the same on every page of results.
import type Database from 'better-sqlite3';
import type { Store } from '../sqlite/store.js';
import type { CustomField, PageMeta, SearchHit, SearchParams, SearchResults } from '../../model/types.js';
import { makeHighlight, matcher, withoutRegion } from './highlight.js';
import { checkTerms, parseSearchParams } from '../../model/search-params.js';
import { completions, documentFrequency, foldWord, indexedPages, joinedForms, stemForms } from './completions.js';
import { parseTerms, toExpression, type QueryPart } from './query.js';
import { definitionPattern, queryUnits, type RankWord } from './terms.js';
import { withTitles, type Ranked, type TitleFacts, type TitleQuery } from './title-tiers.js';
import { algorithmFor } from './stems.js';

/**
 * bm25 column weights of pages_fts (title, superwords, tags, content, path_words): a word in the title or superwords
 * counts most; the address's words (path-words.ts) name the page less surely than its title and more than its text:
 * 0.4 of the title's and 4 times the text's, as PostgreSQL's B weight (headings and address) stands to its A and D.
 * (On the tuning corpus any weight from 0 to 40 ranks the same: its answers are decided by the title tiers.)
 */
export const BM25_WEIGHTS = [10, 20, 2, 1, 4] as const;
/** bm25 column weights of pages_title_fts (title, superwords). */
const TITLE_WEIGHTS = [10, 20] as const;
/** Answers of up to this many matches are ranked whole, by bm25 over all of them. */
export const RANK_ALL = 1000;
/** Broader answers are ranked this many matches at a time (see above). */
export const RANK_BLOCK = 100;
/** Rowids read per step while finding where a block starts and ends. */
const CHUNK = 2000;

type Index = 'pages_fts' | 'pages_title_fts';

interface Filters {
  lang: boolean;
  tagCount: number;
  /** Only pages of the hosts in @hosts (a JSON array). */
  hosts: boolean;
}

interface IndexStatements {
  count: Database.Statement;
  /** Matching rowids after @after, in rowid order, at most @limit. */
  ids: Database.Statement;
  /** Matching rowids within [@lo, @hi]. */
  idsIn: Database.Statement;
  /** (id, score) of the matches within [@lo, @hi], best first. */
  ranked: Database.Statement;
}

interface Statements {
  byShape: Map<string, Record<Index, IndexStatements>>;
  page: Database.Statement;
  content: Database.Statement;
  title: Database.Statement;
  tags: Database.Statement;
  stemmers: Database.Statement;
}

const cache = new WeakMap<Store, Statements>();

function statements(store: Store): Statements {
  let s = cache.get(store);
  if (!s) {
    s = {
      byShape: new Map(),
      page: store.db.prepare('SELECT url, title, language, meta, created, modified, content FROM pages WHERE id = ?'),
      content: store.db.prepare('SELECT content FROM pages WHERE id = ?').pluck(),
      title: store.db
        .prepare(
          'SELECT p.title, h.headings, p.url FROM pages p LEFT JOIN page_headings h ON h.page_id = p.id WHERE p.id = ?',
        )
        .raw(),
      tags: store.db.prepare('SELECT tag FROM page_tags WHERE page_id = ? ORDER BY tag').pluck(),
      stemmers: store.db.prepare('SELECT stemmer FROM search_stemmers ORDER BY stemmer').pluck(),
    };
    cache.set(store, s);
  }
  return s;
}

/** Language and tag filters as conditions on f.rowid; hidden pages are never in the index to begin with. */
function filterSql(f: Filters): string {
  let sql = '';
  if (f.lang) {
    sql += ` AND EXISTS (SELECT 1 FROM pages p INDEXED BY pages_id_language WHERE p.id = f.rowid
      AND (lower(p.language) = @lang OR substr(lower(p.language), 1, length(@lang) + 1) = @lang || '-'))`;
  }
  for (let i = 0; i < f.tagCount; i++)
    sql += ` AND EXISTS (SELECT 1 FROM page_tags t WHERE t.tag = @tag${i} AND t.page_id = f.rowid)`;
  if (f.hosts)
    sql += ` AND EXISTS (SELECT 1 FROM pages p WHERE p.id = f.rowid AND p.host IN (SELECT value FROM json_each(@hosts)))`;
  return sql;
}

// Rowids are bound through CAST(? AS INTEGER): better-sqlite3 binds JS numbers as REAL, and FTS5 does not use
// a REAL rowid constraint: `rowid = ?` is silently ignored (every match comes back), and a range is checked
// row by row after a scan of every match instead of seeking to it.
function indexStatements(db: Database.Database, index: Index, f: Filters): IndexStatements {
  const where = `${index} MATCH @q${filterSql(f)}`;
  const weights = (index === 'pages_fts' ? BM25_WEIGHTS : TITLE_WEIGHTS).map((w) => w.toFixed(1)).join(', ');
  return {
    count: db.prepare(`SELECT count(*) FROM ${index} f WHERE ${where}`).pluck(),
    ids: db
      .prepare(
        `SELECT f.rowid FROM ${index} f WHERE ${where} AND f.rowid > CAST(@after AS INTEGER) ORDER BY f.rowid LIMIT @limit`,
      )
      .pluck(),
    idsIn: db
      .prepare(
        `SELECT f.rowid FROM ${index} f WHERE ${where} AND f.rowid BETWEEN CAST(@lo AS INTEGER) AND CAST(@hi AS INTEGER) ORDER BY f.rowid`,
      )
      .pluck(),
    ranked: db
      .prepare(
        `SELECT f.rowid AS id, bm25(${index}, ${weights}) AS s FROM ${index} f WHERE ${where} AND f.rowid BETWEEN CAST(@lo AS INTEGER) AND CAST(@hi AS INTEGER) ORDER BY s, f.rowid`,
      )
      .raw(),
  };
}

function statementsFor(store: Store, f: Filters): Record<Index, IndexStatements> {
  const s = statements(store);
  const key = `${f.lang ? 'l' : ''}${f.hosts ? 'h' : ''}${f.tagCount}`;
  let shape = s.byShape.get(key);
  if (!shape) {
    shape = {
      pages_fts: indexStatements(store.db, 'pages_fts', f),
      pages_title_fts: indexStatements(store.db, 'pages_title_fts', f),
    };
    s.byShape.set(key, shape);
  }
  return shape;
}

const ALL = { lo: 0, hi: Number.MAX_SAFE_INTEGER };

/**
 * Ranks the rows of one block: the matches within rowids [lo, hi], or exactly the rowids in `block` when given.
 * `rankBind.q` may be a looser expression than the search's (see queryExpressions); rows it does not score
 * come last, in index order, with score 0.
 */
function rank(
  st: IndexStatements,
  rankBind: Record<string, unknown>,
  lo: number,
  hi: number,
  block?: number[],
): Ranked[] {
  const rows = st.ranked.all({ ...rankBind, lo, hi }) as [number, number][];
  if (!block) return rows.map(([id, s]) => ({ id, score: -s }));
  const wanted = new Set(block);
  const out: Ranked[] = [];
  for (const [id, s] of rows) {
    if (wanted.delete(id)) out.push({ id, score: -s });
  }
  for (const id of block) if (wanted.has(id)) out.push({ id, score: 0 });
  return out;
}

/**
 * Block `k` of an index's matches in rowid order (positions k·RANK_BLOCK …), not counting the rowids that also
 * match the titles index when `titles` is given (those were listed first): its rowids; empty past the end.
 */
function blockIds(
  idx: IndexStatements,
  titles: IndexStatements | null,
  bind: Record<string, unknown>,
  k: number,
): number[] {
  const first = k * RANK_BLOCK;
  const ids: number[] = [];
  let pos = 0;
  let after = 0;
  for (;;) {
    const chunk = idx.ids.all({ ...bind, after, limit: CHUNK }) as number[];
    if (!chunk.length) break;
    const skip = titles ? new Set(titles.idsIn.all({ ...bind, lo: chunk[0], hi: chunk.at(-1) }) as number[]) : null;
    for (const id of chunk) {
      if (skip?.has(id)) continue;
      if (pos >= first) ids.push(id);
      pos++;
      if (ids.length === RANK_BLOCK) break;
    }
    if (ids.length === RANK_BLOCK || chunk.length < CHUNK) break;
    after = chunk.at(-1)!;
  }
  return ids;
}

/**
 * The hits at positions [from, from + size) of the ranked list of a broad answer (more than RANK_ALL matches).
 * `firstIds`: the first RANK_BLOCK matches in rowid order, already read.
 */
function rankBroad(
  st: Record<Index, IndexStatements>,
  bind: Record<string, unknown>,
  rankBind: Record<string, unknown>,
  from: number,
  size: number,
  firstIds: number[],
  titleRanking: TitleRanking,
): Ranked[] {
  const main = st.pages_fts;
  const titles = st.pages_title_fts;
  const titleTotal = titles.count.get(bind) as number;
  const tier2Block = (k: number): Ranked[] => {
    const ids = k === 0 && titleTotal === 0 ? firstIds : blockIds(main, titles, bind, k);
    return ids.length ? rank(main, rankBind, ids[0]!, ids.at(-1)!, ids) : [];
  };
  const titleBlock = (k: number): Ranked[] => {
    // The titles index is small: its full expression ranks cheaply. Every title there holds every word; the best
    // TITLE_CHECKS of them by the titles' bm25 (short titles first: the exact title among them) are read.
    if (titleTotal <= RANK_BLOCK)
      return withTitles(
        rank(titles, bind, ALL.lo, ALL.hi),
        () => true,
        (r) => titleRanking.facts(r.id),
        titleRanking,
        0,
      );
    const ids = blockIds(titles, null, bind, k);
    return ids.length ? rank(titles, bind, ids[0]!, ids.at(-1)!) : [];
  };
  const out: Ranked[] = [];
  const end = from + size;
  let pos = from;
  while (pos < end) {
    const inTitles = pos < titleTotal;
    const tierPos = inTitles ? pos : pos - titleTotal;
    const k = Math.floor(tierPos / RANK_BLOCK);
    const block = inTitles ? titleBlock(k) : tier2Block(k);
    const offset = tierPos - k * RANK_BLOCK;
    const take = block.slice(offset, offset + Math.min(end - pos, (inTitles ? titleTotal : Infinity) - pos));
    if (!take.length) break; // past the last match
    out.push(...take);
    pos += take.length;
  }
  return out;
}

/** The query's title ranking, and what is read of a page whose title is checked. */
interface TitleRanking extends TitleQuery {
  facts: (id: number) => TitleFacts;
}

/** bm25's inverse document frequency of a folded query word; a word still being typed counts as its completions. */
function inverseFrequency(store: Store, word: string, prefix: boolean): number {
  const n = indexedPages(store);
  let df = documentFrequency(store, word);
  if (!df && prefix) df = Math.min(n, completions(store, word).pages);
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/** A stored page's meta JSON (an unreadable one as none). */
export function parseMeta(json: string | null): Partial<PageMeta> {
  if (!json) return {};
  try {
    const v = JSON.parse(json) as unknown;
    return v && typeof v === 'object' ? (v as Partial<PageMeta>) : {};
  } catch {
    return {};
  }
}

/** A prefix whose completions are on this share of the index is "broad" (see queryExpressions). */
const BROAD_PREFIX_SHARE = 0.25;

/**
 * The MATCH expression of the search, and the ones that rank its matches. A whole word is searched with the index's
 * words of its stem (stemForms), two words in a row also as one (`proxy pass`: proxypass).
 *
 * bm25 first reads the whole doclist of every term of the expression it ranks (for their document frequency), on
 * every call. So a broad answer (over RANK_ALL matches, ranked a block at a time) is ranked by the words as typed,
 * without their other forms (`broadRankExpression`): a page that has only another form of a word comes after the
 * scored pages of its block. And a broad prefix does not take part in the ranking at all ("stat" → statement,
 * statistics, state, status, …: most of the index, for a word still being typed): the other words rank the
 * matches, or, when it is the only word, the word itself does (or its most frequent completion, when the word is
 * not one yet). `sameMatches`: the (small answer's) rank expression matches exactly the pages the search does.
 */
function queryExpressions(
  store: Store,
  parts: QueryPart[],
  algorithms: readonly string[],
): { expression: string; rankExpression: string; broadRankExpression: string; sameMatches: boolean } {
  let broad: { word: string; terms: string[] } | null = null;
  const variants = (word: string) => stemForms(store, foldWord(word), algorithms);
  const joined = (words: string[], prefix: boolean) => joinedForms(store, words.map(foldWord), prefix);
  const expand = (prefix: string) => {
    const word = foldWord(prefix);
    const found = completions(store, word);
    if (found.pages >= indexedPages(store) * BROAD_PREFIX_SHARE) broad = { word, terms: found.terms };
    return found.terms;
  };
  const expression = toExpression(parts, expand, variants, false, joined)!;
  if (!broad) {
    const rankExpression = parts.some((p) => p.identifier)
      ? toExpression(parts, expand, variants, true, joined)!
      : expression;
    return {
      expression,
      rankExpression,
      broadRankExpression: toExpression(parts, expand, undefined, true, joined)!,
      sameMatches: true,
    };
  }
  const { word, terms } = broad as { word: string; terms: string[] };
  const last = parts.at(-1)!;
  // A word still being typed ("postgre") is no term itself: its most frequent completion ranks instead.
  const rankWord = terms.includes(word) ? word : terms[0]!;
  const rankParts =
    parts.length > 1 ? parts.slice(0, -1) : [{ ...last, words: [...last.words.slice(0, -1), rankWord], prefix: false }];
  const rankExpression = toExpression(rankParts, undefined, variants, true, joined)!;
  return {
    expression,
    rankExpression,
    broadRankExpression: toExpression(rankParts, undefined, undefined, true, joined)!,
    sameMatches: false,
  };
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

/**
 * Searches the index. `terms`: words (all must match), "quoted phrases", the last word also as a prefix.
 * Throws BackendError invalid_input for empty terms or bad params.
 */
export interface SearchScope {
  /** Only pages of these hosts (the configured targets): pages of a host no longer configured stay out. */
  hosts?: readonly string[];
}

/**
 * Whether the store holds pages of a host outside `hosts` (only then does a search need the host filter). Steps
 * through the distinct hosts on the host index, a seek each: a NOT IN over the pages read every page on every search.
 */
function hasOtherHosts(store: Store, hosts: readonly string[]): boolean {
  const wanted = new Set(hosts);
  const next = store.prepare('SELECT host FROM pages WHERE host > ? ORDER BY host LIMIT 1').pluck();
  for (let host = next.get('') as string | undefined; host !== undefined; host = next.get(host) as string | undefined) {
    if (!wanted.has(host)) return true;
  }
  return false;
}

export function searchPages(
  store: Store,
  terms: string,
  params: SearchParams | undefined,
  scope: SearchScope = {},
): SearchResults {
  const started = performance.now();
  const text = checkTerms(terms);
  const p = parseSearchParams(params);
  const parts = parseTerms(text);
  if (!parts.length) return { total: 0, duration: round(performance.now() - started, 3), hits: [] };

  const tags = [...new Set(p.tags ?? [])];
  const lang = p.lang?.toLowerCase();
  const bind: Record<string, unknown> = {};
  if (lang !== undefined) bind.lang = lang;
  tags.forEach((t, i) => {
    bind[`tag${i}`] = t;
  });
  const byHost = scope.hosts !== undefined && hasOtherHosts(store, scope.hosts);
  if (byHost) bind.hosts = JSON.stringify(scope.hosts);
  const st = statementsFor(store, { lang: lang !== undefined, tagCount: tags.length, hosts: byHost });
  const s = statements(store);

  // One read transaction: every statement below sees the same snapshot, even while a crawl writes.
  const { total, hits } = store.db.transaction(() => {
    // The query's words are stemmed as the pages they may find were: in the filtered language's stemmer, or in each
    // stemmer the index uses.
    const filtered = lang === undefined ? null : algorithmFor(lang);
    const algorithms = lang === undefined ? (s.stemmers.all() as string[]) : filtered ? [filtered] : [];
    const { expression, rankExpression, broadRankExpression, sameMatches } = queryExpressions(store, parts, algorithms);
    const last = parts.at(-1)!;
    const words: RankWord[] = parts.flatMap((part) =>
      part.words.map((w, i) => {
        const word = foldWord(w);
        const prefix = part.prefix && i === part.words.length - 1;
        return { word, prefix, idf: inverseFrequency(store, word, prefix) };
      }),
    );
    // A snake_case name only: a dotted one (`os.environ(`, `subprocess.run([`) is as often a call in an example.
    const one = parts.length === 1 ? parts[0]! : null;
    const identifier =
      one?.identifier && /^[^.\-/'\u2019]*$/u.test(one.typed ?? '') ? definitionPattern(one.words) : null;
    const titleRanking: TitleRanking = {
      words,
      units: queryUnits(parts),
      algorithms,
      facts: (id) => {
        const [title, headings, url] = s.title.get(id) as [string, string | null, string];
        return {
          title,
          headings,
          url,
          defines: identifier ? () => identifier.test((s.content.get(id) as string | undefined) ?? '') : null,
        };
      },
    };
    bind.q = expression;
    const rankBind = { ...bind, q: rankExpression };
    // Reading the first RANK_BLOCK + 1 matches tells a small answer's total without a separate count.
    const main = st.pages_fts;
    const firstIds = main.ids.all({ ...bind, after: 0, limit: RANK_BLOCK + 1 }) as number[];
    const total = firstIds.length <= RANK_BLOCK ? firstIds.length : (main.count.get(bind) as number);
    let ranked: Ranked[] = [];
    if (p.from < total) {
      if (total <= RANK_ALL) {
        // The rank statement over every rowid returns every match: no list of them is needed first.
        let all: Ranked[];
        if (sameMatches) all = rank(main, rankBind, ALL.lo, ALL.hi);
        else {
          const ids =
            total === firstIds.length ? firstIds : (main.ids.all({ ...bind, after: 0, limit: RANK_ALL }) as number[]);
          all = rank(main, rankBind, ids[0]!, ids.at(-1)!, ids);
        }
        // The pages whose title (or superwords) holds every word, from the small titles index.
        const inTitle = new Set(st.pages_title_fts.idsIn.all({ ...bind, ...ALL }) as number[]);
        ranked = withTitles(
          all,
          (r) => inTitle.has(r.id),
          (r) => titleRanking.facts(r.id),
          titleRanking,
        ).slice(p.from, p.from + p.size);
      } else {
        ranked = rankBroad(
          st,
          bind,
          { ...bind, q: broadRankExpression },
          p.from,
          p.size,
          firstIds.slice(0, RANK_BLOCK),
          titleRanking,
        );
      }
    }
    // The words to mark in each hit's text, folded as the index folds them; the last one maybe as a prefix.
    const prefix = last.prefix ? foldWord(last.words.at(-1)!) : null;
    const find = matcher(
      parts.flatMap((part) => (part === last && prefix ? part.words.slice(0, -1) : part.words)).map(foldWord),
      prefix,
    );
    const hits: SearchHit[] = ranked.map(({ id, score }) => {
      const page = s.page.get(id) as {
        url: string;
        title: string;
        language: string | null;
        meta: string | null;
        created: string | null;
        modified: string | null;
        content: string;
      };
      const meta = parseMeta(page.meta);
      let shown = { text: page.content, matches: find(page.content) };
      if (meta.contentNoHighlight) shown = withoutRegion(shown.text, shown.matches, meta.contentNoHighlight);
      return {
        score: round(score, 6),
        title: page.title,
        url: page.url,
        language: page.language,
        highlight: makeHighlight(shown.text, shown.matches, p.highlight_length),
        tags: s.tags.all(id) as string[],
        created: page.created,
        modified: page.modified,
        customFields: (meta.customFields ?? {}) as Record<string, CustomField>,
      };
    });
    return { total, hits };
  })();
  return { total, duration: round(performance.now() - started, 3), hits };
}
