// The link report as one self-contained HTML file (svc report --format html, and the console's report page): the
// view rendered on the server, so it reads without script, plus the style and the small client script inline.
// Its Content-Security-Policy allows exactly those two, by hash, so the page loads nothing.
import { createHash } from 'node:crypto';
import { ENHANCE_SCRIPT } from './enhance.js';
import { relativeTime, reportHtml } from './render.js';
import { REPORT_STYLE } from './style.js';
import type { ViewData } from './view-data.js';

const SCRIPT = `${relativeTime.toString()}\n${ENHANCE_SCRIPT}\nsvcEnhance(document);\n`;

function sha256(s: string): string {
  return `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`;
}

/** The whole file. `now` (ms) is when its relative times are written for; the script refreshes them when opened. */
export function reportDocument(d: ViewData, now: number = Date.now()): string {
  const csp = `default-src 'none'; style-src ${sha256(REPORT_STYLE)}; script-src ${sha256(SCRIPT)}; img-src data:; base-uri 'none'; form-action 'none'`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Link report</title>
<style>${REPORT_STYLE}</style>
</head>
<body>
${reportHtml(d, now, false)}
${d.rows.length === 0 ? '' : `<script>${SCRIPT}</script>`}
</body>
</html>
`;
}
