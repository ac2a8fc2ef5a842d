// HTML of the demo site: one layout (header nav, main, footer) in English or Swedish, the post page with its
// page-meta script, and listings.
import type { PageMeta } from '../model/types.js';
import type { DemoPost } from './content.js';
import { escapeHtml } from '../lib/escape-html.js';
import { renderBlocks, renderInline, type HrefMapper } from './markup.js';

export type Lang = 'en' | 'sv';

export const SITE_NAME: Record<Lang, string> = {
  en: 'Ekbacken Allotment Association',
  sv: 'Koloniföreningen Ekbacken',
};

const NAV: Record<Lang, [string, string][]> = {
  en: [
    ['/', 'Home'],
    ['/news/', 'News'],
    ['/events/', 'Events'],
    ['/about/', 'About us'],
    ['/membership/', 'Membership'],
    ['/volunteer/', 'Volunteering'],
    ['/faq/', 'FAQ'],
    ['/contact/', 'Contact'],
    ['/sv/', 'Svenska'],
  ],
  sv: [
    ['/sv/', 'Start'],
    ['/sv/nyheter/', 'Nyheter'],
    ['/sv/om-foreningen/', 'Om föreningen'],
    ['/sv/medlemskap/', 'Medlemskap'],
    ['/sv/vanliga-fragor/', 'Vanliga frågor'],
    ['/sv/kontakt/', 'Kontakt'],
    ['/', 'English'],
  ],
};

const FOOTER: Record<Lang, string> = {
  en: 'Ekbacken Allotment Association, founded 1962. Member of the [Regional Allotment Federation](partner:/). [Privacy](/privacy/) · [Contact](/contact/)',
  sv: 'Koloniföreningen Ekbacken, grundad 1962. Medlem i [Regionala koloniförbundet](partner:/). [Kontakt](/sv/kontakt/)',
};

export const CATEGORY_NAMES: Record<string, string> = {
  news: 'News',
  events: 'Events',
  'volunteer-reports': 'Volunteer reports',
  'gardening-tips': 'Gardening tips',
  association: 'Association',
  nyheter: 'Nyheter',
  evenemang: 'Evenemang',
  volontarrapporter: 'Volontärrapporter',
  odlingstips: 'Odlingstips',
  foreningen: 'Föreningen',
};

export const AUTHOR_NAMES: Record<string, string> = {
  karin: 'Karin Lindqvist',
  erik: 'Erik Sandberg',
  maja: 'Maja Berg',
  anna: 'Anna Holm',
};

const WORDS: Record<Lang, Record<string, string>> = {
  en: {
    by: 'By',
    published: 'Published',
    updated: 'updated',
    categories: 'Filed under',
    tags: 'Tags',
    older: 'Older posts',
    newer: 'Newer posts',
    page: 'page',
  },
  sv: {
    by: 'Av',
    published: 'Publicerad',
    updated: 'uppdaterad',
    categories: 'Kategori',
    tags: 'Etiketter',
    older: 'Äldre inlägg',
    newer: 'Nyare inlägg',
    page: 'sida',
  },
};

export interface LayoutOptions {
  lang: Lang;
  title: string;
  description?: string;
  /** Serialised into the svc-page-meta script. */
  meta?: PageMeta;
  /** e.g. "noindex, follow" */
  robots?: string;
  main: string;
  mapHref: HrefMapper;
}

/** JSON that is safe inside a <script> element: no "</script>", no HTML comment openers. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

export function layout(o: LayoutOptions): string {
  const nav = NAV[o.lang].map(([href, label]) => `<a href="${escapeHtml(href)}">${escapeHtml(label)}</a>`).join(' ');
  const head = [
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(o.title)} – ${escapeHtml(SITE_NAME[o.lang])}</title>`,
    o.description ? `<meta name="description" content="${escapeHtml(o.description)}">` : '',
    o.robots ? `<meta name="robots" content="${escapeHtml(o.robots)}">` : '',
    '<link rel="stylesheet" href="/assets/site.css">',
    o.meta ? `<script id="svc-page-meta" type="application/json">${scriptJson(o.meta)}</script>` : '',
  ].filter(Boolean);
  return `<!doctype html>
<html lang="${o.lang}">
<head>
${head.join('\n')}
</head>
<body>
<header><a class="site" href="${o.lang === 'sv' ? '/sv/' : '/'}">${escapeHtml(SITE_NAME[o.lang])}</a>
<nav>${nav}</nav>
</header>
<main>
${o.main}
</main>
<footer><p>${renderInline(FOOTER[o.lang], o.mapHref)}</p></footer>
</body>
</html>
`;
}

const day = (iso: string | null) => (iso ? iso.slice(0, 10) : '');

export function postPage(d: DemoPost, meta: PageMeta, mapHref: HrefMapper): string {
  const p = d.post;
  const lang = (p.language === 'sv' ? 'sv' : 'en') as Lang;
  const w = WORDS[lang];
  const parts = [`<article>`, `<h1>${escapeHtml(p.title)}</h1>`];
  if (p.type === 'post') {
    const updated =
      p.modified && day(p.modified) !== day(p.created)
        ? `, ${w.updated} <time datetime="${p.modified}">${day(p.modified)}</time>`
        : '';
    parts.push(
      `<p class="byline">${w.by} ${escapeHtml(AUTHOR_NAMES[p.author] ?? p.author)} · ${w.published} <time datetime="${p.created ?? ''}">${day(p.created)}</time>${updated}</p>`,
    );
  }
  parts.push(renderBlocks(d.blocks, mapHref));
  const cats = p.terms.category ?? [];
  if (cats.length) {
    const links = cats.map(
      (c) => `<a href="/category/${encodeURIComponent(c)}/">${escapeHtml(CATEGORY_NAMES[c] ?? c)}</a>`,
    );
    parts.push(`<p class="terms">${w.categories}: ${links.join(', ')}</p>`);
  }
  const tags = p.terms.post_tag ?? [];
  if (tags.length) parts.push(`<p class="terms">${w.tags}: ${tags.map(escapeHtml).join(', ')}</p>`);
  parts.push('</article>');
  return layout({ lang, title: p.title, description: d.summary, meta, main: parts.join('\n'), mapHref });
}

export interface ListingOptions {
  lang: Lang;
  title: string;
  intro?: string;
  items: DemoPost[];
  prev?: string;
  next?: string;
  robots?: string;
  mapHref: HrefMapper;
}

export function listingPage(o: ListingOptions): string {
  const w = WORDS[o.lang];
  const items = o.items.map(
    (d) =>
      `<li><a href="${escapeHtml(d.path)}">${escapeHtml(d.post.title)}</a> <time datetime="${d.post.created ?? ''}">${day(d.eventDate ?? d.post.created)}</time><br>${escapeHtml(d.summary)}</li>`,
  );
  const pager = [
    o.next ? `<a rel="next" href="${o.next}">${w.older}</a>` : '',
    o.prev ? `<a rel="prev" href="${o.prev}">${w.newer}</a>` : '',
  ]
    .filter(Boolean)
    .join(' ');
  const main = [
    `<h1>${escapeHtml(o.title)}</h1>`,
    o.intro ? `<p>${renderInline(o.intro, o.mapHref)}</p>` : '',
    items.length ? `<ul class="posts">\n${items.join('\n')}\n</ul>` : '<p>–</p>',
    pager ? `<p class="pager">${pager}</p>` : '',
  ]
    .filter(Boolean)
    .join('\n');
  return layout({ lang: o.lang, title: o.title, robots: o.robots, main, mapHref: o.mapHref });
}

export function messagePage(lang: Lang, title: string, text: string, mapHref: HrefMapper): string {
  return layout({
    lang,
    title,
    robots: 'noindex',
    main: `<h1>${escapeHtml(title)}</h1>\n<p>${renderInline(text, mapHref)}</p>`,
    mapHref,
  });
}

export const SITE_CSS = `body{font-family:system-ui,sans-serif;max-width:46rem;margin:0 auto;padding:0 1rem;line-height:1.5;color:#1d2a1d}
header{border-bottom:2px solid #5a7d3a;padding:1rem 0}header .site{font-weight:700;font-size:1.3rem;color:#3d5a24;text-decoration:none}
nav a{margin-right:.8rem}footer{border-top:1px solid #ccc;margin-top:3rem;font-size:.9rem;color:#555}
.byline,.terms{color:#555;font-size:.9rem}figure img{max-width:100%}
`;
