// One self-contained HTML file a person opens in a browser: counts per reason, the problems by link and by page,
// sortable columns and a filter box. Everything is in the file (inline CSS and JS; a Content-Security-Policy that
// allows only those two, by hash, so the page loads nothing). The tables are rendered here, escaped, so the
// report reads without JS; the script only sorts, filters and switches views.
import { createHash } from 'node:crypto';
import type { LinkReport, ReportLink } from '../../../model/types.js';
import {
  describeSource,
  escapeMarkup as x,
  type FormatOptions,
  REASONS,
  reasonCounts,
  reportRows,
  type Row,
  totalCount,
  trackingNote,
} from './shared.js';

const STYLE = `
:root { color-scheme: light; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --bg: #f6f8fa; --accent: #0969da; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); margin: 0 auto; padding: 24px; max-width: 1400px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 20px 0 8px; }
.meta, .note { color: var(--muted); margin: 2px 0; }
.counts { display: flex; flex-wrap: wrap; gap: 10px; margin: 16px 0; padding: 0; list-style: none; }
.counts li { border: 1px solid var(--line); border-left-width: 6px; border-radius: 6px; padding: 8px 14px; min-width: 130px; background: #fff; }
.counts .n { display: block; font-size: 24px; font-weight: 600; }
.counts .label { color: var(--muted); }
.r-not_found { border-left-color: #cf222e !important; } .r-forbidden { border-left-color: #bc4c00 !important; }
.r-server_error { border-left-color: #8250df !important; } .r-redirect { border-left-color: #9a6700 !important; }
.r-unknown { border-left-color: #59636e !important; } .r-total { border-left-color: var(--accent) !important; }
.toolbar { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; position: sticky; top: 0; background: #fff; padding: 8px 0; border-bottom: 1px solid var(--line); }
.tabs button { font: inherit; border: 1px solid var(--line); background: var(--bg); padding: 5px 12px; cursor: pointer; }
.tabs button:first-child { border-radius: 6px 0 0 6px; } .tabs button:last-child { border-radius: 0 6px 6px 0; }
.tabs button[aria-selected="true"] { background: var(--accent); color: #fff; border-color: var(--accent); }
input[type="search"] { font: inherit; padding: 5px 10px; border: 1px solid var(--line); border-radius: 6px; min-width: 320px; }
#shown { color: var(--muted); }
table { border-collapse: collapse; width: 100%; margin-top: 8px; }
th, td { text-align: left; vertical-align: top; padding: 6px 8px; border-bottom: 1px solid var(--line); }
td { overflow-wrap: anywhere; }
td:first-child { min-width: 26ch; } #links-table td:nth-child(4) { min-width: 18ch; }
th { background: var(--bg); position: sticky; top: 50px; }
th button { font: inherit; font-weight: 600; background: none; border: 0; padding: 0; cursor: pointer; color: inherit; }
th[aria-sort="ascending"] button::after { content: " ▲"; } th[aria-sort="descending"] button::after { content: " ▼"; }
td.num, th.num { text-align: right; white-space: nowrap; }
ul.in { margin: 0; padding-left: 18px; }
.badge { display: inline-block; font-size: 12px; padding: 0 6px; border-radius: 10px; background: var(--bg); border: 1px solid var(--line); white-space: nowrap; }
.badge.blocked { background: #fff8c5; border-color: #d4a72c; }
.src { color: var(--muted); }
a { color: var(--accent); text-decoration: none; } a:hover { text-decoration: underline; }
.empty { padding: 24px; text-align: center; color: var(--muted); }
`;

const SCRIPT = `
(function () {
  var q = document.getElementById('q');
  var shown = document.getElementById('shown');
  var views = Array.prototype.slice.call(document.querySelectorAll('section.view'));
  var tabs = Array.prototype.slice.call(document.querySelectorAll('[data-view]'));
  function update() {
    var term = q.value.trim().toLowerCase();
    var total = 0, visible = 0;
    views.forEach(function (v) {
      Array.prototype.forEach.call(v.querySelectorAll('tbody tr'), function (tr) {
        var hit = !term || tr.textContent.toLowerCase().indexOf(term) >= 0;
        tr.hidden = !hit;
        if (!v.hidden) { total++; if (hit) visible++; }
      });
    });
    shown.textContent = term ? visible + ' of ' + total + ' rows' : total + ' rows';
  }
  function show(id) {
    views.forEach(function (v) { v.hidden = v.id !== id; });
    tabs.forEach(function (t) { t.setAttribute('aria-selected', String(t.getAttribute('data-view') === id)); });
    update();
  }
  Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), function (table) {
    var heads = Array.prototype.slice.call(table.tHead.rows[0].cells);
    heads.forEach(function (th, i) {
      th.querySelector('button').addEventListener('click', function () {
        var dir = th.getAttribute('aria-sort') === 'ascending' ? -1 : 1;
        heads.forEach(function (o) { o.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', dir === 1 ? 'ascending' : 'descending');
        var num = th.classList.contains('num');
        function key(tr) {
          var c = tr.cells[i];
          var v = c.hasAttribute('data-sort') ? c.getAttribute('data-sort') : c.textContent.trim();
          return num ? Number(v) : v;
        }
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var ka = key(a), kb = key(b);
          return dir * (num ? ka - kb : ka.localeCompare(kb, undefined, { numeric: true }));
        });
        rows.forEach(function (tr) { body.appendChild(tr); });
      });
    });
  });
  tabs.forEach(function (t) { t.addEventListener('click', function () { show(t.getAttribute('data-view')); }); });
  q.addEventListener('input', update);
  show('by-link');
})();
`;

function sha256(s: string): string {
  return `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`;
}

/** A link a person can follow: only http(s) URLs get an href (a report may hold anything). */
function urlCell(url: string): string {
  return /^https?:\/\//i.test(url) ? `<a href="${x(url)}" rel="noreferrer noopener">${x(url)}</a>` : x(url);
}

function statusBadges(reasonTitle: string, l: ReportLink): string {
  let s = `<span class="badge">${x(reasonTitle)}</span>`;
  if (l.blocked) s += ` <span class="badge blocked">blocked</span>`;
  return s;
}

/** Where on the page, and since when: `<a> "Read more" · since …`. */
function sourceText(l: ReportLink): string {
  const parts = [describeSource(l)];
  if (l.firstSeen) parts.push(`since ${l.firstSeen}`);
  return parts.filter(Boolean).join(' · ');
}

function head(cols: { label: string; num?: boolean }[]): string {
  return `<thead><tr>${cols.map((c) => `<th${c.num ? ' class="num"' : ''}><button type="button">${x(c.label)}</button></th>`).join('')}</tr></thead>`;
}

/** One row per problem link: where it is found, listed in the row. */
function byLink(rows: Row[]): string {
  const groups = new Map<string, Row[]>();
  for (const row of rows) {
    const k = `${row.reason.reason}\n${row.link.url}`;
    const g = groups.get(k);
    if (g) g.push(row);
    else groups.set(k, [row]);
  }
  const body = [...groups.values()].map((g) => {
    const first = g[0]!;
    const l = first.link;
    const message = l.redirectsTo && !l.message.includes(l.redirectsTo) ? `${l.message} → ${l.redirectsTo}` : l.message;
    const pages = g
      .map((row) => {
        const src = sourceText(row.link);
        return `<li>${urlCell(row.page)}${src ? ` <span class="src">${x(src)}</span>` : ''}</li>`;
      })
      .join('');
    return (
      `<tr data-reason="${first.reason.reason}"><td>${urlCell(l.url)}</td>` +
      `<td data-sort="${REASONS.indexOf(first.reason)}">${statusBadges(first.reason.title, l)}</td>` +
      `<td class="num" data-sort="${l.httpStatus}">${l.httpStatus || '—'}</td><td>${x(message)}</td>` +
      `<td class="num">${g.length}</td><td><ul class="in">${pages}</ul></td></tr>`
    );
  });
  return (
    `<table class="sortable" id="links-table">` +
    head([
      { label: 'Link' },
      { label: 'Reason' },
      { label: 'Status', num: true },
      { label: 'Message' },
      { label: 'Pages', num: true },
      { label: 'Found on' },
    ]) +
    `<tbody>${body.join('\n')}</tbody></table>`
  );
}

/** One row per page that has problem links, listed in the row. */
function byPage(rows: Row[]): string {
  const groups = new Map<string, Row[]>();
  for (const row of rows) {
    const g = groups.get(row.page);
    if (g) g.push(row);
    else groups.set(row.page, [row]);
  }
  const body = [...groups.entries()].map(([page, g]) => {
    const broken = g.filter((row) => row.reason.broken && !row.link.blocked).length;
    const links = g
      .map((row) => {
        const l = row.link;
        const src = sourceText(l);
        return (
          `<li>${statusBadges(row.reason.title, l)} <span class="badge">${l.httpStatus || '—'}</span> ${urlCell(l.url)}` +
          `${src ? ` <span class="src">${x(src)}</span>` : ''}</li>`
        );
      })
      .join('');
    return `<tr><td>${urlCell(page)}</td><td class="num">${g.length}</td><td class="num">${broken}</td><td><ul class="in">${links}</ul></td></tr>`;
  });
  return (
    `<table class="sortable" id="pages-table">` +
    head([{ label: 'Page' }, { label: 'Problems', num: true }, { label: 'Broken', num: true }, { label: 'Links' }]) +
    `<tbody>${body.join('\n')}</tbody></table>`
  );
}

export function formatHtml(r: LinkReport, o: FormatOptions = {}): string {
  const rows = reportRows(r);
  const counts = reasonCounts(r);
  const total = totalCount(r);
  const blocked = rows.filter((row) => row.link.blocked).length;
  const cards = counts
    .map(
      (c) =>
        `<li class="r-${c.reason.reason}" data-reason="${c.reason.reason}" title="${x(c.reason.description)}"><span class="n">${c.count}</span><span class="label">${x(c.reason.title)}</span></li>`,
    )
    .concat(
      `<li class="r-total" data-reason="total"><span class="n">${total}</span><span class="label">Total</span></li>`,
    )
    .concat(
      blocked
        ? [
            `<li data-reason="blocked"><span class="n">${blocked}</span><span class="label">Blocked (not failing)</span></li>`,
          ]
        : [],
    )
    .join('');
  const targets = r.targets
    .map((t) => {
      const note = trackingNote(t);
      return `<p class="note">Target ${x(t.host)}: track_links ${x(t.linkTracking)}, ${t.walkLinks ? 'walks links' : 'sitemap pages only'}${note ? `. Note: ${x(note)}` : ''}</p>`;
    })
    .join('');
  const shown = rows.length;
  const truncated = r.truncated
    ? `<p class="note">Showing ${shown} of ${total} problem links: the report was cut at its limit (raise --limit, or use --target).</p>`
    : '';
  const csp = `default-src 'none'; style-src ${sha256(STYLE)}; script-src ${sha256(SCRIPT)}; img-src data:; base-uri 'none'; form-action 'none'`;
  const views =
    total === 0
      ? '<p class="empty">No problem links found.</p>'
      : `<div class="toolbar"><div class="tabs" role="tablist"><button type="button" role="tab" data-view="by-link" aria-selected="true">By link</button>` +
        `<button type="button" role="tab" data-view="by-page" aria-selected="false">By page</button></div>` +
        `<input type="search" id="q" placeholder="Filter by URL, page, text, status…" aria-label="Filter"><span id="shown"></span></div>\n` +
        `<section class="view" id="by-link"><h2>Problems by link</h2>${byLink(rows)}</section>\n` +
        `<section class="view" id="by-page"><h2>Problems by page</h2>${byPage(rows)}</section>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Link report</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>Link report</h1>
<p class="meta">Last full crawl: ${x(r.lastFullCrawl ?? 'none completed yet')}${o.toolVersion ? ` · svc ${x(o.toolVersion)}` : ''}</p>
${targets}
</header>
<ul class="counts" aria-label="Problem links per reason">${cards}</ul>
${truncated}
${views}
${total === 0 ? '' : `<script>${SCRIPT}</script>`}
</body>
</html>
`;
}
