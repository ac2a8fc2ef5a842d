// The link report as HTML, from one flat view model: counts per reason, problems by link (worst first: most
// pages) and by page, where on the page, blocked badges, times as people read them and URLs relative to the
// report's one target. These functions are the only renderer of the report: the HTML file renders with them on the
// server, and the MCP App ships their source (browserSource) and renders with them in the chat. So they use no
// import and no module-level value: each works from its arguments and the other functions listed at the end.
import type { ViewData, ViewRow } from './view-data.js';

/** Text safe in element content and in a quoted attribute (control characters other than tab and newline dropped). */
export function esc(s: string): string {
  const clean = String(s).replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '');
  return clean.replace(/[&<>"']/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&#39;',
  );
}

/** "3 hours ago", "in 2 minutes", "just now": how long between `iso` and `now` (ms), as a person says it. */
export function relativeTime(iso: string, now: number): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const s = Math.round((now - t) / 1000);
  const a = Math.abs(s);
  if (a < 45) return 'just now';
  const units: [number, string][] = [
    [60, 'minute'],
    [3600, 'hour'],
    [86400, 'day'],
    [604800, 'week'],
    [2629800, 'month'],
    [31557600, 'year'],
  ];
  let pick = units[0]!;
  for (const u of units) if (a >= u[0] * 0.9) pick = u;
  const n = Math.max(1, Math.round(a / pick[0]));
  const unit = `${n} ${pick[1]}${n === 1 ? '' : 's'}`;
  return s >= 0 ? `${unit} ago` : `in ${unit}`;
}

/** A time element: relative text, the exact time on hover (and for the script that refreshes the text). */
export function timeHtml(iso: string, now: number): string {
  const exact = iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC');
  return `<time datetime="${esc(iso)}" title="${esc(exact)}">${esc(relativeTime(iso, now))}</time>`;
}

/** The URL as read in the report: its path when it is on `base` (the report's one target host), else in full. */
export function shortUrl(url: string, base: string | null): string {
  if (!base) return url;
  const m = /^https?:\/\/([^/?#]+)([^#]*(?:#.*)?)$/i.exec(url);
  if (!m || m[1]!.toLowerCase() !== base.toLowerCase()) return url;
  return m[2] || '/';
}

/** A link a person can follow: only http(s) URLs get an href (a report may hold anything); the full URL on hover. */
export function urlHtml(url: string, base: string | null): string {
  const shown = esc(shortUrl(url, base));
  if (!/^https?:\/\//i.test(url)) return shown;
  return `<a href="${esc(url)}" title="${esc(url)}" rel="noreferrer noopener" target="_blank">${shown}</a>`;
}

/** Where on the page and since when: `<a> "Read more" · since 3 days ago`. */
export function sourceHtml(row: ViewRow, now: number): string {
  const parts: string[] = [];
  if (row.element) parts.push(esc(`<${row.element}>`));
  if (row.text) parts.push(esc(`"${row.text}"`));
  if (row.first_seen) parts.push(`since ${timeHtml(row.first_seen, now)}`);
  return parts.length ? ` <span class="src">${parts.join(' ')}</span>` : '';
}

export function badgesHtml(d: ViewData, row: ViewRow): string {
  const info = d.reasons.find((r) => r.reason === row.reason);
  let s = `<span class="badge r-${esc(row.reason)}">${esc(info ? info.title : row.reason)}</span>`;
  if (row.blocked) s += ' <span class="badge blocked">blocked</span>';
  return s;
}

/** The buttons of a page in the App: re-check it, read its page meta. Absent from the HTML file. */
export function actionsHtml(page: string, actions: boolean): string {
  if (!actions) return '';
  const p = esc(page);
  return (
    ` <span class="actions"><button type="button" class="act" data-act="recheck" data-page="${p}">Re-check</button>` +
    `<button type="button" class="act" data-act="meta" data-page="${p}">Page meta</button></span>`
  );
}

export function headHtml(cols: [string, boolean][]): string {
  return `<thead><tr>${cols.map((c) => `<th${c[1] ? ' class="num"' : ''}><button type="button">${esc(c[0])}</button></th>`).join('')}</tr></thead>`;
}

/**
 * One row per problem link, worst first (most pages, then report order), with the pages it is on. A link's page
 * count is the whole report's when the answer says it (top_links), not only the rows shown.
 */
export function byLinkHtml(d: ViewData, now: number, actions: boolean): string {
  const known = new Map(d.top_links.map((t) => [`${t.reason}\n${t.link}`, t.pages]));
  const groups: ViewRow[][] = [];
  const index = new Map<string, number>();
  for (const row of d.rows) {
    const k = `${row.reason}\n${row.link}`;
    const i = index.get(k);
    if (i === undefined) {
      index.set(k, groups.length);
      groups.push([row]);
    } else groups[i]!.push(row);
  }
  const pagesOf = (g: ViewRow[]) => Math.max(g.length, known.get(`${g[0]!.reason}\n${g[0]!.link}`) ?? 0);
  const order = groups.map((g, i) => [g, i] as const).sort((a, b) => pagesOf(b[0]) - pagesOf(a[0]) || a[1] - b[1]);
  const rank = (reason: string) => d.reasons.findIndex((r) => r.reason === reason);
  const body = order.map(([g]) => {
    const l = g[0]!;
    const message =
      l.redirects_to && !l.message.includes(l.redirects_to) ? `${l.message} → ${l.redirects_to}` : l.message;
    const total = pagesOf(g);
    const pages =
      g
        .map((row) => `<li>${urlHtml(row.page, d.base)}${sourceHtml(row, now)}${actionsHtml(row.page, actions)}</li>`)
        .join('') + (total > g.length ? `<li class="more">and ${total - g.length} more</li>` : '');
    return (
      `<tr data-reason="${esc(l.reason)}"><td>${urlHtml(l.link, d.base)}</td>` +
      `<td data-sort="${esc(String(rank(l.reason)))}">${badgesHtml(d, l)}</td>` +
      `<td class="num" data-label="Status" data-sort="${esc(String(l.http_status))}">${esc(String(l.http_status || '—'))}</td><td>${esc(message)}</td>` +
      `<td class="num" data-label="Pages">${esc(String(total))}</td><td><ul class="in">${pages}</ul></td></tr>`
    );
  });
  return (
    `<table class="sortable" id="links-table">` +
    headHtml([
      ['Link', false],
      ['Reason', false],
      ['Status', true],
      ['Message', false],
      ['Pages', true],
      ['Found on', false],
    ]) +
    `<tbody>${body.join('\n')}</tbody></table>`
  );
}

/** One row per page that has problem links, with its links. */
export function byPageHtml(d: ViewData, now: number, actions: boolean): string {
  const groups = new Map<string, ViewRow[]>();
  for (const row of d.rows) {
    const g = groups.get(row.page);
    if (g) g.push(row);
    else groups.set(row.page, [row]);
  }
  const broken = (reason: string) => d.reasons.some((r) => r.reason === reason && r.broken);
  const body = [...groups.entries()].map(([page, g]) => {
    const n = g.filter((row) => broken(row.reason) && !row.blocked).length;
    const links = g
      .map(
        (row) =>
          `<li>${badgesHtml(d, row)} <span class="badge">${esc(String(row.http_status || '—'))}</span> ${urlHtml(row.link, d.base)}${sourceHtml(row, now)}</li>`,
      )
      .join('');
    return `<tr><td>${urlHtml(page, d.base)}${actionsHtml(page, actions)}</td><td class="num" data-label="Problems">${esc(String(g.length))}</td><td class="num" data-label="Broken">${esc(String(n))}</td><td><ul class="in">${links}</ul></td></tr>`;
  });
  return (
    `<table class="sortable" id="pages-table">` +
    headHtml([
      ['Page', false],
      ['Problems', true],
      ['Broken', true],
      ['Links', false],
    ]) +
    `<tbody>${body.join('\n')}</tbody></table>`
  );
}

/**
 * The whole report view (what goes inside <body>): header, counts, notes, toolbar and both tables. `now` (ms)
 * is the moment the relative times are written for; `actions` adds the App's per-page buttons.
 */
export function reportHtml(d: ViewData, now: number, actions: boolean): string {
  const total = d.reasons.reduce((n, r) => n + r.count, 0);
  const blocked = d.rows.filter((row) => row.blocked).length;
  // Cards count problem links (distinct URLs), each with its occurrences: the same numbers as every surface.
  const times = (n: number) => `${n} occurrence${n === 1 ? '' : 's'}`;
  const links = d.totals ? d.totals.links : total;
  const cards = d.reasons
    .map(
      (r) =>
        `<li class="r-${esc(r.reason)}" data-reason="${esc(r.reason)}" title="${esc(r.description)}"><span class="n">${esc(String(r.links))}</span><span class="label">${esc(r.title)}</span><span class="label">${esc(times(r.count))}</span></li>`,
    )
    .concat(
      `<li class="r-total" data-reason="total"><span class="n">${esc(String(links))}</span><span class="label">Problem links</span><span class="label">${esc(times(total))}${d.totals ? ` on ${esc(String(d.totals.pages))} page${d.totals.pages === 1 ? '' : 's'}` : ''}</span></li>`,
    )
    .concat(
      blocked
        ? [
            `<li data-reason="blocked"><span class="n">${esc(String(blocked))}</span><span class="label">Blocked (not failing)</span></li>`,
          ]
        : [],
    )
    .join('');
  const targets = d.targets
    .map(
      (t) =>
        `<p class="note">Target ${esc(t.host)}: track_links ${esc(t.link_tracking)}, ${t.walk_links ? 'walks links' : 'sitemap pages only'}${t.note ? `. Note: ${esc(t.note)}` : ''}</p>`,
    )
    .join('');
  const last = d.last_full_crawl ? timeHtml(d.last_full_crawl, now) : 'none completed yet';
  const version = d.tool_version ? ` · svc ${esc(d.tool_version)}` : '';
  const notice = d.notice ? `<p class="note notice">${esc(d.notice)}</p>` : '';
  const truncated = d.truncated
    ? `<p class="note">Showing ${esc(String(d.rows.length))} of ${esc(times(total))}: the report was cut at its limit (raise the limit, or pick one target).</p>`
    : '';
  const options = d.reasons
    .filter((r) => r.count > 0)
    .map((r) => `<option value="${esc(r.reason)}">${esc(r.title)} (${esc(String(r.count))})</option>`)
    .join('');
  const views =
    d.status === 'not_crawled'
      ? '<p class="empty not-crawled">Not crawled yet: no crawl has stored a page of this site, so this report says nothing about it. Run a full crawl first.</p>'
      : d.rows.length === 0
        ? '<p class="empty">No problem links found.</p>'
        : `<div class="toolbar"><div class="tabs" role="tablist"><button type="button" role="tab" data-view="by-link" aria-selected="true">By link</button>` +
          `<button type="button" role="tab" data-view="by-page" aria-selected="false">By page</button></div>` +
          `<select id="reason" aria-label="Reason"><option value="">All reasons</option>${options}</select>` +
          `<input type="search" id="q" placeholder="Filter by URL, page, text, status…" aria-label="Filter"><span id="shown"></span></div>\n` +
          `<section class="view" id="by-link"><h2>Problems by link</h2>${byLinkHtml(d, now, actions)}</section>\n` +
          `<section class="view" id="by-page"><h2>Problems by page</h2>${byPageHtml(d, now, actions)}</section>`;
  return (
    `<header><h1>Link report</h1><p class="meta">Last full crawl: ${last}${version}</p>${targets}${notice}</header>\n` +
    `<ul class="counts" aria-label="Problem links per reason">${cards}</ul>\n${truncated}\n${views}`
  );
}

/** Why a near-empty report may not mean a healthy site: null when the target checks every link. */
export function trackingNote(host: string, linkTracking: string): string | null {
  if (linkTracking === 'all') return null;
  return `${host} tracks only links to PDF documents (track_links = ${linkTracking}); set track_links to "all" to check every link.`;
}

/**
 * The ability form of the report (what svc-link-report answers) as the view model. `reasons` is the reason
 * table (titles, descriptions, broken or not) without counts.
 */
export function fromAbilityReport(
  out: {
    status?: string;
    counts?: {
      pages: number;
      problem_links: number;
      occurrences: number;
      reasons: Record<string, { problem_links: number; occurrences: number }>;
    };
    summary: Record<string, number>;
    top_links?: { link: string; reason: string; http_status: number; pages: number }[];
    links: ViewRow[];
    targets: { host: string; link_tracking: string; walk_links: boolean }[];
    truncated: boolean;
    last_full_crawl: string | null;
    notice?: string;
  },
  reasons: Omit<ViewData['reasons'][number], 'count' | 'links'>[],
): ViewData {
  const targets = out.targets.map((t) => ({
    host: t.host,
    link_tracking: t.link_tracking,
    walk_links: t.walk_links,
    note: trackingNote(t.host, t.link_tracking),
  }));
  return {
    status: out.status ?? 'ready',
    top_links: out.top_links ?? [],
    totals: out.counts
      ? { pages: out.counts.pages, links: out.counts.problem_links, occurrences: out.counts.occurrences }
      : null,
    reasons: reasons.map((r) => ({
      ...r,
      count: out.summary[r.reason] ?? 0,
      links: out.counts ? (out.counts.reasons[r.reason]?.problem_links ?? 0) : (out.summary[r.reason] ?? 0),
    })),
    rows: out.links,
    targets,
    base: targets.length === 1 ? targets[0]!.host : null,
    last_full_crawl: out.last_full_crawl,
    truncated: out.truncated,
    notice: out.notice ?? null,
    tool_version: null,
  };
}

/** The source of every function above, for the App's script: the one renderer, shipped as it is. */
export function browserSource(): string {
  return [
    esc,
    relativeTime,
    timeHtml,
    shortUrl,
    urlHtml,
    sourceHtml,
    badgesHtml,
    actionsHtml,
    headHtml,
    byLinkHtml,
    byPageHtml,
    reportHtml,
    trackingNote,
    fromAbilityReport,
  ]
    .map((f) => f.toString())
    .join('\n');
}
