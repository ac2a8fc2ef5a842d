// The demo content's small markup: paragraphs, "## " headings, "- " lists, ![alt](src) images and [text](href)
// links. Everything else is text and is escaped.

import { escapeHtml } from '../lib/escape-html.js';

/** Maps an href as written (e.g. `partner:/x`) to the one the page links to. */
export type HrefMapper = (href: string) => string;

const INLINE = /(!?)\[([^\]]+)\]\(([^)\s]+)\)/g;

export function renderInline(text: string, mapHref: HrefMapper): string {
  let out = '';
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    out += escapeHtml(text.slice(last, m.index));
    const [, bang, label, href] = m;
    const target = escapeHtml(mapHref(href!));
    out += bang ? `<img src="${target}" alt="${escapeHtml(label!)}">` : `<a href="${target}">${escapeHtml(label!)}</a>`;
    last = m.index + m[0].length;
  }
  return out + escapeHtml(text.slice(last));
}

export function renderBlocks(blocks: readonly string[], mapHref: HrefMapper): string {
  return blocks
    .map((block) => {
      if (block.startsWith('## ')) return `<h2>${renderInline(block.slice(3), mapHref)}</h2>`;
      if (block.startsWith('- ')) {
        const items = block.split('\n').map((line) => `<li>${renderInline(line.replace(/^- /, ''), mapHref)}</li>`);
        return `<ul>\n${items.join('\n')}\n</ul>`;
      }
      if (/^!\[[^\]]+\]\([^)\s]+\)$/.test(block)) return `<figure>${renderInline(block, mapHref)}</figure>`;
      return `<p>${renderInline(block, mapHref)}</p>`;
    })
    .join('\n');
}
