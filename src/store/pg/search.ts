// Full-text search over PostgreSQL's tsvector: the search engine (store/search/engine.ts) the shared pipeline
// (store/search/pipeline.ts) runs on, in one snapshot.
//
// The query. The user's text is cut into words and quoted phrases by the shared parser (store/search/query.ts:
// every word is letters, digits and marks, so nothing a user types is ever query syntax), and every word goes to
// the server as a bound value: plainto_tsquery for a word, phraseto_tsquery for a phrase or an identifier's parts,
// and to_tsquery with a quoted lexeme and :* for the last word typed as a prefix. All words must match. The query
// is read in every text search configuration the searchable pages use (one per page language; or in the filtered
// language's alone), so each page is found by the stems of its own language; the readings are OR-ed.
//
// The text score is ts_rank_cd (cover density) over the vector's weights (title and superwords A, headings and
// address B, tags C, content D; store/search/weights.ts), divided by 1 + log(length). search_title, the A part
// alone with its own index, is the title tier. Highlights are made from the page's text as SQLite's are
// (store/search/highlight.ts). A typo is corrected to a word of search_words, the words as written of the searchable
// pages (migration 75; the page writes add theirs, search-words.ts), counted on the vectors only for the few nearest candidates.
import type { CustomField, FacetCount, SearchParams, SearchResults } from '../../model/types.js';
import type { SearchFacetName } from '../../model/search-params.js';
import {
  FACET_VALUES,
  type EngineQuery,
  type SearchEngine,
  type SearchFilters,
  type StoredHit,
  type TextRanked,
} from '../search/engine.js';
import { pageHighlighter } from '../search/page-highlight.js';
import { upperBound } from '../search/fold.js';
import { MAX_CANDIDATES } from '../search/near-words.js';
import type { QueryPart } from '../search/query.js';
import { parseMeta, RANK_ALL, RANK_BLOCK, runAsync, searchSteps, timed, type SearchScope } from '../search/pipeline.js';
import type { Ranked, TitleFacts } from '../search/title-tiers.js';
import { TS_RANK_WEIGHTS } from '../search/weights.js';
import type { Sql } from '../sql.js';
import { VECTOR_CONTENT_CHARS } from './migrations/001-schema-with-tsvector-search.js';

/** ts_rank_cd weights of D, C, B, A: content, tags, headings and address, title and superwords. */
const WEIGHTS = `{${TS_RANK_WEIGHTS.join(', ')}}`;
/** ts_rank_cd normalization 1: divided by 1 + log(length), so a long page does not win by length alone. */
const NORMALIZATION = 1;
/** ts_rank_cd is a few hundredths to about one; scaled so the title's own score (TITLE_BOOST) weighs as on SQLite. */
const RANK_SCALE = 10;
/** A page's address path: its URL from the first '/' after the scheme's. */
const PATH_SQL = `substr(p.url, strpos(substr(p.url, 9), '/') + 8)`;
/** The facet value of a page's address: its first folder ("/docs/"), or "/" for a page at the root. */
const FOLDER_SQL = `CASE WHEN strpos(substr(${PATH_SQL}, 2), '/') > 0
  THEN substr(${PATH_SQL}, 1, strpos(substr(${PATH_SQL}, 2), '/') + 1) ELSE '/' END`;
/** A word's pages are counted up to this many: past it, a word is common and its exact rarity matters little. */
const FREQUENCY_CAP = 10_000;

/** A word as a tsquery lexeme: quoted, so to_tsquery reads it as a word whatever it holds. */
const lexeme = (word: string) => `'${word.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;

/**
 * The SQL of the query in every configuration, and its values: each part is a bound value, each configuration too.
 * A part a configuration reads as no word at all (a stop word) drops out of that configuration's reading.
 */
export function tsqueryExpression(parts: QueryPart[], configs: readonly string[]): { sql: string; values: string[] } {
  const values: string[] = [];
  const bind = (v: string) => {
    values.push(v);
    return '?';
  };
  const readings = configs.map((config) => {
    const cfg = () => `${bind(config)}::regconfig`;
    const split = (p: QueryPart) => {
      if (!p.prefix)
        return p.words.length > 1 || p.phrase
          ? `phraseto_tsquery(${cfg()}, ${bind(p.words.join(' '))})`
          : `plainto_tsquery(${cfg()}, ${bind(p.words[0]!)})`;
      // Values bind in the order their placeholders appear: the leading words' before the last word's.
      const head = p.words.length > 1 ? `phraseto_tsquery(${cfg()}, ${bind(p.words.slice(0, -1).join(' '))})` : null;
      const last = `to_tsquery(${cfg()}, ${bind(`${lexeme(p.words.at(-1)!)}:*`)})`;
      return head ? `tsquery_phrase(${head}, ${last})` : last;
    };
    const terms = parts.map((p) => {
      // PostgreSQL's parser keeps a dotted, dashed or slashed token whole (`os.path`, `2.4`, `http/2`) and a
      // hyphenated one also as its parts: the token as typed is read by the same parser, or else its parts.
      if (!p.typed || !/[^_\p{L}\p{N}\p{M}\p{Co}]/u.test(p.typed)) return split(p);
      const whole = p.prefix
        ? `to_tsquery(${cfg()}, ${bind(`${lexeme(p.typed)}:*`)})`
        : `phraseto_tsquery(${cfg()}, ${bind(p.typed)})`;
      return `(${whole} || ${split(p)})`;
    });
    return `(${terms.join(' && ')})`;
  });
  return { sql: readings.join(' || '), values };
}

/** Snowball algorithms of the configurations (svc_swedish → swedish), for the title's stem matches. */
const SNOWBALL = new Set([
  'arabic',
  'armenian',
  'basque',
  'catalan',
  'danish',
  'dutch',
  'english',
  'finnish',
  'french',
  'german',
  'hungarian',
  'italian',
  'irish',
  'norwegian',
  'portuguese',
  'romanian',
  'russian',
  'spanish',
  'swedish',
  'tamil',
  'turkish',
]);
const algorithmOf = (config: string) => config.replace(/^svc_/, '');

/** A Sql with consistent-snapshot reads (PgSql; the Sql interface itself has them once the SQLite side adds them). */
export type SnapshotSql = Sql & { snapshot<T>(fn: (sql: Sql) => Promise<T>): Promise<T> };

/** The ids of a list bound as one JSON value (@ids). */
const ID_LIST = 'SELECT json_array_elements_text(@ids::json)::bigint';

/** The query opened on the tsvector index: its tsquery read once, every statement in the caller's snapshot. */
async function openQuery(s: Sql, parts: QueryPart[], filters: SearchFilters): Promise<EngineQuery | null> {
  const { lang, tags } = filters;
  const configs =
    lang === undefined
      ? await configsInUse(s)
      : [(await s.get<{ c: string }>('SELECT svc_ts_config(?)::text AS c', [lang]))!.c];
  if (!configs.length) return null;
  const expr = tsqueryExpression(parts, configs);
  const q = (await s.get<{ q: string }>(`SELECT (${expr.sql})::text AS q`, expr.values))!.q;
  // Every word a stop word in every configuration: nothing to look for.
  if (!q) return null;

  const where: string[] = ['p.search_vector @@ @q::tsquery'];
  const bind: Record<string, string | number> = { q };
  if (lang !== undefined) {
    where.push(
      `(lower(p.language) = @lang::text OR substr(lower(p.language), 1, length(@lang::text) + 1) = @lang::text || '-')`,
    );
    bind.lang = lang;
  }
  tags.forEach((t, i) => {
    where.push(`EXISTS (SELECT 1 FROM page_tags t WHERE t.tag = @tag${i}::text AND t.page_id = p.id)`);
    bind[`tag${i}`] = t;
  });
  if (filters.hosts !== undefined) {
    where.push('p.host IN (SELECT json_array_elements_text(@hosts::json))');
    bind.hosts = JSON.stringify(filters.hosts);
  }
  if (filters.pathPrefix !== undefined) {
    where.push(`starts_with(${PATH_SQL}, @pathPrefix::text)`);
    bind.pathPrefix = filters.pathPrefix;
  }
  const matches = `FROM pages p WHERE ${where.join(' AND ')}`;
  const RANK = `ts_rank_cd('${WEIGHTS}', p.search_vector, @q::tsquery, ${NORMALIZATION})`;
  const IN_TITLE = '(p.search_title @@ @q::tsquery)';
  const scored = (rows: { id: number; r: number }[]): Ranked[] =>
    rows.map((row) => ({ id: row.id, score: row.r * RANK_SCALE }));
  /** Block k of the matches (and `cond`) in id order, best first within it. */
  const block = async (cond: string, k: number): Promise<Ranked[]> =>
    scored(
      await s.all<{ id: number; r: number }>(
        `SELECT b.id, ${RANK} AS r FROM (SELECT p.id ${matches} AND ${cond} ORDER BY p.id LIMIT ${RANK_BLOCK} OFFSET @offset) b
         JOIN pages p ON p.id = b.id ORDER BY r DESC, p.id`,
        { ...bind, offset: k * RANK_BLOCK },
      ),
    );
  /** The ranked matches of a small answer, read by count(). */
  let small: TextRanked[] | null = null;
  return {
    algorithms: configs.map(algorithmOf).filter((a) => SNOWBALL.has(a)),
    frequencies: async (words) => {
      const { pages, df } = await wordPages(s, configs, words);
      return { pages, df: df.map((n) => (n < 0 ? pages : n)) };
    },
    // A small answer (most searches) is counted and ranked by one statement: the matches read once, at most
    // RANK_ALL + 1 of them; only a broad one is counted again, exactly, and ranked a block at a time.
    count: async () => {
      const rows = await s.all<{ n: number; id: number | null; r: number | null; t: boolean | number | null }>(
        `WITH m AS MATERIALIZED (SELECT p.id ${matches} LIMIT ${RANK_ALL + 1}), c AS (SELECT count(*) AS n FROM m)
         SELECT c.n, x.id, x.r, x.t FROM c LEFT JOIN LATERAL (
           SELECT p.id, ${RANK} AS r, ${IN_TITLE} AS t FROM m JOIN pages p ON p.id = m.id WHERE c.n <= ${RANK_ALL}
         ) x ON true ORDER BY x.r DESC, x.id`,
        bind,
      );
      const n = Number(rows[0]?.n ?? 0);
      if (n > RANK_ALL) return (await s.get<{ c: number }>(`SELECT count(*) AS c ${matches}`, bind))!.c;
      small = rows
        .filter((row) => row.id !== null)
        .map((row) => ({ id: row.id!, score: row.r! * RANK_SCALE, inTitle: row.t === true || row.t === 1 }));
      return n;
    },
    rankAll: async () =>
      small ??
      (
        await s.all<{ id: number; r: number; t: boolean | number }>(
          `SELECT p.id, ${RANK} AS r, ${IN_TITLE} AS t ${matches} ORDER BY r DESC, p.id LIMIT ${RANK_ALL}`,
          bind,
        )
      ).map((row): TextRanked => ({ id: row.id, score: row.r * RANK_SCALE, inTitle: row.t === true || row.t === 1 })),
    titleCount: async () => (await s.get<{ c: number }>(`SELECT count(*) AS c ${matches} AND ${IN_TITLE}`, bind))!.c,
    rankTitles: async () =>
      scored(
        await s.all<{ id: number; r: number }>(
          `SELECT p.id, ${RANK} AS r ${matches} AND ${IN_TITLE} ORDER BY r DESC, p.id`,
          bind,
        ),
      ),
    titleBlock: (k) => block(IN_TITLE, k),
    otherBlock: (k) => block(`NOT ${IN_TITLE}`, k),
    async titleFacts(ids, definition) {
      const out = new Map<number, TitleFacts>();
      const rows = await s.all<{
        id: number;
        title: string;
        headings: string | null;
        url: string;
        length: number | null;
        content?: string;
      }>(
        // octet_length reads a stored text's size from its TOAST pointer, without reading the text.
        `SELECT p.id, p.title, h.headings, p.url, octet_length(p.content) AS length${definition ? `, left(p.content, ${VECTOR_CONTENT_CHARS}) AS content` : ''}
         FROM pages p LEFT JOIN page_headings h ON h.page_id = p.id WHERE p.id IN (${ID_LIST})`,
        { ids: JSON.stringify(ids) },
      );
      for (const row of rows) {
        const content = row.content ?? '';
        out.set(row.id, {
          title: row.title,
          headings: row.headings,
          url: row.url,
          length: Number(row.length ?? 0),
          defines: definition ? () => definition.pattern.test(content) : null,
        });
      }
      return out;
    },
    async facets(names) {
      const out: Partial<Record<SearchFacetName, FacetCount[]>> = {};
      for (const name of names) {
        const sql =
          name === 'tags'
            ? `SELECT t.tag AS value, count(*)::int AS count FROM page_tags t JOIN pages p ON p.id = t.page_id WHERE ${where.join(' AND ')}`
            : `SELECT ${name === 'lang' ? 'lower(p.language)' : FOLDER_SQL} AS value, count(*)::int AS count ${matches}${name === 'lang' ? ' AND p.language IS NOT NULL' : ''}`;
        out[name] = (
          await s.all<{ value: string; count: number }>(
            `${sql} GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ${FACET_VALUES}`,
            bind,
          )
        ).map((r) => ({ value: r.value, count: Number(r.count) }));
      }
      return out;
    },
    async hits(ids, highlightLength, marks) {
      const rows = await s.all<{
        id: number;
        url: string;
        title: string;
        language: string | null;
        meta: string | null;
        created: string | null;
        modified: string | null;
        content: string;
        tags: string | null;
      }>(
        `SELECT p.id, p.url, p.title, p.language, p.meta, p.created, p.modified, p.content,
           (SELECT json_agg(t.tag ORDER BY t.tag COLLATE "C")::text FROM page_tags t WHERE t.page_id = p.id) AS tags
         FROM pages p WHERE p.id IN (${ID_LIST})`,
        { ids: JSON.stringify(ids) },
      );
      const highlight = pageHighlighter(marks);
      const out = new Map<number, StoredHit>();
      for (const row of rows) {
        const meta = parseMeta(row.meta);
        out.set(row.id, {
          title: row.title,
          url: row.url,
          language: row.language,
          highlight: highlight(row.content, meta.contentNoHighlight, highlightLength),
          tags: row.tags ? (JSON.parse(row.tags) as string[]) : [],
          created: row.created,
          modified: row.modified,
          customFields: (meta.customFields ?? {}) as Record<string, CustomField>,
        });
      }
      return out;
    },
  };
}

/**
 * The searchable pages, and on how many of them each word is (read as the search reads it, in each configuration;
 * counted up to FREQUENCY_CAP): -1 for a word every configuration drops (a stop word).
 */
async function wordPages(
  s: Sql,
  configs: readonly string[],
  words: readonly { word: string; prefix: boolean }[],
): Promise<{ pages: number; df: number[] }> {
  const values: string[] = [];
  const columns = words.map(({ word, prefix }, i) => {
    const one = tsqueryExpression([{ words: [word], phrase: false, prefix }], configs);
    values.push(...one.values);
    return `(SELECT CASE WHEN numnode(x.q) = 0 THEN -1 ELSE (SELECT count(*) FROM (SELECT 1 FROM pages p
       WHERE p.search_vector @@ x.q LIMIT ${FREQUENCY_CAP}) c) END FROM (SELECT (${one.sql}) AS q) x) AS d${i}`;
  });
  const row = (await s.get<Record<string, number>>(
    `SELECT (SELECT count(*) FROM pages WHERE search_vector IS NOT NULL) AS pages${columns.map((c) => `, ${c}`).join('')}`,
    values,
  ))!;
  return { pages: Number(row.pages), df: words.map((_, i) => Number(row[`d${i}`])) };
}

/** The configurations the searchable pages use. */
async function configsInUse(s: Sql): Promise<string[]> {
  return (await s.all<{ c: string }>('SELECT config::text AS c FROM search_configs ORDER BY 1')).map((r) => r.c);
}

/** The tsvector index of a database as the pipeline's engine, on one snapshot's connection. */
export function pgEngine(s: Sql): SearchEngine {
  return {
    open: (parts, filters) => openQuery(s, parts, filters),
    // Words as written (search_words), without their pages: counting a word costs a lookup in the vectors.
    vocabulary: async (prefix) =>
      prefix
        ? (
            await s.all<{ word: string }>(
              `SELECT word FROM search_words WHERE word >= ? AND word < ? ORDER BY word LIMIT ${MAX_CANDIDATES}`,
              [prefix, upperBound(prefix)],
            )
          ).map((r) => ({ term: r.word }))
        : [],
    pages: async (words) => {
      const configs = await configsInUse(s);
      if (!words.length || !configs.length) return words.map(() => 0);
      const { df } = await wordPages(
        s,
        configs,
        words.map((word) => ({ word, prefix: false })),
      );
      // A stop word is no correction: it finds nothing more.
      return df.map((n) => Math.max(0, n));
    },
  };
}

/**
 * The planner's settings for the statements of one search (set_config's `true`: this transaction only). The planner
 * costs a match of the vector (@@) as one cheap operator, not knowing that each row's vector must first be read from
 * its TOAST table, so for a word on a tenth of the pages it scans the table and reads every page's vector (20 ms on
 * the 500 pages of the Python manual) where the GIN index reads only the matches' (1–2 ms): a search never scans the
 * pages when an index answers. The JIT compiler, which the scan's disabled cost would wake for a statement that must
 * scan (the searchable pages' count), costs hundreds of milliseconds and saves nothing on a search's statements.
 */
const PLANNER_SETTINGS = "SELECT set_config('enable_seqscan', 'off', true), set_config('jit', 'off', true)";

/** Searches the pages (store/search/pipeline.ts) on one snapshot. Throws invalid_input for bad terms or params. */
export async function searchPagesPg(
  sql: SnapshotSql,
  terms: string,
  params: SearchParams | undefined,
  scope: SearchScope = {},
): Promise<SearchResults> {
  const started = performance.now();
  const answer = await sql.snapshot(async (s) => {
    await s.get(PLANNER_SETTINGS);
    return runAsync(searchSteps(pgEngine(s), terms, params, scope));
  });
  return timed(started, answer);
}
