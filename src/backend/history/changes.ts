// What a crawl changed: the problems in the report after it that were not there after the previous completed full
// crawl (new), and the other way round (fixed). The decision is pure (diffProblems); the reads are in src/store.
import type { TargetConfig } from '../../model/config.js';
import { BackendError } from '../../model/errors.js';
import type { ChangeLink, CrawlChanges } from '../../model/history.js';
import { crawlEnded } from '../../model/types.js';
import { REPORT_REASONS, type LinkReason } from '../../model/link-reasons.js';
import { canonicalTargetHosts } from '../../model/site-urls.js';
import { getCrawl } from '../../store/crawls.js';
import { episodesAround, previousCompletedFullCrawl, type ProblemEpisode } from '../../store/history.js';
import type { Sql } from '../../store/sql.js';

/** Whether an episode's problem was in the report right after crawl `crawl` ended. */
function presentAfter(e: ProblemEpisode, crawl: number): boolean {
  return e.firstCrawl <= crawl && (e.fixedCrawl === null || e.fixedCrawl > crawl);
}

const keyOf = (e: ProblemEpisode) => `${e.reason}\u0000${e.pageUrl}\u0000${e.url}`;

/**
 * The problems present after crawl `atCrawl` and not after `sinceCrawl` (new), and those present after `sinceCrawl`
 * and not after `atCrawl` (fixed), each in report order (reason, page, link). `sinceCrawl` null: nothing was there
 * before, so everything present is new. A problem is a (reason, page, link): a link whose reason changed is fixed
 * under the old reason and new under the new one.
 */
export function diffProblems(
  episodes: readonly ProblemEpisode[],
  atCrawl: number,
  sinceCrawl: number | null,
): { new: ProblemEpisode[]; fixed: ProblemEpisode[] } {
  const at = new Map<string, ProblemEpisode>();
  const before = new Map<string, ProblemEpisode>();
  for (const e of episodes) {
    if (presentAfter(e, atCrawl)) at.set(keyOf(e), e);
    if (sinceCrawl !== null && presentAfter(e, sinceCrawl)) before.set(keyOf(e), e);
  }
  const added = [...at].filter(([k]) => !before.has(k)).map(([, e]) => e);
  const fixed = [...before].filter(([k]) => !at.has(k)).map(([, e]) => e);
  return { new: added.sort(reportOrder), fixed: fixed.sort(reportOrder) };
}

function reportOrder(a: ProblemEpisode, b: ProblemEpisode): number {
  const r = REPORT_REASONS.indexOf(a.reason as LinkReason) - REPORT_REASONS.indexOf(b.reason as LinkReason);
  if (r) return r;
  if (a.pageUrl !== b.pageUrl) return a.pageUrl < b.pageUrl ? -1 : 1;
  return a.url < b.url ? -1 : a.url > b.url ? 1 : 0;
}

/** An episode in the REST link form, with its page and reason. */
export function toChangeLink(e: ProblemEpisode): ChangeLink {
  const link: ChangeLink = {
    page: e.pageUrl,
    url: e.url,
    reason: e.reason as LinkReason,
    httpStatus: e.httpStatus,
    message: e.message,
    element: e.element,
    text: e.text,
    firstSeen: e.firstSeen,
  };
  if (e.reason === 'redirect' && e.redirectsTo !== null) link.redirectsTo = e.redirectsTo;
  if (e.blocked) link.blocked = true;
  return link;
}

/**
 * The changes of crawl `id` (pages of the configured targets only). not_found for an unknown crawl, conflict for one
 * that has not ended. The crawl's end must be recorded in the history already (the backend sees to it).
 */
export async function crawlChanges(
  sql: Sql,
  project: string,
  targets: readonly TargetConfig[],
  id: number,
): Promise<CrawlChanges> {
  const rec = await getCrawl(sql, project, id);
  if (!rec) throw new BackendError('not_found', `crawl ${id} not found`);
  if (!crawlEnded(rec.status))
    throw new BackendError(
      'conflict',
      `crawl ${id} has not ended (it is ${rec.status}): its changes are known when it ends`,
    );
  const prev = await previousCompletedFullCrawl(sql, project, id);
  const hosts = canonicalTargetHosts(targets);
  const diff = diffProblems(await episodesAround(sql, project, hosts, id, prev?.id ?? 0), id, prev?.id ?? null);
  return { since: prev?.finishedAt ?? null, new: diff.new.map(toChangeLink), fixed: diff.fixed.map(toChangeLink) };
}
