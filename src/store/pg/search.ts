// Search on PostgreSQL: what searchPages (search-index/search.ts) answers on SQLite, over the pages' tsvector.
//
// The query. The user's text is cut into words and quoted phrases by the same parser as on SQLite (query.ts: every
// word is letters, digits and marks, so nothing a user types is ever query syntax), and every word goes to the
// server as a bound value: plainto_tsquery for a word, phraseto_tsquery for a phrase or an identifier's parts, and
// to_tsquery with a quoted lexeme and :* for the last word typed as a prefix. All words must match. The query is
// read in every text search configuration the searchable pages use (one per page language; or in the filtered
// language's alone), so each page is found by the stems of its own language; the readings are OR-ed.
//
// Ranking. ts_rank_cd (cover density) over the vector's weights (title and superwords A, headings B, tags C, content
// D), with the same tiers above it as on SQLite: pages whose title or superwords hold every word come before the
// others (their own small vector, search_title, matches the query), and the titles and headings of the best are read
// and scored as the SQLite ranking does (a title that is the query word for word first, then one that is the query up
// to a last word still being typed, a heading that is the query, the title's own score). An answer of more than
// RANK_ALL matches is ranked in bounded work, as on SQLite: the title tier first, then the other matches in blocks of
// RANK_BLOCK in id order, each block ranked within. `total` is the exact count, and the order is the same on every
// page of results.
//
// Highlights come from ts_headline in the page's configuration, with markers that are then turned into <em> around
// HTML-escaped text, about highlight_length characters long.
import { escapeHtml } from '../../lib/escape-html.js';
import type { CustomField, SearchHit, SearchParams, SearchResults } from '../../model/types.js';
import { checkTerms, parseSearchParams } from '../../model/search-params.js';
import { foldWord } from '../search-index/completions.js';
import { parseTerms, type QueryPart } from '../search-index/query.js';
import { parseMeta, RANK_ALL, RANK_BLOCK, type SearchScope } from '../search-index/search.js';
import { queryUnits, type RankWord } from '../search-index/terms.js';
import {
  titleChecked,
  TITLE_TIER_SCORE,
  withTitles,
  type Ranked,
  type TitleFacts,
} from '../search-index/title-tiers.js';
import type { Sql } from '../sql.js';
import { VECTOR_CONTENT_CHARS } from './migrations/001-schema-with-tsvector-search.js';

// As on SQLite: answers of up to RANK_ALL matches are ranked whole, broader ones RANK_BLOCK at a time after the title tier.
export { RANK_ALL, RANK_BLOCK };
/** ts_rank_cd weights of D, C, B, A: content, tags, headings, title and superwords. */
const WEIGHTS = '{0.1, 0.2, 0.4, 1.0}';
/** ts_rank_cd normalization 1: divided by 1 + log(length), so a long page does not win by length alone. */
const NORMALIZATION = 1;
/** ts_rank_cd is a few hundredths to about one; scaled so the title's own score (TITLE_BOOST) weighs as on SQLite. */
const RANK_SCALE = 10;

/**
 * Markers ts_headline puts around a match: control characters, taken out of the text first. '<' goes in as LT, so
 * the parser reads no HTML tag in the text (ts_headline leaves tags out), and comes back in highlightHtml.
 */
const START = '\u0002';
const STOP = '\u0003';
const LT = '\u0004';

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

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

interface RankedRow extends Ranked {
  /** The page's title or superwords hold every word (its search_title matches). */
  inTitle: boolean;
}

const collapse = (s: string) => s.replace(/\s+/g, ' ');

/**
 * ts_headline's marked fragment as the highlight SQLite gives: HTML-escaped text, matches in <em>, whitespace
 * collapsed, at most about `length` characters (cut at a word boundary after the first match), with … where the text
 * goes on before or after. `head`/`tail`: the start and end of the text it was cut from.
 */
export function highlightHtml(marked: string, length: number, head: string, tail: string): string {
  // A marker character in the page's own text is no marker: ts_headline's are the only ones left after this.
  const segments: { text: string; em: boolean }[] = [];
  let em = false;
  for (const piece of collapse(marked.replaceAll(LT, '<')).split(/([\u0002\u0003])/)) {
    if (piece === START) em = true;
    else if (piece === STOP) em = false;
    else if (piece) segments.push({ text: piece, em });
  }
  const plain = segments.map((s) => s.text).join('');
  const body = plain.trim();
  if (!body) return '';
  const atStart = collapse(head.replaceAll(LT, '<'))
    .trimStart()
    .startsWith(body.slice(0, Math.min(body.length, 50)));
  let atEnd = collapse(tail.replaceAll(LT, '<'))
    .trimEnd()
    .endsWith(body.slice(-Math.min(body.length, 50)));
  // Cut to `length`: at the last space before it, but never before the end of the first match.
  const firstMatchEnd = (() => {
    let pos = 0;
    for (const s of segments) {
      pos += s.text.length;
      if (s.em) return pos;
    }
    return 0;
  })();
  let end = plain.length;
  if (plain.trim().length > length) {
    const lead = plain.length - plain.trimStart().length;
    let cut = lead + length;
    const space = plain.lastIndexOf(' ', cut);
    if (space > lead + length / 2) cut = space;
    end = Math.max(cut, firstMatchEnd);
    atEnd = false;
  }
  let html = '';
  let pos = 0;
  for (const s of segments) {
    if (pos >= end) break;
    const text = s.text.slice(0, end - pos);
    pos += s.text.length;
    html += s.em ? `<em>${escapeHtml(text)}</em>` : escapeHtml(text);
  }
  html = html.trim();
  return (atStart ? '' : '…') + html + (atEnd ? '' : '…');
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

/** The page's content as searched and shown (contentNoHighlight taken out), capped as its vector is. */
const SHOWN_CONTENT = `left(CASE WHEN p.meta IS NOT NULL AND COALESCE((p.meta::json)->>'contentNoHighlight', '') <> ''
  THEN replace(p.content, (p.meta::json)->>'contentNoHighlight', '') ELSE p.content END, ${VECTOR_CONTENT_CHARS})`;

/** A Sql with consistent-snapshot reads (PgSql; the Sql interface itself has them once the SQLite side adds them). */
export type SnapshotSql = Sql & { snapshot<T>(fn: (sql: Sql) => Promise<T>): Promise<T> };

/** Searches the pages. Same arguments, rules and answer as the SQLite searchPages; throws invalid_input for bad ones. */
export async function searchPagesPg(
  sql: SnapshotSql,
  terms: string,
  params: SearchParams | undefined,
  scope: SearchScope = {},
): Promise<SearchResults> {
  const started = performance.now();
  const text = checkTerms(terms);
  const p = parseSearchParams(params);
  const parts = parseTerms(text);
  const empty = () => ({ total: 0, duration: round(performance.now() - started, 3), hits: [] });
  if (!parts.length) return empty();
  const tags = [...new Set(p.tags ?? [])];
  const lang = p.lang?.toLowerCase();

  // One snapshot: the count, the ranking and the hits agree, even while a crawl writes.
  const answer = await sql.snapshot(async (s) => {
    const configs =
      lang === undefined
        ? (await s.all<{ c: string }>('SELECT config::text AS c FROM search_configs ORDER BY 1')).map((r) => r.c)
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
    if (scope.hosts !== undefined) {
      where.push('p.host IN (SELECT json_array_elements_text(@hosts::json))');
      bind.hosts = JSON.stringify(scope.hosts);
    }
    const matches = `FROM pages p WHERE ${where.join(' AND ')}`;
    const total = (await s.get<{ c: number }>(`SELECT count(*) AS c ${matches}`, bind))!.c;
    if (p.from >= total) return { total, hits: [] as SearchHit[] };

    const RANK = `ts_rank_cd('${WEIGHTS}', p.search_vector, @q::tsquery, ${NORMALIZATION})`;
    const IN_TITLE = '(p.search_title @@ @q::tsquery)';
    /** Matches (and `cond`) best first: title tier, then ts_rank_cd; scores with the title tier added. */
    const rankedRows = async (cond: string, offset: number, limit: number): Promise<RankedRow[]> =>
      toRanked(
        await s.all<{ id: number; r: number; t: number }>(
          `SELECT p.id, ${RANK} AS r, ${IN_TITLE} AS t ${matches} ${cond} ORDER BY t DESC, r DESC, p.id LIMIT @limit OFFSET @offset`,
          { ...bind, limit, offset },
        ),
      );
    const toRanked = (rows: { id: number; r: number; t: number }[]): RankedRow[] =>
      rows.map((row) => ({
        id: row.id,
        inTitle: row.t === 1,
        score: row.r * RANK_SCALE + (row.t === 1 ? TITLE_TIER_SCORE : 0),
      }));
    /** Ranked rows re-ranked with their titles and headings (withTitles adds the title tier itself). */
    const reRanked = async (rows: RankedRow[]): Promise<RankedRow[]> => {
      const base = rows.map((r) => ({ ...r, score: r.inTitle ? r.score - TITLE_TIER_SCORE : r.score }));
      const inTitle = (r: RankedRow) => r.inTitle;
      const checked = titleChecked(base, inTitle);
      const facts = new Map<number, TitleFacts>();
      for (const row of await s.all<{ id: number; title: string; headings: string | null; url: string }>(
        'SELECT p.id, p.title, h.headings, p.url FROM pages p LEFT JOIN page_headings h ON h.page_id = p.id WHERE p.id IN (SELECT json_array_elements_text(?::json)::bigint)',
        [JSON.stringify(base.filter((_, i) => checked[i]).map((r) => r.id))],
      )) {
        // A definition (an identifier followed by a parenthesis in the text) is read on SQLite only.
        facts.set(row.id, { title: row.title, headings: row.headings, url: row.url, defines: null });
      }
      const algorithms = configs.map(algorithmOf).filter((a) => SNOWBALL.has(a));
      const words: RankWord[] = parts.flatMap((part) =>
        part.words.map((w, i) => ({ word: foldWord(w), prefix: part.prefix && i === part.words.length - 1, idf: 1 })),
      );
      return withTitles(
        base,
        inTitle,
        (r) => facts.get(r.id) ?? { title: '', headings: null, url: '', defines: null },
        { words, units: queryUnits(parts), algorithms },
      );
    };

    const end = Math.min(total, p.from + p.size);
    let page: RankedRow[] = [];
    if (total <= RANK_ALL) {
      page = (await reRanked(await rankedRows('', 0, RANK_ALL))).slice(p.from, end);
    } else {
      // A broad answer: ranking every match would read every match's vector. First the pages whose title holds every
      // word (from the titles' own index), then the others in blocks of RANK_BLOCK in id order, each ranked within.
      const titleTotal = (await s.get<{ c: number }>(`SELECT count(*) AS c ${matches} AND ${IN_TITLE}`, bind))!.c;
      const titleTier =
        titleTotal <= RANK_ALL ? await reRanked(await rankedRows(`AND ${IN_TITLE}`, 0, RANK_ALL)) : null;
      const block = async (k: number): Promise<RankedRow[]> =>
        toRanked(
          await s.all<{ id: number; r: number; t: number }>(
            `SELECT b.id, ${RANK} AS r, 0 AS t FROM (SELECT p.id ${matches} AND NOT ${IN_TITLE} ORDER BY p.id LIMIT ${RANK_BLOCK} OFFSET @offset) b
             JOIN pages p ON p.id = b.id ORDER BY r DESC, p.id`,
            { ...bind, offset: k * RANK_BLOCK },
          ),
        );
      for (let pos = p.from; pos < end; ) {
        let take: RankedRow[];
        if (pos < titleTotal) {
          const stop = Math.min(end, titleTotal);
          take = titleTier ? titleTier.slice(pos, stop) : await rankedRows(`AND ${IN_TITLE}`, pos, stop - pos);
        } else {
          const k = Math.floor((pos - titleTotal) / RANK_BLOCK);
          const offset = pos - titleTotal - k * RANK_BLOCK;
          take = (await block(k)).slice(offset, offset + end - pos);
        }
        if (!take.length) break;
        page.push(...take);
        pos += take.length;
      }
    }
    const rows = await s.all<{
      id: number;
      url: string;
      title: string;
      language: string | null;
      meta: string | null;
      created: string | null;
      modified: string | null;
      marked: string;
      head: string;
      tail: string;
      tags: string | null;
    }>(
      `SELECT p.id, p.url, p.title, p.language, p.meta, p.created, p.modified,
         ts_headline(p.search_config, c.shown, @q::tsquery, @options) AS marked, left(c.shown, 200) AS head, right(c.shown, 200) AS tail,
         (SELECT json_agg(t.tag ORDER BY t.tag COLLATE "C")::text FROM page_tags t WHERE t.page_id = p.id) AS tags
       FROM pages p CROSS JOIN LATERAL (SELECT translate(${SHOWN_CONTENT}, E'<\\x02\\x03\\x04', E'\\x04') AS shown) c
       WHERE p.id IN (SELECT json_array_elements_text(@ids::json)::bigint)`,
      { q, ids: JSON.stringify(page.map((r) => r.id)), options: headlineOptions(p.highlight_length) },
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    const hits: SearchHit[] = [];
    for (const r of page) {
      const row = byId.get(r.id);
      if (!row) continue;
      const meta = parseMeta(row.meta);
      hits.push({
        score: round(r.score, 6),
        title: row.title,
        url: row.url,
        language: row.language,
        highlight: highlightHtml(row.marked, p.highlight_length, row.head, row.tail),
        tags: row.tags ? (JSON.parse(row.tags) as string[]) : [],
        created: row.created,
        modified: row.modified,
        customFields: (meta.customFields ?? {}) as Record<string, CustomField>,
      });
    }
    return { total, hits };
  });
  if (!answer) return empty();
  return { ...answer, duration: round(performance.now() - started, 3) };
}

/** ts_headline's options for a highlight of about `length` characters (words of about six with their space). */
function headlineOptions(length: number): string {
  const max = Math.max(3, Math.round(length / 6));
  return `StartSel=${START}, StopSel=${STOP}, MaxWords=${max}, MinWords=${Math.max(2, Math.floor(max * 0.75))}, ShortWord=0, HighlightAll=false`;
}
