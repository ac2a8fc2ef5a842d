// The one search pipeline both stores run: parse the terms, count the matches, rank them (the text score of the
// store's engine, then the title tiers of title-tiers.ts), page them and build the hits. The store's engine
// (engine.ts) answers the index's part; the rules are here, once.
//
// Ranking. An answer of up to RANK_ALL matches is ranked whole: every match by its text score, then the best of
// them and those whose title or superwords hold every word have their title, headings and address read and are
// lifted by tier (title-tiers.ts). A broad answer (thousands of matches on a large site) is ranked in bounded work
// instead: first the title tier (its matches whose title or superwords hold every word, from a small index of
// their own), then the other matches, ranked within consecutive blocks of RANK_BLOCK in index order. `total` is
// always the exact number of matches, and the order is the same on every page of results.
//
// The pipeline is a generator that yields what it asks of the engine: SQLite's synchronous driver answers at once
// inside one read transaction (runSync), PostgreSQL's answers later inside one snapshot (runAsync).
import { checkTerms, parseSearchParams } from '../../model/search-params.js';
import type { CorrectedTerm, PageMeta, SearchHit, SearchParams, SearchResults } from '../../model/types.js';
import type { Awaitable, EngineQuery, HighlightWords, SearchEngine, SearchFilters, StoredHit } from './engine.js';
import { CANDIDATE_PREFIX, maxEdits, nearestWord, withinEdits, type VocabularyWord } from './near-words.js';
import { foldWord } from './fold.js';
import { parseTerms, type QueryPart } from './query.js';
import { titleChecked, withTitles, type Ranked, type TitleFacts, type TitleQuery } from './title-tiers.js';
import { definitionPattern, queryUnits } from './titles.js';

/** Answers of up to this many matches are ranked whole. */
export const RANK_ALL = 1000;
/** Broader answers are ranked this many matches at a time (see above). */
export const RANK_BLOCK = 100;

export interface SearchScope {
  /** Only pages of these hosts (the configured targets): pages of a host no longer configured stay out. */
  hosts?: readonly string[];
}

/** A step of the pipeline: what it asks the engine, answered now or later. */
type Steps<T> = Generator<Awaitable<unknown>, T, unknown>;

function* ask<T>(value: Awaitable<T>): Steps<T> {
  return (yield value) as T;
}

/** Runs the pipeline on an engine whose answers are all immediate (never a promise). */
export function runSync<T>(steps: Steps<T>): T {
  let r = steps.next();
  while (!r.done) {
    if (r.value instanceof Promise) throw new Error('runSync: the engine answered with a promise');
    r = steps.next(r.value);
  }
  return r.value;
}

/** Runs the pipeline on an engine whose answers may be promises. */
export async function runAsync<T>(steps: Steps<T>): Promise<T> {
  let r = steps.next();
  while (!r.done) r = steps.next(await r.value);
  return r.value;
}

/** bm25's inverse document frequency: how rare a word is among the searchable pages. */
export function inverseFrequency(pages: number, df: number): number {
  return Math.log(1 + (pages - df + 0.5) / (df + 0.5));
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

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

/** The matched pages and their total, before the duration is stamped. */
type Answer = Omit<SearchResults, 'duration'>;

/** At most this many queries of fewer words are run for the fallback, and at most FALLBACK_HITS hits kept from them. */
export const FALLBACK_QUERIES = 6;
export const FALLBACK_HITS = 100;
/** A word on more than this share of the pages is not highlighted (unless every word is). */
export const COMMON_SHARE = 0.5;
/** A query finding fewer than this many pages suggests a near, more frequent word (did_you_mean)... */
export const DID_YOU_MEAN_BELOW = 3;
/** ...on at least this many times the pages of the word typed. */
export const DID_YOU_MEAN_RATIO = 10;

interface Word {
  word: string;
  prefix: boolean;
  idf: number;
  df: number;
  /** The share of the searchable pages it is on. */
  share: number;
}

/**
 * The search, as steps for runSync or runAsync. `terms`: words (all must match, with a fallback to most of them),
 * "quoted phrases", the last word also as a prefix. Throws BackendError invalid_input for empty terms or bad params.
 */
export function* searchSteps(
  engine: SearchEngine,
  terms: string,
  params: SearchParams | undefined,
  scope: SearchScope = {},
): Steps<Answer> {
  const text = checkTerms(terms);
  const p = parseSearchParams(params);
  let parts = parseTerms(text);
  if (!parts.length) return { total: 0, hits: [] };
  const filters: SearchFilters = {
    lang: p.lang?.toLowerCase(),
    tags: [...new Set(p.tags ?? [])],
    hosts: scope.hosts,
    pathPrefix: p.path_prefix,
  };
  let q = yield* ask(engine.open(parts, filters));
  if (!q) return { total: 0, hits: [] };
  let words = yield* frequencies(q, parts);

  // A word in no page is searched as the nearest word of the index (a typo), when there is one.
  const corrected: CorrectedTerm[] = [];
  const fixed = new Map<string, string>();
  for (const w of words) {
    if (w.df > 0 || fixed.has(w.word) || maxEdits(w.word) === 0) continue;
    const near = yield* nearest(engine, w.word, 1);
    if (near) fixed.set(w.word, near.term);
  }
  if (fixed.size) {
    parts = parts.map((part) => {
      const changed = part.words.map((x) => fixed.get(foldWord(x)) ?? x);
      // A corrected last word is a whole word of the index: no longer a prefix.
      return changed.some((x, i) => x !== part.words[i]) ? { ...part, words: changed, prefix: false } : part;
    });
    for (const [from, to] of fixed) corrected.push({ from, to });
    const reopened = yield* ask(engine.open(parts, filters));
    if (reopened) {
      q = reopened;
      words = yield* frequencies(q, parts);
    }
  }

  const full = yield* rankedList(q, parts, words, p.from, p.size, p.from + p.size);
  let total = full.total;
  let ranked: (Ranked & { matched?: string[] })[] = full.ranked;
  let shownQuery = q;
  if (!full.total && parts.length > 1) {
    const fallback = yield* fallBack(engine, parts, words, filters, new Set(full.ranked.map((r) => r.id)));
    if (fallback.hits.length) {
      const all = [...full.ranked, ...fallback.hits];
      total = all.length;
      ranked = all.slice(p.from, p.from + p.size);
      if (!full.total && fallback.query) shownQuery = fallback.query;
    }
  }

  // The highlight marks the query's words but the common ones, and is centred on the rarest.
  const uncommon = words.filter((w) => w.share <= COMMON_SHARE);
  const marked = uncommon.length ? uncommon : words;
  const rarest = [...words].sort((a, b) => b.idf - a.idf)[0]!;
  const marks: HighlightWords = {
    words: marked.filter((w) => !w.prefix).map((w) => w.word),
    prefix: marked.find((w) => w.prefix)?.word ?? null,
    rarest: [rarest.word],
  };
  const stored = ranked.length
    ? yield* ask(
        q.hits(
          ranked.map((r) => r.id),
          p.highlight_length,
          marks,
        ),
      )
    : new Map();
  const hits: SearchHit[] = [];
  for (const r of ranked) {
    const hit = stored.get(r.id) as StoredHit | undefined;
    if (hit) hits.push({ score: round(r.score, 6), ...hit, ...(r.matched ? { matched_terms: r.matched } : {}) });
  }
  const answer: Answer = { total, hits };
  if (corrected.length) answer.corrected_terms = corrected;
  if (total < DID_YOU_MEAN_BELOW) {
    const suggestion = yield* didYouMean(engine, parts, words);
    if (suggestion) answer.did_you_mean = suggestion;
  }
  if (p.facets?.length) answer.facets = yield* ask(shownQuery.facets([...new Set(p.facets)]));
  return answer;
}

/** The query's words (folded, as searched) with their rarity. */
function* frequencies(q: EngineQuery, parts: QueryPart[]): Steps<Word[]> {
  const asked = parts.flatMap((part) =>
    part.words.map((w, i) => ({ word: foldWord(w), prefix: part.prefix && i === part.words.length - 1 })),
  );
  const { pages, df } = yield* ask(q.frequencies(asked));
  return asked.map((w, i) => ({
    ...w,
    df: df[i]!,
    share: df[i]! / Math.max(1, pages),
    idf: inverseFrequency(pages, df[i]!),
  }));
}

/**
 * The ranked matches at [from, until) of an opened query (the whole list up to `until`), and their total.
 * `size` hits from `from` are what the caller shows; `until` may reach further (the fallback reads its first hits).
 */
function* rankedList(
  q: EngineQuery,
  parts: QueryPart[],
  words: Word[],
  from: number,
  size: number,
  until: number,
): Steps<{ total: number; ranked: Ranked[] }> {
  // A snake_case name only: a dotted one (`os.environ(`, `subprocess.run([`) is as often a call in an example.
  const one = parts.length === 1 ? parts[0]! : null;
  const definition =
    one?.identifier && /^[^.\-/'\u2019]*$/u.test(one.typed ?? '')
      ? { pattern: definitionPattern(one.words), words: one.words }
      : null;
  const titleQuery: TitleQuery = {
    words: words.map(({ word, prefix, idf }) => ({ word, prefix, idf })),
    units: queryUnits(parts),
    algorithms: q.algorithms,
  };

  /** Rows re-ranked with their titles: the facts of the rows titleChecked picks are read first. */
  function* titled<R extends Ranked>(rows: R[], inTitle: (r: R) => boolean, setChecks?: number): Steps<R[]> {
    const checked = titleChecked(rows, inTitle, setChecks);
    const ids = rows.filter((_, i) => checked[i]).map((r) => r.id);
    const facts: Map<number, TitleFacts> = ids.length ? yield* ask(q.titleFacts(ids, definition)) : new Map();
    const none: TitleFacts = { title: '', headings: null, url: '', defines: null, length: 0 };
    return withTitles(rows, inTitle, (r) => facts.get(r.id) ?? none, titleQuery, setChecks);
  }

  const total = yield* ask(q.count());
  if (from >= total) return { total, ranked: [] };
  if (total <= RANK_ALL) {
    const all = yield* ask(q.rankAll());
    return { total, ranked: (yield* titled(all, (r) => r.inTitle)).slice(from, until) };
  }
  void size;
  return { total, ranked: yield* rankBroad(q, from, until - from, (rows) => titled(rows, () => true, 0)) };
}

/**
 * The pages holding most of the query's words, not already listed (`seen`): the queries of one word fewer first
 * (each without one of the words, the commonest dropped first), then of two fewer, while no page is found, within
 * FALLBACK_QUERIES. Each hit is marked with the words it holds; hits of one level are merged by score.
 */
function* fallBack(
  engine: SearchEngine,
  parts: QueryPart[],
  words: Word[],
  filters: SearchFilters,
  seen: Set<number>,
): Steps<{ hits: (Ranked & { matched: string[] })[]; query: EngineQuery | null }> {
  // A part's rarity: its words' idf summed (a part is a word, a phrase or an identifier).
  let k = 0;
  const weight = parts.map((part) => {
    let sum = 0;
    // A word on no page cannot be matched: the queries without it come first.
    for (let i = 0; i < part.words.length; i++, k++) sum += words[k]!.df ? words[k]!.idf : -1000;
    return sum;
  });
  let budget = FALLBACK_QUERIES;
  for (let keep = parts.length - 1; keep >= Math.max(1, Math.ceil(parts.length / 2)) && budget > 0; keep--) {
    const subsets = combinations(parts.length, keep)
      .map((idx) => ({ idx, weight: idx.reduce((s, i) => s + weight[i]!, 0) }))
      .sort((a, b) => b.weight - a.weight)
      .slice(0, budget);
    budget -= subsets.length;
    const found = new Map<number, Ranked & { matched: string[] }>();
    let first: EngineQuery | null = null;
    for (const { idx } of subsets) {
      const sub = idx.map((i) => parts[i]!);
      const q = yield* ask(engine.open(sub, filters));
      if (!q) continue;
      const subWords = yield* frequencies(q, sub);
      const { ranked } = yield* rankedList(q, sub, subWords, 0, FALLBACK_HITS, FALLBACK_HITS);
      if (ranked.length) first ??= q;
      const matched = sub.flatMap((part) => part.words);
      for (const r of ranked) {
        if (seen.has(r.id)) continue;
        const had = found.get(r.id);
        if (!had || had.score < r.score) found.set(r.id, { ...r, matched });
      }
    }
    if (found.size)
      return { hits: [...found.values()].sort((a, b) => b.score - a.score).slice(0, FALLBACK_HITS), query: first };
  }
  return { hits: [], query: null };
}

/** The index lists (ascending) of every way to keep `k` of `n` items, in lexical order. */
function combinations(n: number, k: number): number[][] {
  const out: number[][] = [];
  const walk = (start: number, acc: number[]) => {
    if (acc.length === k) {
      out.push([...acc]);
      return;
    }
    // Only starts that leave enough items to fill the set: without that bound a query of many words walks every
    // subset of them (2^32 for 32 words) before it knows there are fewer than 64 sets of its size.
    for (let i = start; i <= n - (k - acc.length) && out.length < 64; i++) walk(i + 1, [...acc, i]);
  };
  walk(0, []);
  return out;
}

/**
 * The word of the index nearest to `word` (folded) on at least `minPages` pages: the candidates of one range of the
 * vocabulary, the nearest of them counted where the vocabulary did not say their pages.
 */
function* nearest(engine: SearchEngine, word: string, minPages: number): Steps<VocabularyWord | null> {
  const near = withinEdits(word, yield* ask(engine.vocabulary(word.slice(0, CANDIDATE_PREFIX))));
  const uncounted = near.filter((c) => c.pages === undefined);
  if (uncounted.length) {
    const pages = yield* ask(engine.pages(uncounted.map((c) => c.term)));
    uncounted.forEach((c, i) => {
      c.pages = pages[i];
    });
  }
  return nearestWord(word, near, minPages);
}

/**
 * When a query finds little: the same terms with each rare word (on a page or two) replaced by a near word of the
 * index on many times its pages; null when there is none.
 */
function* didYouMean(engine: SearchEngine, parts: QueryPart[], words: Word[]): Steps<string | null> {
  const replace = new Map<string, string>();
  for (const w of words) {
    if (w.df === 0 || w.df >= DID_YOU_MEAN_BELOW || maxEdits(w.word) === 0) continue;
    const near = yield* nearest(engine, w.word, w.df * DID_YOU_MEAN_RATIO);
    if (near) replace.set(w.word, near.term);
  }
  if (!replace.size) return null;
  return parts
    .map((part) => {
      const text = part.words.map((x) => replace.get(foldWord(x)) ?? x).join(part.identifier ? '_' : ' ');
      return part.phrase && !part.identifier ? `"${text}"` : text;
    })
    .join(' ');
}

/**
 * The hits at positions [from, from + size) of the ranked list of a broad answer (more than RANK_ALL matches):
 * the title tier first (ranked whole with its titles when it is small, else a block at a time), then the others.
 */
function* rankBroad(
  q: EngineQuery,
  from: number,
  size: number,
  titled: (rows: Ranked[]) => Steps<Ranked[]>,
): Steps<Ranked[]> {
  const titleTotal = yield* ask(q.titleCount());
  let smallTier: Ranked[] | null = null;
  function* block(inTitles: boolean, k: number): Steps<Ranked[]> {
    if (!inTitles) return yield* ask(q.otherBlock(k));
    if (titleTotal > RANK_BLOCK) return yield* ask(q.titleBlock(k));
    // Every title there holds every word: the small tier is ranked whole, its best titles read.
    smallTier ??= yield* titled(yield* ask(q.rankTitles()));
    return smallTier;
  }
  const out: Ranked[] = [];
  const end = from + size;
  let pos = from;
  while (pos < end) {
    const inTitles = pos < titleTotal;
    const tierPos = inTitles ? pos : pos - titleTotal;
    const k = Math.floor(tierPos / RANK_BLOCK);
    const rows = yield* block(inTitles, k);
    const offset = tierPos - k * RANK_BLOCK;
    const take = rows.slice(offset, offset + Math.min(end - pos, (inTitles ? titleTotal : Infinity) - pos));
    if (!take.length) break; // past the last match
    out.push(...take);
    pos += take.length;
  }
  return out;
}

/** The search's answer with its duration, from steps run by runSync or runAsync. */
export function timed(started: number, answer: Answer): SearchResults {
  const { total, hits, ...more } = answer;
  return { total, duration: round(performance.now() - started, 3), hits, ...more };
}
