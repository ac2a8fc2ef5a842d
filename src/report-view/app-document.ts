// The link report as an MCP App: one self-contained HTML document (the host shows it in a sandboxed frame). It
// inlines the ext-apps App API bundle (given by the caller, which reads it from the package), the report's one
// renderer (render.ts, shipped as source), its style and client script. The App takes the result of
// svc-link-report or svc-get-crawl from the host; while a crawl runs it polls svc-get-crawl and shows a bar;
// each page can be re-checked (svc-manual-crawl, then followed) and its page meta opened. Every call goes
// through the host bridge, so it runs as the conversation's user: a refusal is shown as it comes.
import { ENHANCE_SCRIPT } from './enhance.js';
import { browserSource } from './render.js';
import { REPORT_STYLE } from './style.js';
import { REASON_TEXT } from './view-data.js';

/**
 * An ES module bundle as code for the body of an inline module script: its final `export{a as B,…}` becomes
 * `const B = a, …`, so the names it exports are plain bindings of the script.
 */
export function inlineBundle(bundle: string, names: readonly string[]): string {
  const at = bundle.lastIndexOf('export{');
  if (at < 0) throw new Error('the App API bundle has no export list');
  const end = bundle.indexOf('}', at);
  const list = bundle.slice(at + 'export{'.length, end);
  const local = new Map<string, string>();
  for (const item of list.split(',')) {
    const [inner, outer] = item.trim().split(/\s+as\s+/);
    if (inner) local.set((outer ?? inner).trim(), inner.trim());
  }
  const missing = names.filter((n) => !local.has(n));
  if (missing.length) throw new Error(`the App API bundle does not export ${missing.join(', ')}`);
  if (/<\/script/i.test(bundle)) throw new Error('the App API bundle holds "</script", which would end its script');
  const binds = names.map((n) => `${n} = ${local.get(n)}`).join(', ');
  return `${bundle.slice(0, at)}\nconst ${binds};\n${bundle.slice(end + 1).replace(/^;/, '')}`;
}

/** The App's own code: receive results, render, follow crawls, answer the row buttons. */
const APP_SCRIPT = `
const root = document.getElementById('report');
const bar = document.getElementById('progress');
const panel = document.getElementById('panel');
const app = new App({ name: 'svc-link-report', version: APP_VERSION }, {}, { autoResize: true });
let following = 0;

function textOf(result) {
  const item = (result.content || []).find(function (c) { return c.type === 'text'; });
  return item ? item.text : 'the call failed';
}
function showPanel(title, body, isError) {
  panel.hidden = false;
  panel.className = 'panel' + (isError ? ' error' : '');
  panel.innerHTML = '<strong>' + esc(title) + '</strong><pre>' + esc(body) + '</pre>';
}
/** Renders a report, keeping the reader's view, filter and reason across the re-render. */
function showReport(out) {
  const keep = {};
  ['#q', '#reason'].forEach(function (s) { const el = root.querySelector(s); if (el) keep[s] = el.value; });
  const tab = root.querySelector('[data-view][aria-selected="true"]');
  root.innerHTML = reportHtml(fromAbilityReport(out, REASONS), Date.now(), true);
  svcEnhance(root);
  if (tab) { const again = root.querySelector('[data-view="' + tab.getAttribute('data-view') + '"]'); if (again) again.click(); }
  Object.keys(keep).forEach(function (s) {
    const el = root.querySelector(s);
    if (el && keep[s]) { el.value = keep[s]; el.dispatchEvent(new Event(s === '#q' ? 'input' : 'change')); }
  });
}
function isReport(sc) { return !!sc && typeof sc.summary === 'object' && Array.isArray(sc.links); }
function isCrawl(sc) { return !!sc && typeof sc.id === 'number' && typeof sc.status === 'string' && !!sc.stats; }
function running(c) { return c.status === 'queued' || c.status === 'running'; }

function showProgress(c) {
  bar.hidden = false;
  let pct;
  if (!running(c)) pct = 100;
  else if (c.urls && c.urls.length) pct = Math.min(99, Math.round((100 * c.stats.pages) / c.urls.length));
  else pct = Math.min(95, Math.round((100 * c.stats.pages) / (c.stats.pages + 20)));
  bar.querySelector('.fill').style.width = pct + '%';
  bar.querySelector('.bar').setAttribute('aria-valuenow', String(pct));
  bar.querySelector('.label').textContent = 'Crawl ' + c.id + ' (' + c.mode + '): ' + c.status + ', ' +
    c.stats.pages + ' pages, ' + c.stats.errors + ' broken links' + (running(c) ? '' : ' · 100%');
}

/** A tool call through the host; an error result (a refusal, bad input) is thrown with its text. */
async function call(name, args) {
  const result = await app.callServerTool({ name: name, arguments: args });
  if (result.isError) throw new Error(textOf(result));
  return result.structuredContent;
}

async function follow(crawl) {
  const mine = ++following;
  showProgress(crawl);
  try {
    while (running(crawl)) {
      crawl = await call('svc-get-crawl', { id: crawl.id, wait_seconds: 1 });
      if (mine !== following) return;
      showProgress(crawl);
    }
    showReport(await call('svc-link-report', { refresh: true }));
  } catch (e) {
    showPanel('svc-get-crawl', e.message, true);
  }
}

function take(result) {
  if (!result) return;
  if (result.isError) { showPanel('Refused', textOf(result), true); return; }
  const sc = result.structuredContent;
  if (isReport(sc)) showReport(sc);
  else if (isCrawl(sc)) follow(sc);
}

async function pageMeta(page) {
  // No tool maps a URL to its post: the search index knows each page's postId.
  const words = (page.replace(/^https?:\\/\\/[^/]+/i, '').match(/[\\p{L}\\p{N}]+/gu) || []).join(' ');
  const found = await call('svc-search', { terms: words || page, search_params: { size: 100 } });
  const hit = found.results.hits.find(function (h) { return h.url === page; });
  const id = hit && hit.customFields.postId && Number(hit.customFields.postId.value);
  if (!id) { showPanel('Page meta of ' + page, 'No post in the search index has this URL.', false); return; }
  const meta = await call('svc-get-page-meta', { post_id: id });
  showPanel('Page meta of ' + page + ' (post ' + id + ')', JSON.stringify(meta, null, 2), false);
}

root.addEventListener('click', function (ev) {
  // A sandboxed frame opens no window: the host opens links (only http(s) ones are links at all).
  const a = ev.target.closest('a[href]');
  if (a) {
    ev.preventDefault();
    app.openLink({ url: a.getAttribute('href') }).catch(function () {});
    return;
  }
  const b = ev.target.closest('button.act');
  if (!b) return;
  const page = b.getAttribute('data-page');
  const act = b.getAttribute('data-act');
  const done = act === 'recheck'
    ? call('svc-manual-crawl', { urls: [page] }).then(follow)
    : pageMeta(page);
  done.catch(function (e) { showPanel(act === 'recheck' ? 'Re-check ' + page : 'Page meta of ' + page, e.message, true); });
});

app.ontoolresult = take;
app.onhostcontextchanged = function (ctx) {
  if (ctx && ctx.theme) document.documentElement.style.colorScheme = ctx.theme;
};
app.connect(new PostMessageTransport(window.parent, window.parent)).then(function () {
  const ctx = app.getHostContext();
  if (ctx && ctx.theme) document.documentElement.style.colorScheme = ctx.theme;
});
`;

/** The whole App document. `appApi` is the ext-apps App API bundle (app-with-deps) as published. */
export function linkReportAppDocument(appApi: string, version: string): string {
  const reasons = REASON_TEXT.map((r) => ({
    reason: r.reason,
    title: r.title,
    description: r.description,
    broken: r.broken,
  }));
  const script = [
    inlineBundle(appApi, ['App', 'PostMessageTransport']),
    `const APP_VERSION = ${JSON.stringify(version)};`,
    `const REASONS = ${JSON.stringify(reasons)};`,
    browserSource(),
    ENHANCE_SCRIPT,
    APP_SCRIPT,
  ].join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Link report</title>
<style>${REPORT_STYLE}
body { padding: 12px; }
</style>
</head>
<body>
<div id="progress" class="progress" hidden><div class="bar" role="progressbar" aria-valuemin="0" aria-valuemax="100" aria-valuenow="0"><div class="fill"></div></div><span class="label"></span></div>
<div id="panel" class="panel" hidden></div>
<main id="report"><p class="empty">Waiting for the link report…</p></main>
<script type="module">${script}</script>
</body>
</html>
`;
}
