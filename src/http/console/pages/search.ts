// Search: a query against the project's index, the hits shown as a visitor of the site would see them (title,
// address, the highlighted snippet). The same backend search as /v1's public search route.
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

function hits(results: SearchResults): string {
  if (results.hits.length === 0) return '<p id="no-hits">No page matches.</p>';
  return `<p class="muted" id="hit-count">${results.total} pages match (${Math.round(results.duration)} ms).</p>
<ol id="hits">${results.hits
    .map(
      (h) =>
        `<li class="hit"><a href="${e(h.url)}" rel="noopener noreferrer">${e(h.title || h.url)}</a><div class="url">${e(h.url)}</div><p>${safeHighlight(h.highlight)}</p></li>`,
    )
    .join('\n')}</ol>`;
}

export async function searchPage(ctx: PageCtx): Promise<{ status: number; page: PageContent }> {
  const q = (ctx.url.searchParams.get('q') ?? '').trim();
  let status = 200;
  let body = '';
  let error: string | null = null;
  if (q) {
    try {
      body = hits(await ctx.project.backend.search(q, {}));
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
