// Search: a query against the project's index, the hits shown as a visitor of the site would see them (title,
// address, the highlighted snippet), ten at a time with links to the pages of hits before and after. The same backend
// search as /v1's public search route.
import { escapeHtml as e, unescapeHtml } from '../../../lib/escape-html.js';
import type { SearchResults } from '../../../model/types.js';
import { projectPath, type PageContent } from '../layout.js';
import { refusalMessage, type PageCtx } from './page.js';

/** A highlight as markup: its <em> marks kept, everything else escaped again (a remote service's too). */
export function safeHighlight(highlight: string): string {
  return highlight
    .split(/(<\/?em>)/)
    .map((part) => (part === '<em>' || part === '</em>' ? part : e(unescapeHtml(part))))
    .join('');
}

/** Hits shown on one page of results. */
export const HITS_PER_PAGE = 10;
/** The last page of results offered (deeper pages are refinements' job, as on public search engines). */
const MAX_PAGE = 100;

/** "1 page matches", "2 pages match". */
export function matchCount(total: number): string {
  return total === 1 ? '1 page matches' : `${total} pages match`;
}

function hits(ctx: PageCtx, q: string, page: number, results: SearchResults): string {
  if (results.hits.length === 0)
    return results.total > 0
      ? `<p id="no-hits">${e(matchCount(results.total))}, none on page ${page}. <a href="${pageHref(ctx, q, 1)}">Back to the first page</a>.</p>`
      : '<p id="no-hits">No page matches.</p>';
  const first = (page - 1) * HITS_PER_PAGE + 1;
  const last = first + results.hits.length - 1;
  const pages = Math.min(MAX_PAGE, Math.ceil(results.total / HITS_PER_PAGE));
  const nav =
    pages > 1
      ? `<nav class="row" aria-label="Pages of results" id="search-pages">${page > 1 ? `<a href="${pageHref(ctx, q, page - 1)}" rel="prev" id="prev-page">Previous page</a>` : ''}
<span class="muted">Page ${page} of ${pages}</span>${page < pages ? `<a href="${pageHref(ctx, q, page + 1)}" rel="next" id="next-page">Next page</a>` : ''}</nav>`
      : '';
  return `<p class="muted" id="hit-count">${e(matchCount(results.total))} (${Math.round(results.duration)} ms)${results.total > results.hits.length ? `; ${first}–${last} shown` : ''}.</p>
<ol id="hits" start="${first}">${results.hits
    .map(
      (h) =>
        `<li class="hit"><a href="${e(h.url)}" rel="noopener noreferrer">${e(h.title || h.url)}</a><div class="url">${e(h.url)}</div><p>${safeHighlight(h.highlight)}</p></li>`,
    )
    .join('\n')}</ol>${nav}`;
}

function pageHref(ctx: PageCtx, q: string, page: number): string {
  const params = new URLSearchParams({ q });
  if (page > 1) params.set('page', String(page));
  return `${projectPath(ctx.project.token, 'search')}?${e(params.toString())}`;
}

export async function searchPage(ctx: PageCtx): Promise<{ status: number; page: PageContent }> {
  const q = (ctx.url.searchParams.get('q') ?? '').trim();
  const asked = Number(ctx.url.searchParams.get('page') ?? '1');
  const page = Number.isInteger(asked) && asked >= 1 ? Math.min(asked, MAX_PAGE) : 1;
  let status = 200;
  let body = '';
  let error: string | null = null;
  if (q) {
    try {
      body = hits(
        ctx,
        q,
        page,
        await ctx.project.backend.search(q, { size: HITS_PER_PAGE, from: (page - 1) * HITS_PER_PAGE }),
      );
    } catch (err) {
      const r = refusalMessage(err);
      status = r.status;
      error = r.message;
    }
  }
  return {
    status,
    page: {
      title: 'Search',
      error,
      body: `<form method="get" action="${projectPath(ctx.project.token, 'search')}" role="search" class="row">
<div class="field"><label for="q">Search the site</label><input type="search" id="q" name="q" value="${e(q)}"></div>
<button type="submit" class="primary" id="search">Search</button></form>${body}`,
    },
  };
}
