// Search: a query against the project's index, the hits shown as a visitor of the site would see them (title,
// address, the highlighted snippet), ten at a time with links to the pages of hits before and after; the matches
// counted by language, tag and first folder of the address (the search's facets), each value a link that narrows
// the search to it, and an address prefix to search under. The same backend search as /v1's public search route.
import { escapeHtml as e, unescapeHtml } from '../../../lib/escape-html.js';
import { SEARCH_FACETS, type SearchFacetName } from '../../../model/search-params.js';
import type { SearchParams, SearchResults } from '../../../model/types.js';
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

/** The query and its filters, as the page's address carries them (and every link of the page keeps them). */
interface SearchQuery {
  q: string;
  lang: string;
  tags: string[];
  path: string;
}

const FACET_LABELS: Record<SearchFacetName, string> = { lang: 'Language', tags: 'Tag', path: 'Folder' };

/** The query with one facet value added as a filter (a folder or language replaces the one set; tags add up). */
function withFilter(s: SearchQuery, facet: SearchFacetName, value: string): SearchQuery {
  if (facet === 'lang') return { ...s, lang: value };
  if (facet === 'path') return { ...s, path: value };
  return s.tags.includes(value) ? s : { ...s, tags: [...s.tags, value] };
}

function isActive(s: SearchQuery, facet: SearchFacetName, value: string): boolean {
  if (facet === 'lang') return s.lang === value;
  if (facet === 'path') return s.path === value;
  return s.tags.includes(value);
}

/** The filters in force, each with a link that removes it. */
function activeFilters(ctx: PageCtx, s: SearchQuery): string {
  const items = [
    ...(s.lang ? [[`Language ${s.lang}`, { ...s, lang: '' }] as const] : []),
    ...s.tags.map((t) => [`Tag ${t}`, { ...s, tags: s.tags.filter((x) => x !== t) }] as const),
    ...(s.path ? [[`Under ${s.path}`, { ...s, path: '' }] as const] : []),
  ];
  if (!items.length) return '';
  return `<p id="active-filters">Filtered: ${items
    .map(
      ([label, without]) =>
        `<span class="filter">${e(label)} <a href="${pageHref(ctx, without, 1)}" aria-label="Remove the filter ${e(label)}">(remove)</a></span>`,
    )
    .join(' · ')}</p>`;
}

/** The facets of the matches, each value with its count and a link narrowing the search to it. */
function facetLists(ctx: PageCtx, s: SearchQuery, results: SearchResults): string {
  const lists = SEARCH_FACETS.map((facet) => {
    const values = results.facets?.[facet] ?? [];
    if (!values.length) return '';
    return `<section id="facet-${facet}" aria-label="By ${FACET_LABELS[facet].toLowerCase()}"><h3>${FACET_LABELS[facet]}</h3><ul>${values
      .map((v) => {
        const on = isActive(s, facet, v.value);
        return `<li><a href="${pageHref(ctx, withFilter(s, facet, v.value), 1)}"${on ? ' aria-current="true"' : ''}>${e(v.value)}</a> <span class="muted">${v.count}</span></li>`;
      })
      .join('')}</ul></section>`;
  }).join('');
  return lists ? `<div class="facets" id="facets">${lists}</div>` : '';
}

function hits(ctx: PageCtx, s: SearchQuery, page: number, results: SearchResults): string {
  if (results.hits.length === 0)
    return results.total > 0
      ? `<p id="no-hits">${e(matchCount(results.total))}, none on page ${page}. <a href="${pageHref(ctx, s, 1)}">Back to the first page</a>.</p>`
      : '<p id="no-hits">No page matches.</p>';
  const first = (page - 1) * HITS_PER_PAGE + 1;
  const last = first + results.hits.length - 1;
  const pages = Math.min(MAX_PAGE, Math.ceil(results.total / HITS_PER_PAGE));
  const nav =
    pages > 1
      ? `<nav class="row" aria-label="Pages of results" id="search-pages">${page > 1 ? `<a href="${pageHref(ctx, s, page - 1)}" rel="prev" id="prev-page">Previous page</a>` : ''}
<span class="muted">Page ${page} of ${pages}</span>${page < pages ? `<a href="${pageHref(ctx, s, page + 1)}" rel="next" id="next-page">Next page</a>` : ''}</nav>`
      : '';
  return `${facetLists(ctx, s, results)}<p class="muted" id="hit-count">${e(matchCount(results.total))} (${Math.round(results.duration)} ms)${results.total > results.hits.length ? `; ${first}–${last} shown` : ''}.</p>
<ol id="hits" start="${first}">${results.hits
    .map(
      (h) =>
        `<li class="hit"><a href="${e(h.url)}" rel="noopener noreferrer">${e(h.title || h.url)}</a><div class="url">${e(h.url)}</div><p>${safeHighlight(h.highlight)}</p></li>`,
    )
    .join('\n')}</ol>${nav}`;
}

function pageHref(ctx: PageCtx, s: SearchQuery, page: number): string {
  const params = new URLSearchParams({ q: s.q });
  if (s.lang) params.set('lang', s.lang);
  for (const t of s.tags) params.append('tag', t);
  if (s.path) params.set('path', s.path);
  if (page > 1) params.set('page', String(page));
  return `${projectPath(ctx.project.token, 'search')}?${e(params.toString())}`;
}

/** The search's params for the page's filters (checked by the search itself: a bad one is its invalid_input). */
function paramsOf(s: SearchQuery, page: number): SearchParams {
  return {
    size: HITS_PER_PAGE,
    from: (page - 1) * HITS_PER_PAGE,
    facets: [...SEARCH_FACETS],
    ...(s.lang ? { lang: s.lang } : {}),
    ...(s.tags.length ? { tags: s.tags } : {}),
    ...(s.path ? { path_prefix: s.path } : {}),
  };
}

export async function searchPage(ctx: PageCtx): Promise<{ status: number; page: PageContent }> {
  const sp = ctx.url.searchParams;
  const s: SearchQuery = {
    q: (sp.get('q') ?? '').trim(),
    lang: (sp.get('lang') ?? '').trim(),
    tags: [...new Set(sp.getAll('tag').filter((t) => t !== ''))],
    path: (sp.get('path') ?? '').trim(),
  };
  const asked = Number(sp.get('page') ?? '1');
  const page = Number.isInteger(asked) && asked >= 1 ? Math.min(asked, MAX_PAGE) : 1;
  let status = 200;
  let body = '';
  let error: string | null = null;
  if (s.q) {
    try {
      body = activeFilters(ctx, s) + hits(ctx, s, page, await ctx.project.backend.search(s.q, paramsOf(s, page)));
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
<div class="field"><label for="q">Search the site</label><input type="search" id="q" name="q" value="${e(s.q)}"></div>
<div class="field"><label for="path">Only addresses under</label><input type="text" id="path" name="path" value="${e(s.path)}" placeholder="/docs/" aria-describedby="path-help"></div>
${s.lang ? `<input type="hidden" name="lang" value="${e(s.lang)}">` : ''}${s.tags.map((t) => `<input type="hidden" name="tag" value="${e(t)}">`).join('')}
<button type="submit" class="primary" id="search">Search</button></form>
<p class="muted" id="path-help">A path such as <code>/docs/</code>: only pages whose address starts with it. The counts by language, tag and folder under the hits narrow the search in one click.</p>${body}`,
    },
  };
}
