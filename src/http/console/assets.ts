// The console's only style sheet and script, served from /console/assets/ (the pages' CSP allows 'self' and
// nothing else: no inline code, no other host). The script is small and optional: the project switcher submits
// on change, and a running crawl's bar and the rows of crawls not ended are refreshed by polling, which keeps
// trying while the server restarts.

export const CONSOLE_CSS = `:root{color-scheme:light;--fg:#1d2327;--muted:#50575e;--line:#c3c4c7;--bg:#f6f7f7;--accent:#2271b1;--bad:#b32d2e;--ok:#00703c}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:#fff}
a{color:var(--accent)}a:focus,button:focus,input:focus,select:focus{outline:3px solid #72aee6;outline-offset:1px}
header.top{background:#1d2327;color:#fff;padding:.5rem 1rem;display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center}
header.top a{color:#fff}header.top .muted{color:#dcdcde}header.top .brand{font-weight:700;text-decoration:none;margin-right:auto}
header.top form{display:flex;gap:.4rem;align-items:center;margin:0}
header.top label{font-size:.9rem}
header.top select{max-width:12rem}
nav.pages{background:var(--bg);border-bottom:1px solid var(--line);padding:0 1rem;display:flex;flex-wrap:wrap;gap:0 .2rem}
nav.pages a{display:inline-block;padding:.6rem .7rem;text-decoration:none;color:var(--fg)}
nav.pages a[aria-current=page]{border-bottom:3px solid var(--accent);font-weight:600}
main{padding:1rem;max-width:72rem;margin:0 auto}
h1{font-size:1.5rem;margin:.5rem 0 1rem}h2{font-size:1.15rem;margin:1.5rem 0 .5rem}
.notice{border-left:4px solid var(--ok);background:#edfaef;padding:.6rem .8rem;margin:0 0 1rem}
.error{border-left:4px solid var(--bad);background:#fcf0f1;padding:.6rem .8rem;margin:0 0 1rem;font-weight:600}
.secret{font-family:ui-monospace,monospace;background:var(--bg);border:1px solid var(--line);padding:.5rem;overflow-wrap:anywhere;display:block}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;width:100%}th,td{text-align:left;vertical-align:top;padding:.4rem .5rem;border-bottom:1px solid var(--line)}
th{background:var(--bg)}td{overflow-wrap:break-word}td code,td .url{overflow-wrap:anywhere}time,.status{white-space:nowrap}
form.inline{display:inline;margin:0}td button{white-space:nowrap;overflow-wrap:normal}
.row{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end;margin:.5rem 0}
.field{display:flex;flex-direction:column;gap:.2rem;min-width:12rem;flex:1}
label{font-weight:600}
input[type=text],input[type=url],input[type=password],input[type=search],select,textarea{font:inherit;padding:.45rem;border:1px solid #8c8f94;border-radius:3px;width:100%}
textarea{min-height:5rem}
fieldset{border:1px solid var(--line);border-radius:4px;margin:.5rem 0;padding:.4rem .8rem}fieldset label{font-weight:400;margin-right:1rem;white-space:nowrap}
button{font:inherit;padding:.45rem 1rem;border:1px solid var(--accent);background:#fff;color:var(--accent);border-radius:3px;cursor:pointer}
button.primary{background:var(--accent);color:#fff}button.danger{border-color:var(--bad);color:var(--bad)}
a.button{display:inline-block;padding:.3rem .8rem;border:1px solid var(--accent);border-radius:3px;text-decoration:none;white-space:nowrap}a.button.danger{border-color:var(--bad);color:var(--bad)}
.muted{color:var(--muted)}
progress{width:100%;height:1.3rem}
.live{border:1px solid var(--line);padding:.8rem;border-radius:4px;margin:.5rem 0 1rem}
.hit{margin:0 0 1rem}.hit a{font-size:1.1rem}.hit .url{color:var(--ok);font-size:.9rem;overflow-wrap:anywhere}.hit em{font-style:normal;font-weight:700}
iframe.report{width:100%;height:75vh;border:1px solid var(--line);display:block}main.wide{max-width:none}
figure.chart{margin:.5rem 0}svg.chart{width:100%;max-width:48rem;height:auto;display:block}ul.legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.3rem 1rem;margin:.3rem 0}svg.sparkline{vertical-align:middle}
.signin{max-width:24rem;margin:3rem auto}
#schedule-form .field{margin:.6rem 0}.field-error{color:var(--bad);font-weight:600;margin:.2rem 0}input[aria-invalid=true]{border-color:var(--bad);border-width:2px}ol.runs{margin:.2rem 0;padding-left:1.5rem}
dl.figures{display:flex;flex-wrap:wrap;gap:.5rem 2rem;margin:.5rem 0}dl.figures div{min-width:8rem}dl.figures dt{color:var(--muted);font-size:.9rem}dl.figures dd{margin:0;font-size:1.4rem;font-weight:600;white-space:nowrap}
.facets{display:flex;flex-wrap:wrap;gap:.5rem 2rem;margin:.5rem 0 1rem}.facets ul{list-style:none;padding:0;margin:.2rem 0}.facets h3{font-size:1rem;margin:0}.facets a[aria-current=true]{font-weight:700}
.signin .field{margin:.6rem 0}
@media (max-width:40rem){main{padding:.6rem}th,td{padding:.3rem}.field{min-width:100%}}
`;

export const CONSOLE_JS = `(function () {
  var sw = document.getElementById('project-switch');
  if (sw) {
    var sel = sw.querySelector('select');
    var btn = sw.querySelector('button');
    if (btn) btn.hidden = true;
    sel.addEventListener('change', function () { sw.submit(); });
  }
  function when(iso) {
    return iso.replace('T', ' ').replace(/\\.\\d+Z$|Z$/, ' UTC');
  }
  // A crawl's row in a table, brought up to date; once it has ended its Stop button goes and the row stops polling.
  function updateRow(p) {
    var cell = document.getElementById('crawl-' + p.id);
    var row = cell && cell.closest('tr');
    if (!row) return;
    var set = function (sel, v) { var el = row.querySelector(sel); if (el) el.textContent = String(v); };
    set('.status', p.status);
    // The Pages column counts stored pages, as the record does (pagesDone is the bar's, capped at its total).
    set('.pages', p.pages);
    set('.links', p.links);
    set('.errors', p.errors);
    if (p.problemLinksText) set('.problem-links', p.problemLinksText);
    if (p.ended) {
      var st = row.querySelector('.status');
      if (st) st.removeAttribute('data-progress-url');
      var fin = row.querySelector('.finished');
      if (fin && p.finishedAt) {
        var t = document.createElement('time');
        t.setAttribute('datetime', p.finishedAt);
        t.textContent = when(p.finishedAt);
        fin.replaceChildren(t);
      }
      var stop = row.querySelector('form.inline');
      if (stop) stop.remove();
      row.setAttribute('data-ended', 'true');
    }
  }
  function follow(url, onUpdate, onTrouble) {
    var wait = 1000;
    function poll() {
      fetch(url, { credentials: 'same-origin', cache: 'no-store' }).then(function (r) {
        if (r.status === 401 || r.status === 403) { onTrouble('Your session ended: sign in again to follow this crawl.'); return null; }
        if (!r.ok) throw new Error('HTTP ' + r.status);
        return r.json();
      }).then(function (p) {
        if (!p) return;
        wait = 1000;
        onUpdate(p);
        updateRow(p);
        if (!p.ended) setTimeout(poll, wait);
      }).catch(function () {
        onTrouble('The server does not answer; trying again…');
        wait = Math.min(wait * 2, 5000);
        setTimeout(poll, wait);
      });
    }
    poll();
  }
  // A secret shown once gets a copy button (hidden without script: the text can still be selected).
  var copies = document.querySelectorAll('button[data-copy]');
  for (var c = 0; c < copies.length; c++) {
    (function (btn) {
      btn.hidden = false;
      btn.addEventListener('click', function () {
        var src = document.getElementById(btn.getAttribute('data-copy'));
        var note = document.getElementById('copy-note');
        navigator.clipboard.writeText(src.textContent).then(function () {
          if (note) note.textContent = 'Copied.';
        }, function () {
          if (note) note.textContent = 'Copying was refused: select the key and copy it.';
        });
      });
    })(copies[c]);
  }
  // The report's frame takes the height of the report, so the page scrolls and not a box inside it.
  var frame = document.getElementById('report-frame');
  if (frame) {
    var fit = function () {
      try {
        var doc = frame.contentDocument;
        if (!doc || !doc.documentElement) return;
        frame.style.height = Math.max(doc.documentElement.scrollHeight, 300) + 'px';
        frame.setAttribute('data-fitted', 'true');
      } catch (err) { /* another origin: keep the default height */ }
    };
    var loaded = function () {
      fit();
      if (window.ResizeObserver && frame.contentDocument) new ResizeObserver(fit).observe(frame.contentDocument.body);
    };
    frame.addEventListener('load', loaded);
    // The report may have loaded before this script ran (its load event is then past): fit it now.
    var shown = frame.contentDocument;
    if (shown && shown.readyState === 'complete' && shown.location && shown.location.href !== 'about:blank') loaded();
    window.addEventListener('resize', fit);
  }
  var live = document.getElementById('crawl-live');
  var liveUrl = live ? live.getAttribute('data-progress-url') : null;
  var rows = document.querySelectorAll('.status[data-progress-url]');
  for (var i = 0; i < rows.length; i++) {
    var u = rows[i].getAttribute('data-progress-url');
    if (u !== liveUrl) follow(u, function () {}, function () {});
  }
  if (!live) return;
  var bar = document.getElementById('crawl-bar');
  var text = document.getElementById('crawl-text');
  var note = document.getElementById('crawl-note');
  follow(liveUrl, function (p) {
    live.setAttribute('data-status', p.status);
    if (p.ended) {
      bar.max = 1; bar.value = 1;
    } else if (p.pagesKnown) {
      bar.max = p.pagesKnown; bar.value = p.pagesDone;
    } else {
      bar.removeAttribute('value');
    }
    text.textContent = p.text;
    note.textContent = '';
    if (p.ended) {
      // "The crawl has started." is no longer true: say how it ended instead.
      var notice = document.getElementById('notice');
      if (notice) notice.textContent = 'Crawl ' + p.id + ' ' + p.status + (p.error ? ' (' + p.error + ')' : '') + '.';
      live.setAttribute('data-done', 'true');
    }
  }, function (msg) { note.textContent = msg; });
})();
`;

/** The icon of every svc page (also answered at /favicon.ico): a link checked, on the console's accent colour. */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#2271b1"/><path d="M8 17l5 5 11-12" fill="none" stroke="#fff" stroke-width="4" stroke-linecap="round" stroke-linejoin="round"/></svg>`;
