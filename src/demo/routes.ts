// What the demo site answers for each path: a pure function of the path, so the tests can check every answer
// without a socket. Private, draft and pending posts are not served (404), exactly like a CMS to a visitor.
import { escapeHtml } from '../lib/escape-html.js';
import type { PageMeta } from '../model/types.js';
import type { DemoPost } from './content.js';
import type { HrefMapper } from './markup.js';
import { makePdf } from './pdf.js';
import { CATEGORY_NAMES, SITE_CSS, listingPage, messagePage, postPage, type Lang } from './render.js';
import type { Post } from '../model/posts.js';

export interface DemoResponse {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer;
}

export interface DemoModel {
  /** e.g. http://127.0.0.1:8788 */
  origin: string;
  /** The second loopback host the site links to. */
  partnerOrigin: string;
  posts: DemoPost[];
  /** The host's page-meta implementation (src/cms/posts.ts). */
  pageMetaOf: (post: Post) => PageMeta;
}

/** The known faults of the demo site, by the reason a link checker should give them. */
export const DEMO_FAULTS = {
  not_found: [
    '/news/old-bulletin-2019/',
    '/sv/medlemsblad-2020/',
    '/files/annual-report-2024.pdf',
    '/assets/photos/raised-beds-2026.jpg',
    '/news/board-minutes-march/',
    '/events/midsummer-2023/',
  ],
  forbidden: ['/board/archive/', '/intranet/'],
  server_error: ['/events/booking/'],
  /** Each link that redirects to a working page, with the final URL of its chain. */
  redirect: {
    '/join/': '/membership/',
    '/blog/': '/news/',
    '/sv/bli-medlem/': '/sv/medlemskap/',
  },
  /** A 301 → 302 chain that ends at a missing page (the crawler reports it by its final answer, with redirects_to). */
  redirect_to_missing: {
    '/2019/spring-fair/': '/archive/spring-fair-2019/',
  },
  /** On the partner host. */
  partner_not_found: ['/old-grants/'],
  /** Disallowed by robots.txt. */
  disallowed: ['/members/login/'],
} as const;

const REDIRECTS: Record<string, [number, string]> = {
  '/join/': [301, '/membership/'],
  '/blog/': [302, '/news/'],
  '/sv/bli-medlem/': [301, '/sv/medlemskap/'],
  '/2019/spring-fair/': [301, '/events/spring-fair-2019/'],
  '/events/spring-fair-2019/': [302, '/archive/spring-fair-2019/'],
};

/** The calendar's first month: where /events/ sends people. */
export const CALENDAR_START = '/events/calendar/2026/04/';
const PER_PAGE = 8;

const HTML = 'text/html; charset=utf-8';
const httpDate = (iso: string | null) => (iso ? new Date(iso).toUTCString() : undefined);

function html(status: number, body: string, headers: Record<string, string> = {}): DemoResponse {
  return { status, headers: { 'content-type': HTML, ...headers }, body };
}

const newestFirst = (a: DemoPost, b: DemoPost) =>
  (b.post.created ?? '').localeCompare(a.post.created ?? '') || b.post.id - a.post.id;
const maxModified = (items: DemoPost[]) =>
  items
    .map((d) => d.post.modified ?? '')
    .sort()
    .at(-1) ?? null;

export function createDemoRouter(model: DemoModel): (path: string) => DemoResponse {
  const mapHref: HrefMapper = (href) =>
    href.startsWith('partner:') ? new URL(href.slice('partner:'.length), model.partnerOrigin).href : href;
  const published = model.posts.filter((d) => d.post.status === 'publish');
  const byPath = new Map(model.posts.map((d) => [d.path, d]));
  const newsOf = (lang: Lang) =>
    published.filter((d) => d.post.type === 'post' && d.post.language === lang).sort(newestFirst);
  const events = published.filter((d) => d.eventDate).sort((a, b) => a.eventDate!.localeCompare(b.eventDate!));
  const categories = new Map<string, DemoPost[]>();
  for (const d of published)
    for (const c of d.post.terms.category ?? []) categories.set(c, [...(categories.get(c) ?? []), d]);
  for (const list of categories.values()) list.sort(newestFirst);

  const notFound = (lang: Lang = 'en') =>
    html(
      404,
      messagePage(
        lang,
        lang === 'sv' ? 'Sidan finns inte' : 'Page not found',
        lang === 'sv'
          ? 'Sidan du letar efter finns inte. Gå till [startsidan](/sv/).'
          : 'The page you are looking for does not exist. Try the [home page](/).',
        mapHref,
      ),
    );

  /** /news/ and /news/page/2/ (sv: /sv/nyheter/ and /sv/nyheter/sida/2/). */
  function newsListing(lang: Lang, page: number): DemoResponse {
    const base = lang === 'sv' ? '/sv/nyheter/' : '/news/';
    const seg = lang === 'sv' ? 'sida' : 'page';
    const all = newsOf(lang);
    const pages = Math.max(1, Math.ceil(all.length / PER_PAGE));
    if (page < 1 || page > pages) return notFound(lang);
    const at = (n: number) => (n === 1 ? base : `${base}${seg}/${n}/`);
    return html(
      200,
      listingPage({
        lang,
        title: lang === 'sv' ? 'Nyheter' : 'News',
        intro:
          lang === 'sv'
            ? 'Nyheter, evenemang och rapporter från trädgården.'
            : 'News, events and volunteer reports from the garden.',
        items: all.slice((page - 1) * PER_PAGE, page * PER_PAGE),
        prev: page > 1 ? at(page - 1) : undefined,
        next: page < pages ? at(page + 1) : undefined,
        mapHref,
      }),
    );
  }

  /** An endless calendar, as calendar plugins make them: every month links to the one before and after. */
  function calendar(year: number, month: number): DemoResponse {
    if (year < 1970 || year > 2999 || month < 1 || month > 12) return notFound();
    const key = `${year}-${String(month).padStart(2, '0')}`;
    const link = (y: number, m: number) => `/events/calendar/${y}/${String(m).padStart(2, '0')}/`;
    const prev = month === 1 ? link(year - 1, 12) : link(year, month - 1);
    const next = month === 12 ? link(year + 1, 1) : link(year, month + 1);
    const monthName = new Date(Date.UTC(year, month - 1, 1)).toLocaleString('en-GB', {
      month: 'long',
      year: 'numeric',
      timeZone: 'UTC',
    });
    return html(
      200,
      listingPage({
        lang: 'en',
        title: `Events calendar: ${monthName}`,
        intro: `What is on at Ekbacken in ${monthName}. See also [all events](/events/).`,
        items: events.filter((d) => d.eventDate!.startsWith(key)),
        prev,
        next,
        robots: 'noindex, follow',
        mapHref,
      }),
    );
  }

  function sitemap(entries: { loc: string; lastmod: string | null }[]): string {
    const urls = entries.map(
      (e) =>
        `  <url><loc>${escapeHtml(new URL(e.loc, model.origin).href)}</loc>${e.lastmod ? `<lastmod>${e.lastmod}</lastmod>` : ''}</url>`,
    );
    return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join('\n')}\n</urlset>\n`;
  }

  const pagesSitemap = () =>
    sitemap([
      ...published.filter((d) => d.post.type === 'page').map((d) => ({ loc: d.path, lastmod: d.post.modified })),
      { loc: '/news/', lastmod: maxModified(newsOf('en')) },
      { loc: '/sv/nyheter/', lastmod: maxModified(newsOf('sv')) },
      { loc: '/events/', lastmod: maxModified(events) },
    ]);
  const postsSitemap = () =>
    sitemap(published.filter((d) => d.post.type === 'post').map((d) => ({ loc: d.path, lastmod: d.post.modified })));
  const sitemapIndex = () => {
    const pagesMod = maxModified(published.filter((d) => d.post.type === 'page'));
    const postsMod = maxModified(published.filter((d) => d.post.type === 'post'));
    const item = (loc: string, lastmod: string | null) =>
      `  <sitemap><loc>${escapeHtml(new URL(loc, model.origin).href)}</loc><lastmod>${lastmod}</lastmod></sitemap>`;
    return `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${item('/sitemap-pages.xml', pagesMod)}\n${item('/sitemap-posts.xml', postsMod)}\n</sitemapindex>\n`;
  };

  const pdfs: Record<string, () => Buffer> = {
    '/files/garden-rules.pdf': () => {
      const d = byPath.get('/garden-rules/')!;
      return makePdf(
        'Ekbacken garden rules',
        d.blocks
          .flatMap((b) => b.split('\n'))
          .map((l) => l.replace(/^- /, '* ').replace(/\[([^\]]+)\]\([^)]+\)/g, '$1')),
      );
    },
    '/files/tradgardsregler.pdf': () => {
      const d = byPath.get('/sv/tradgardsregler/')!;
      return makePdf(
        'Trädgårdsregler för Koloniföreningen Ekbacken',
        d.blocks
          .flatMap((b) => b.split('\n'))
          .map((l) => l.replace(/^- /, '* ').replace(/\[([^\]]+)\]\([^)]+\)/g, '$1')),
      );
    },
    '/files/annual-report-2025.pdf': () =>
      makePdf('Ekbacken Allotment Association: annual report 2025', [
        'The association had 86 plots let to 91 households in 2025. The waiting list grew from 48 to 63 names.',
        'Income: membership fees 13,650 kronor, plot rents 71,400 kronor, grants 8,000 kronor. Costs: land lease 38,000 kronor, water 19,200 kronor, repairs and tools 21,300 kronor, insurance through the federation 6,400 kronor.',
        'Two work days brought 73 volunteers. The compost group produced about nine cubic metres of finished compost.',
        'The board thanks every member for another good season.',
      ]),
  };

  return function route(path: string): DemoResponse {
    if (path === '/robots.txt') {
      const body = `# Ekbacken: the members' area is not for search engines.\nUser-agent: *\nDisallow: /members/\n\nSitemap: ${model.origin}/sitemap.xml\n`;
      return { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body };
    }
    if (path === '/sitemap.xml')
      return { status: 200, headers: { 'content-type': 'application/xml; charset=utf-8' }, body: sitemapIndex() };
    if (path === '/sitemap-pages.xml')
      return { status: 200, headers: { 'content-type': 'application/xml; charset=utf-8' }, body: pagesSitemap() };
    if (path === '/sitemap-posts.xml')
      return { status: 200, headers: { 'content-type': 'application/xml; charset=utf-8' }, body: postsSitemap() };
    if (path === '/assets/site.css')
      return { status: 200, headers: { 'content-type': 'text/css; charset=utf-8' }, body: SITE_CSS };
    const pdf = pdfs[path];
    if (pdf) return { status: 200, headers: { 'content-type': 'application/pdf' }, body: pdf() };

    const redirect = REDIRECTS[path];
    if (redirect) {
      const [status, to] = redirect;
      return {
        status,
        headers: { location: new URL(to, model.origin).href, 'content-type': HTML },
        body: `<p>Moved to <a href="${to}">${to}</a></p>`,
      };
    }
    if (path === '/board/archive/')
      return html(403, messagePage('en', 'Forbidden', 'The board archive is open to board members only.', mapHref));
    if (path === '/intranet/')
      return html(
        401,
        messagePage('en', 'Sign in required', 'The volunteer intranet needs a volunteer account.', mapHref),
        { 'www-authenticate': 'Basic realm="Ekbacken volunteers"' },
      );
    if (path === '/events/booking/')
      return html(
        500,
        messagePage(
          'en',
          'Booking is unavailable',
          'The booking system ran into an error. Please try again later, or use the list in the clubhouse.',
          mapHref,
        ),
      );
    if (path === '/events/midsummer-2023/')
      return html(410, messagePage('en', 'Gone', 'The 2023 photo gallery has been removed.', mapHref));
    if (path.startsWith('/members/'))
      return html(
        200,
        listingPage({
          lang: 'en',
          title: "Members' sign-in",
          intro: 'Sign in with your member number to see the plot map and the rota.',
          items: [],
          robots: 'noindex, nofollow',
          mapHref,
        }),
      );

    const post = byPath.get(path);
    if (post) {
      if (post.post.status !== 'publish') return notFound(post.post.language === 'sv' ? 'sv' : 'en');
      const lastModified = httpDate(post.post.modified);
      return html(
        200,
        postPage(post, model.pageMetaOf(post.post), mapHref),
        lastModified ? { 'last-modified': lastModified } : {},
      );
    }

    let m: RegExpExecArray | null;
    if (path === '/news/') return newsListing('en', 1);
    if ((m = /^\/news\/page\/(\d{1,4})\/$/.exec(path)))
      return Number(m[1]) === 1 ? notFound() : newsListing('en', Number(m[1]));
    if (path === '/sv/nyheter/') return newsListing('sv', 1);
    if ((m = /^\/sv\/nyheter\/sida\/(\d{1,4})\/$/.exec(path)))
      return Number(m[1]) === 1 ? notFound('sv') : newsListing('sv', Number(m[1]));
    if (path === '/events/')
      return html(
        200,
        listingPage({
          lang: 'en',
          title: 'Events',
          intro: `Workshops, courses and parties at Ekbacken, oldest first. Browse them month by month in the [events calendar](${CALENDAR_START}).`,
          items: events,
          mapHref,
        }),
      );
    if ((m = /^\/events\/calendar\/(\d{4})\/(\d{2})\/$/.exec(path))) return calendar(Number(m[1]), Number(m[2]));
    if ((m = /^\/category\/([a-z0-9-]+)\/$/.exec(path))) {
      const items = categories.get(m[1]!);
      if (!items) return notFound();
      const lang = (items[0]!.post.language === 'sv' ? 'sv' : 'en') as Lang;
      return html(200, listingPage({ lang, title: CATEGORY_NAMES[m[1]!] ?? m[1]!, items, mapHref }));
    }
    return notFound(path.startsWith('/sv/') ? 'sv' : 'en');
  };
}

/** The partner site on the second loopback host: a home page, one guide, and a page that no longer exists. */
export function createPartnerRouter(demoOrigin: string): (path: string) => DemoResponse {
  const page = (title: string, body: string) =>
    `<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><title>${title} – Regional Allotment Federation</title></head>\n<body>\n<h1>${title}</h1>\n${body}\n</body>\n</html>\n`;
  return (path) => {
    if (path === '/')
      return html(
        200,
        page(
          'Regional Allotment Federation',
          `<p>Forty-one allotment gardens, one federation. Read our <a href="/allotment-guide/">allotment guide</a>, or visit a member garden such as <a href="${demoOrigin}/">Ekbacken</a>.</p>`,
        ),
      );
    if (path === '/allotment-guide/')
      return html(
        200,
        page(
          'Allotment guide for beginners',
          '<p>Start small, dig less, mulch more, and talk to your neighbours. Bees and other pollinators need flowers from March to October.</p>',
        ),
      );
    if (path === '/robots.txt')
      return {
        status: 200,
        headers: { 'content-type': 'text/plain; charset=utf-8' },
        body: 'User-agent: *\nAllow: /\n',
      };
    return html(404, page('Not found', '<p>This page no longer exists.</p>'));
  };
}
