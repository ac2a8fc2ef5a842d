// The report view's one style sheet: the reason colours, a layout that folds each table row into a card in a
// narrow column (a chat's side panel, a phone), and a dark scheme (light-dark()): it follows prefers-color-scheme,
// or the color-scheme a host sets on the document (the MCP App takes its host's theme).
export const REPORT_STYLE = `
:root { color-scheme: light dark; --fg: light-dark(#1f2328, #e6edf3); --muted: light-dark(#59636e, #9198a1);
  --line: light-dark(#d1d9e0, #3d444d); --bg: light-dark(#f6f8fa, #151b23); --card: light-dark(#fff, #0d1117);
  --accent: light-dark(#0969da, #4493f8); --nf: light-dark(#cf222e, #f85149); --fb: light-dark(#bc4c00, #db6d28);
  --se: light-dark(#8250df, #ab7df8); --rd: light-dark(#9a6700, #d29922); --uk: light-dark(#59636e, #9198a1);
  --warn-bg: light-dark(#fff8c5, #3b2e0a); --warn: light-dark(#d4a72c, #9e6a03); }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--card); margin: 0 auto; padding: 24px; max-width: 1400px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 20px 0 8px; }
.meta, .note { color: var(--muted); margin: 2px 0; }
.notice { color: var(--fg); background: var(--bg); border-left: 4px solid var(--accent); padding: 6px 10px; }
.counts { display: flex; flex-wrap: wrap; gap: 10px; margin: 16px 0; padding: 0; list-style: none; }
.counts li { border: 1px solid var(--line); border-left-width: 6px; border-radius: 6px; padding: 8px 14px; min-width: 130px; background: var(--card); }
.counts .n { display: block; font-size: 24px; font-weight: 600; }
.counts .label { color: var(--muted); }
.counts .r-not_found { border-left-color: var(--nf); } .counts .r-forbidden { border-left-color: var(--fb); }
.counts .r-server_error { border-left-color: var(--se); } .counts .r-redirect { border-left-color: var(--rd); }
.counts .r-unknown { border-left-color: var(--uk); } .counts .r-total { border-left-color: var(--accent); }
.badge.r-not_found { color: var(--nf); } .badge.r-forbidden { color: var(--fb); } .badge.r-server_error { color: var(--se); }
.badge.r-redirect { color: var(--rd); } .badge.r-unknown { color: var(--uk); }
.toolbar { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; position: sticky; top: 0; z-index: 1; background: var(--card); padding: 8px 0; border-bottom: 1px solid var(--line); }
.tabs button { font: inherit; color: inherit; border: 1px solid var(--line); background: var(--bg); padding: 5px 12px; cursor: pointer; }
.tabs button:first-child { border-radius: 6px 0 0 6px; } .tabs button:last-child { border-radius: 0 6px 6px 0; }
.tabs button[aria-selected="true"] { background: var(--accent); color: #fff; border-color: var(--accent); }
input[type="search"], select { font: inherit; color: inherit; background: var(--card); padding: 5px 10px; border: 1px solid var(--line); border-radius: 6px; }
input[type="search"] { min-width: 260px; flex: 1 1 260px; }
#shown { color: var(--muted); }
table { border-collapse: collapse; width: 100%; margin-top: 8px; }
th, td { text-align: left; vertical-align: top; padding: 6px 8px; border-bottom: 1px solid var(--line); }
td { overflow-wrap: anywhere; }
td:first-child { min-width: 20ch; } #links-table td:nth-child(4) { min-width: 16ch; }
th { background: var(--bg); }
th button { font: inherit; font-weight: 600; background: none; border: 0; padding: 0; cursor: pointer; color: inherit; }
th[aria-sort="ascending"] button::after { content: " ▲"; } th[aria-sort="descending"] button::after { content: " ▼"; }
td.num, th.num { text-align: right; white-space: nowrap; }
ul.in { margin: 0; padding-left: 18px; }
.badge { display: inline-block; font-size: 12px; padding: 0 6px; border-radius: 10px; background: var(--bg); border: 1px solid var(--line); white-space: nowrap; }
.badge.blocked { background: var(--warn-bg); border-color: var(--warn); }
.src { color: var(--muted); }
time { text-decoration: underline dotted; text-underline-offset: 2px; }
a { color: var(--accent); text-decoration: none; } a:hover { text-decoration: underline; }
.empty { padding: 24px; text-align: center; color: var(--muted); }
.actions { white-space: nowrap; }
.act { font: inherit; font-size: 12px; color: inherit; background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 0 6px; margin-left: 4px; cursor: pointer; }
.progress { margin: 12px 0; } .progress .bar { height: 8px; background: var(--bg); border: 1px solid var(--line); border-radius: 4px; overflow: hidden; }
.progress .fill { height: 100%; background: var(--accent); width: 0; transition: width .3s; }
.panel { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; margin: 12px 0; background: var(--bg); }
.panel pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; }
.error { border-color: var(--nf); }
@media (max-width: 640px) {
  body { padding: 10px; }
  .counts li { min-width: 0; flex: 1 1 40%; padding: 6px 10px; }
  input[type="search"] { min-width: 0; }
  table, tbody, tr, td { display: block; width: 100%; }
  thead { display: block; } thead tr { display: flex; flex-wrap: wrap; gap: 4px 10px; }
  th { background: none; border: 0; padding: 2px 0; }
  tr { border: 1px solid var(--line); border-radius: 6px; margin: 8px 0; padding: 4px 0; }
  td { border: 0; padding: 2px 10px; } td:first-child { font-weight: 600; }
  td.num { text-align: left; } td:empty { display: none; }
  td[data-label]::before { content: attr(data-label) ": "; color: var(--muted); }
}
`;
