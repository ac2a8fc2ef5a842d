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
import type { PageMeta, SearchHit, SearchParams, SearchResults } from '../../model/types.js';
import type { Awaitable, EngineQuery, SearchEngine } from './engine.js';
import { foldWord } from './fold.js';
import { parseTerms } from './query.js';
import { titleChecked, withTitles, type Ranked, type TitleFacts, type TitleQuery } from './title-tiers.js';
import { definitionPattern, queryUnits, type RankWord } from './titles.js';

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

/**
 * The search, as steps for runSync or runAsync. `terms`: words (all must match), "quoted phrases", the last word
 * also as a prefix. Throws BackendError invalid_input for empty terms or bad params.
 */
export function* searchSteps(
  engine: SearchEngine,
  terms: string,
  params: SearchParams | undefined,
  scope: SearchScope = {},
): Steps<Answer> {
  const text = checkTerms(terms);
  const p = parseSearchParams(params);
  const parts = parseTerms(text);
  if (!parts.length) return { total: 0, hits: [] };
  const filters = { lang: p.lang?.toLowerCase(), tags: [...new Set(p.tags ?? [])], hosts: scope.hosts };
  const q = yield* ask(engine.open(parts, filters));
  if (!q) return { total: 0, hits: [] };

  const asked = parts.flatMap((part) =>
    part.words.map((w, i) => ({ word: foldWord(w), prefix: part.prefix && i === part.words.length - 1 })),
  );
  const { pages, df } = yield* ask(q.frequencies(asked));
  const words: RankWord[] = asked.map((w, i) => ({ ...w, idf: inverseFrequency(pages, df[i]!) }));
  // A snake_case name only: a dotted one (`os.environ(`, `subprocess.run([`) is as often a call in an example.
  const one = parts.length === 1 ? parts[0]! : null;
  const definition =
    one?.identifier && /^[^.\-/'\u2019]*$/u.test(one.typed ?? '') ? definitionPattern(one.words) : null;
  const titleQuery: TitleQuery = { words, units: queryUnits(parts), algorithms: q.algorithms };

  /** Rows re-ranked with their titles: the facts of the rows titleChecked picks are read first. */
  function* titled<R extends Ranked>(rows: R[], inTitle: (r: R) => boolean, setChecks?: number): Steps<R[]> {
    const checked = titleChecked(rows, inTitle, setChecks);
    const ids = rows.filter((_, i) => checked[i]).map((r) => r.id);
    const facts: Map<number, TitleFacts> = ids.length ? yield* ask(q!.titleFacts(ids, definition)) : new Map();
    const none: TitleFacts = { title: '', headings: null, url: '', defines: null };
    return withTitles(rows, inTitle, (r) => facts.get(r.id) ?? none, titleQuery, setChecks);
  }

  const total = yield* ask(q.count());
  let ranked: Ranked[] = [];
  if (p.from < total) {
    if (total <= RANK_ALL) {
      const all = yield* ask(q.rankAll());
      ranked = (yield* titled(all, (r) => r.inTitle)).slice(p.from, p.from + p.size);
    } else {
      ranked = yield* rankBroad(q, p.from, p.size, (rows) => titled(rows, () => true, 0));
    }
  }
  const stored = ranked.length
    ? yield* ask(
        q.hits(
          ranked.map((r) => r.id),
          p.highlight_length,
        ),
      )
    : new Map();
  const hits: SearchHit[] = [];
  for (const { id, score } of ranked) {
    const hit = stored.get(id);
    if (hit) hits.push({ score: round(score, 6), ...hit });
  }
  return { total, hits };
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
  return { total: answer.total, duration: round(performance.now() - started, 3), hits: answer.hits };
}
