// Full-text search over SQLite's FTS5 index: the search engine (store/search/engine.ts) the shared pipeline
// (store/search/pipeline.ts) runs on, in one read transaction.
//
// Matching. A whole word is searched with the index's words of its stem (stemForms), two words in a row also as
// one (`proxy pass`: proxypass), the last word typed as the index's words it begins (completions.ts); pages_fts
// holds every searchable page, pages_title_fts their titles and superwords alone (the title tier). The text score
// is bm25 over the columns, weighted as store/search/weights.ts says. bm25 costs about two microseconds per matching
// page, so a broad answer is ranked a block at a time (pipeline.ts).
import type Database from 'better-sqlite3';
import type { Store } from '../sqlite/store.js';
import type { CustomField, FacetCount, SearchParams, SearchResults } from '../../model/types.js';
import { definitionInBytes, pageHighlighter } from '../search/page-highlight.js';
import { MAX_CANDIDATES } from '../search/near-words.js';
import type { SearchFacetName } from '../../model/search-params.js';
import { completions, documentFrequency, indexedPages, joinedForms, stemForms, vocabulary } from './completions.js';
import { foldWord } from '../search/fold.js';
import { toExpression, type QueryPart } from '../search/query.js';
import type { Ranked, TitleFacts } from '../search/title-tiers.js';
import { algorithmFor } from '../search/stems.js';
import {
  FACET_VALUES,
  type EngineQuery,
  type SearchEngine,
  type SearchFilters,
  type StoredHit,
  type TextRanked,
} from '../search/engine.js';
import { parseMeta, RANK_ALL, RANK_BLOCK, runSync, searchSteps, timed, type SearchScope } from '../search/pipeline.js';
import { BM25_WEIGHTS, TITLE_BM25_WEIGHTS } from '../search/weights.js';

/** Rowids read per step while finding where a block starts and ends. */
const CHUNK = 2000;

type Index = 'pages_fts' | 'pages_title_fts';

interface Filters {
  lang: boolean;
  tagCount: number;
  /** Only pages of the hosts in @hosts (a JSON array). */
  hosts: boolean;
  /** Only pages whose address path starts with @pathPrefix. */
  pathPrefix: boolean;
}

/** A page's address path: its URL from the first '/' after the scheme's. */
const PATH_SQL = `substr(p.url, instr(substr(p.url, 9), '/') + 8)`;
/** The facet value of a page's address: its first folder ("/docs/"), or "/" for a page at the root. */
const FOLDER_SQL = `CASE WHEN instr(substr(${PATH_SQL}, 2), '/') > 0
  THEN substr(${PATH_SQL}, 1, instr(substr(${PATH_SQL}, 2), '/') + 1) ELSE '/' END`;

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
  /** page without the text: for a page whose bytes this search already read. */
  pageMeta: Database.Statement;
  contentBytes: Database.Statement;
  title: Database.Statement;
  tags: Database.Statement;
  stemmers: Database.Statement;
}

const cache = new WeakMap<Store, Statements>();
/** The bytes of a page without text. */
const EMPTY = Buffer.alloc(0);

function statements(store: Store): Statements {
  let s = cache.get(store);
  if (!s) {
    s = {
      byShape: new Map(),
      // The text as its UTF-8 bytes: a highlight decodes only the part it shows (page-highlight.ts).
      page: store.db.prepare(
        'SELECT url, title, language, meta, created, modified, CAST(content AS BLOB) AS content FROM pages WHERE id = ?',
      ),
      pageMeta: store.db.prepare('SELECT url, title, language, meta, created, modified FROM pages WHERE id = ?'),
      contentBytes: store.db.prepare('SELECT CAST(content AS BLOB) FROM pages WHERE id = ?').pluck(),
      title: store.db
        .prepare(
          // octet_length reads the text's size from its record's header, not the text.
          'SELECT p.title, h.headings, p.url, coalesce(octet_length(p.content), 0) FROM pages p LEFT JOIN page_headings h ON h.page_id = p.id WHERE p.id = ?',
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
  if (f.pathPrefix)
    sql += ` AND EXISTS (SELECT 1 FROM pages p WHERE p.id = f.rowid AND substr(${PATH_SQL}, 1, length(@pathPrefix)) = @pathPrefix)`;
  return sql;
}

// Rowids are bound through CAST(? AS INTEGER): better-sqlite3 binds JS numbers as REAL, and FTS5 does not use
// a REAL rowid constraint: `rowid = ?` is silently ignored (every match comes back), and a range is checked
// row by row after a scan of every match instead of seeking to it.
function indexStatements(db: Database.Database, index: Index, f: Filters): IndexStatements {
  const where = `${index} MATCH @q${filterSql(f)}`;
  const weights = (index === 'pages_fts' ? BM25_WEIGHTS : TITLE_BM25_WEIGHTS).map((w) => w.toFixed(1)).join(', ');
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
  const key = `${f.lang ? 'l' : ''}${f.hosts ? 'h' : ''}${f.pathPrefix ? 'p' : ''}${f.tagCount}`;
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

type PageRow = {
  url: string;
  title: string;
  language: string | null;
  meta: string | null;
  created: string | null;
  modified: string | null;
  /** The text as UTF-8 (null: none stored). */
  content: Buffer | null;
};

/** The query opened on FTS5: its MATCH expressions bound, read in the store's transaction. */
function openQuery(store: Store, parts: QueryPart[], filters: SearchFilters): EngineQuery {
  const { lang, tags } = filters;
  const bind: Record<string, unknown> = {};
  if (lang !== undefined) bind.lang = lang;
  tags.forEach((t, i) => {
    bind[`tag${i}`] = t;
  });
  const byHost = filters.hosts !== undefined && hasOtherHosts(store, filters.hosts);
  if (byHost) bind.hosts = JSON.stringify(filters.hosts);
  if (filters.pathPrefix !== undefined) bind.pathPrefix = filters.pathPrefix;
  const shape: Filters = {
    lang: lang !== undefined,
    tagCount: tags.length,
    hosts: byHost,
    pathPrefix: filters.pathPrefix !== undefined,
  };
  const st = statementsFor(store, shape);
  const s = statements(store);
  // The query's words are stemmed as the pages they may find were: in the filtered language's stemmer, or in each
  // stemmer the index uses.
  const filtered = lang === undefined ? null : algorithmFor(lang);
  const algorithms = lang === undefined ? (s.stemmers.all() as string[]) : filtered ? [filtered] : [];
  const { expression, rankExpression, broadRankExpression, sameMatches } = queryExpressions(store, parts, algorithms);
  bind.q = expression;
  const rankBind = { ...bind, q: rankExpression };
  const main = st.pages_fts;
  const titles = st.pages_title_fts;
  // Reading the first RANK_BLOCK + 1 matches tells a small answer's total without a separate count.
  let first: number[] | null = null;
  const firstIds = () => (first ??= main.ids.all({ ...bind, after: 0, limit: RANK_BLOCK + 1 }) as number[]);
  // The pages' bytes the definition check read, kept for the hits of the same search (mostly the same pages).
  const readBytes = new Map<number, Buffer>();
  const bytesOf = (id: number) => {
    let b = readBytes.get(id);
    if (!b) readBytes.set(id, (b = (s.contentBytes.get(id) as Buffer | null) ?? EMPTY));
    return b;
  };
  let titleTotal: number | null = null;
  const countTitles = () => (titleTotal ??= titles.count.get(bind) as number);
  return {
    algorithms,
    frequencies: (words) => {
      const pages = indexedPages(store);
      const df = words.map(({ word, prefix }) => {
        const n = documentFrequency(store, word);
        // A word still being typed counts as its completions.
        return !n && prefix ? Math.min(pages, completions(store, word).pages) : n;
      });
      return { pages, df };
    },
    count: () => {
      const ids = firstIds();
      return ids.length <= RANK_BLOCK ? ids.length : (main.count.get(bind) as number);
    },
    rankAll: () => {
      // The rank statement over every rowid returns every match: no list of them is needed first.
      let all: Ranked[];
      if (sameMatches) all = rank(main, rankBind, ALL.lo, ALL.hi);
      else {
        const ids =
          firstIds().length <= RANK_BLOCK
            ? firstIds()
            : (main.ids.all({ ...bind, after: 0, limit: RANK_ALL }) as number[]);
        all = rank(main, rankBind, ids[0]!, ids.at(-1)!, ids);
      }
      // The pages whose title (or superwords) holds every word, from the small titles index.
      const inTitle = new Set(titles.idsIn.all({ ...bind, ...ALL }) as number[]);
      return all.map((r): TextRanked => ({ ...r, inTitle: inTitle.has(r.id) }));
    },
    titleCount: countTitles,
    // The titles index is small: its full expression ranks cheaply.
    rankTitles: () => rank(titles, bind, ALL.lo, ALL.hi),
    titleBlock: (k) => {
      const ids = blockIds(titles, null, bind, k);
      return ids.length ? rank(titles, bind, ids[0]!, ids.at(-1)!) : [];
    },
    otherBlock: (k) => {
      const ids = k === 0 && countTitles() === 0 ? firstIds().slice(0, RANK_BLOCK) : blockIds(main, titles, bind, k);
      return ids.length ? rank(main, { ...bind, q: broadRankExpression }, ids[0]!, ids.at(-1)!, ids) : [];
    },
    titleFacts: (ids, definition) => {
      const out = new Map<number, TitleFacts>();
      const defines = definition ? definitionInBytes(definition) : null;
      for (const id of ids) {
        const [title, headings, url, length] = s.title.get(id) as [string, string | null, string, number];
        out.set(id, {
          title,
          headings,
          url,
          length,
          defines: defines ? () => defines(bytesOf(id)) : null,
        });
      }
      return out;
    },
    facets: (names) => {
      const out: Partial<Record<SearchFacetName, FacetCount[]>> = {};
      const where = `pages_fts MATCH @q${filterSql(shape)}`;
      for (const name of names) {
        const sql =
          name === 'tags'
            ? `SELECT t.tag AS value, count(*) AS count FROM pages_fts f JOIN page_tags t ON t.page_id = f.rowid WHERE ${where}`
            : `SELECT ${name === 'lang' ? 'lower(p.language)' : FOLDER_SQL} AS value, count(*) AS count
               FROM pages_fts f JOIN pages p ON p.id = f.rowid WHERE ${where}${name === 'lang' ? ' AND p.language IS NOT NULL' : ''}`;
        out[name] = store
          .prepare(`${sql} GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ${FACET_VALUES}`)
          .all(bind) as FacetCount[];
      }
      return out;
    },
    hits: (ids, highlightLength, marks) => {
      const highlight = pageHighlighter(marks);
      const out = new Map<number, StoredHit>();
      for (const id of ids) {
        const read = readBytes.get(id);
        const page = read
          ? { ...(s.pageMeta.get(id) as Omit<PageRow, 'content'>), content: read }
          : (s.page.get(id) as PageRow);
        const meta = parseMeta(page.meta);
        out.set(id, {
          title: page.title,
          url: page.url,
          language: page.language,
          highlight: highlight(page.content ?? '', meta.contentNoHighlight, highlightLength),
          tags: s.tags.all(id) as string[],
          created: page.created,
          modified: page.modified,
          customFields: (meta.customFields ?? {}) as Record<string, CustomField>,
        });
      }
      return out;
    },
  };
}

/** The FTS5 index of a store as the pipeline's engine. */
export function sqliteEngine(store: Store): SearchEngine {
  return {
    open: (parts, filters) => openQuery(store, parts, filters),
    vocabulary: (prefix) => vocabulary(store, prefix, MAX_CANDIDATES),
    pages: (words) => words.map((w) => documentFrequency(store, w)),
  };
}

/**
 * Searches the index (store/search/pipeline.ts) in one read transaction: every statement sees the same snapshot,
 * even while a crawl writes. Throws BackendError invalid_input for empty terms or bad params.
 */
export function searchPages(
  store: Store,
  terms: string,
  params: SearchParams | undefined,
  scope: SearchScope = {},
): SearchResults {
  const started = performance.now();
  const answer = store.db.transaction(() => runSync(searchSteps(sqliteEngine(store), terms, params, scope)))();
  return timed(started, answer);
}
