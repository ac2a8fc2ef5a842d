// The report view's small client script (plain ES5-level browser JS, kept as text: the server's TypeScript has no
// DOM). It defines svcEnhance(root): switches the two views, sorts by a clicked column, filters rows by the
// search box and the reason picker, and rewrites relative times for the reader's clock. Without it the page is
// still a complete table; the HTML file calls it once, the MCP App after each render.
export const ENHANCE_SCRIPT = `
function svcEnhance(root) {
  var q = root.querySelector('#q');
  if (!q) return;
  var reason = root.querySelector('#reason');
  var shown = root.querySelector('#shown');
  var views = Array.prototype.slice.call(root.querySelectorAll('section.view'));
  var tabs = Array.prototype.slice.call(root.querySelectorAll('[data-view]'));
  function update() {
    var term = q.value.trim().toLowerCase();
    var only = reason ? reason.value : '';
    var total = 0, visible = 0;
    views.forEach(function (v) {
      Array.prototype.forEach.call(v.querySelectorAll('tbody tr'), function (tr) {
        var text = tr.textContent.toLowerCase();
        var hit = (!term || text.indexOf(term) >= 0) &&
          (!only || (tr.hasAttribute('data-reason') ? tr.getAttribute('data-reason') === only : !!tr.querySelector('.badge.r-' + only)));
        tr.hidden = !hit;
        if (!v.hidden) { total++; if (hit) visible++; }
      });
    });
    shown.textContent = term || only ? visible + ' of ' + total + ' rows' : total + ' rows';
  }
  function show(id) {
    views.forEach(function (v) { v.hidden = v.id !== id; });
    tabs.forEach(function (t) { t.setAttribute('aria-selected', String(t.getAttribute('data-view') === id)); });
    update();
  }
  Array.prototype.forEach.call(root.querySelectorAll('table.sortable'), function (table) {
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
  if (typeof relativeTime === 'function') {
    Array.prototype.forEach.call(root.querySelectorAll('time[datetime]'), function (t) {
      t.textContent = relativeTime(t.getAttribute('datetime'), Date.now());
    });
  }
  tabs.forEach(function (t) { t.addEventListener('click', function () { show(t.getAttribute('data-view')); }); });
  q.addEventListener('input', update);
  if (reason) reason.addEventListener('change', update);
  show('by-link');
}
`;
