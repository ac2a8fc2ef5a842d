// HTML → {title, text, meta, links, robots, Markdown}, in one streaming pass with htmlparser2.
// Pure (no I/O): `extractHtml(html, {url})` works on any string — the search benchmark uses it on the
// PostgreSQL manual; the crawler feeds the same extractor chunk by chunk through `HtmlSink` (sink.ts).
import { DomHandler } from 'domhandler';
import { Parser, type Handler } from 'htmlparser2';
import { DEFINITION_TERM, type ExtractedLink } from '../../model/crawl-writes.js';
import { parseRobotsDirectives, ROBOTS_AGENT, type RobotsDirectives } from '../robots.js';
import { normalizeUrl, parseSrcset } from '../urls.js';
import { META_SCRIPT_ID, MAX_META_JSON, parseEmbeddedMeta, type EmbeddedMeta } from './embedded-meta.js';
import { LinkCollector, linkText, type RawLink } from './links.js';
import { MarkdownBuilder } from './markdown.js';
import type { OutlineEntry } from '../../model/page-content.js';
import { selectedText, type Selectors } from './selectors.js';
import { collapseWhitespace, INLINE, NO_TEXT } from './text.js';

export interface ExtractOptions extends Selectors {
  /** The page's URL: the base for relative links (until a `<base href>` says otherwise). */
  url: string;
  /** Text kept per page, in characters. */
  maxTextChars?: number;
  /** Links kept per page. */
  maxLinks?: number;
  /** Collect the page's fragment targets (ids, <a name>) and keep the fragments of <a>/<area> links (check_fragments). */
  anchors?: boolean;
  /** Find links in <style> blocks and style="" attributes (check_css). */
  css?: boolean;
  /** Build the page's Markdown (default true): what an assistant reads of a stored page. */
  markdown?: boolean;
}

export interface ExtractedPage {
  /** title_selector match, else `<title>`, else '' (page meta JSON is applied later, in page-meta.ts). */
  title: string;
  text: string;
  /** `<html lang>`. */
  lang: string | null;
  /** `<meta name="description">`. */
  description: string | null;
  /** The page meta JSON, when present and valid. */
  embeddedMeta: EmbeddedMeta | null;
  links: ExtractedLink[];
  robots: RobotsDirectives;
  /** What relative links were resolved against. */
  baseUrl: string;
  /** The ids and <a name>s on the page (only with the `anchors` option). */
  anchors?: string[];
  /**
   * The text of its headings (h1–h6, and <dt> terms unless most of the page's are links), in page order,
   * whitespace collapsed: search ranks a page whose heading is the query high. (A page of linked terms is a book
   * index or a table of contents: its terms name other pages' topics.)
   */
  headings: string[];
  /** The page as Markdown ('' when not built), and its headings with where each starts in it. */
  markdown: string;
  outline: OutlineEntry[];
}

/** Headings kept per page, and characters kept of each. */
const MAX_HEADINGS = 200;
const MAX_HEADING_CHARS = 200;
/**
 * A definition list's term (`<dt>`) heads its definition as a heading heads a section: man-page-style manuals put
 * their options and examples there (marked DEFINITION_TERM: search counts one only when it is the query, and less than a heading). Not on a page whose terms are mostly links: that is a table of contents or a
 * book index, whose entries (linked, or heading their linked sub-entries) name other pages' topics.
 */
const HEADING = /^(?:h[1-6]|dt)$/;

/** <link rel> values that load a resource rather than point at another page. */
const RESOURCE_RELS =
  /\b(stylesheet|icon|preload|modulepreload|prefetch|manifest|apple-touch-icon|mask-icon|dns-prefetch|preconnect|pingback)\b/i;
/** <link rel> values that name an origin, not a document: nothing to check. */
const ORIGIN_RELS = /\b(dns-prefetch|preconnect)\b/i;

/** Fragment targets kept per page. */
const MAX_ANCHORS = 20_000;
/** Characters of a <style> block read for links. */
const MAX_STYLE_CHARS = 1_000_000;

/** Streaming extractor: write() HTML text as it arrives, end() once for the result. */
export class HtmlExtractor {
  private readonly parser: Parser;
  private readonly dom: DomHandler | null;
  private readonly maxText: number;
  /** Text so far (V8 concatenates strings as ropes: cheap to append, flattened once at the end). */
  private text = '';
  /** A word break is owed before the next text (block element boundary). */
  private separatorOwed = false;
  private noTextDepth = 0;
  private inTitle = false;
  private titleDone = false;
  private title = '';
  private inMetaScript = false;
  private metaJson = '';
  private metaFound = false;
  private lang: string | null = null;
  private description: string | null = null;
  private base: string | null = null;
  private readonly robots: RobotsDirectives = { noindex: false, nofollow: false };
  private readonly links: LinkCollector;
  private ended = false;
  /** The open <a> whose text is being read (when its link has no text yet). */
  private anchorLink: RawLink | null = null;
  private anchorText = '';
  private anchorFallback = '';
  private readonly anchors: Set<string> | null;
  private inStyle = false;
  private styleText = '';
  /** The open heading's text so far (null outside a heading), and the headings read. */
  private heading: string | null = null;
  private headingTag = '';
  /** The open heading holds a link; of each heading read, whether it is a <dt> and linked (null: h1–h6). */
  private headingLinked = false;
  private readonly headingLinks: (boolean | null)[] = [];
  private readonly headings: string[] = [];
  private readonly md: MarkdownBuilder | null;
  private baseHref: URL | null = null;

  constructor(private readonly opts: ExtractOptions) {
    this.maxText = opts.maxTextChars ?? 1_000_000;
    this.links = new LinkCollector(opts.maxLinks ?? 10_000);
    this.anchors = opts.anchors ? new Set() : null;
    this.md = opts.markdown === false ? null : new MarkdownBuilder(this.maxText * 2, (href) => this.markdownHref(href));
    this.dom = opts.contentSelector || opts.titleSelector ? new DomHandler(null, { withStartIndices: false }) : null;
    const dom = this.dom;
    const handler: Partial<Handler> = {
      onopentag: (name, attribs) => {
        this.onOpen(name, attribs);
        dom?.onopentag(name, attribs);
      },
      onclosetag: (name) => {
        this.onClose(name);
        dom?.onclosetag();
      },
      ontext: (data) => {
        this.onText(data);
        dom?.ontext(data);
      },
    };
    if (dom) {
      handler.oncomment = (data) => dom.oncomment(data);
      handler.oncommentend = () => dom.oncommentend();
      handler.oncdatastart = () => dom.oncdatastart();
      handler.oncdataend = () => dom.oncdataend();
      handler.onprocessinginstruction = (name, data) => dom.onprocessinginstruction(name, data);
      handler.onend = () => dom.onend();
      handler.onparserinit = (parser) => dom.onparserinit(parser);
    }
    this.parser = new Parser(handler, {
      decodeEntities: true,
      lowerCaseTags: true,
      lowerCaseAttributeNames: true,
      recognizeSelfClosing: false,
    });
  }

  write(chunk: string): void {
    if (!this.ended) this.parser.write(chunk);
  }

  end(): ExtractedPage {
    if (!this.ended) {
      this.ended = true;
      this.parser.end();
      this.closeAnchor();
      if (this.inStyle) this.onClose('style');
    }
    const baseUrl = this.resolveBase();
    const links = this.links.resolve(baseUrl, this.anchors !== null);
    const streamed = { title: collapseWhitespace(this.title), text: collapseWhitespace(this.text) };
    const { title, text } = this.dom ? selectedText(this.dom.root, this.opts, this.maxText, streamed) : streamed;
    const md = this.md?.end() ?? { markdown: '', outline: [] };
    return {
      title,
      text,
      lang: this.lang,
      description: this.description,
      embeddedMeta: this.metaFound ? parseEmbeddedMeta(this.metaJson) : null,
      links,
      robots: { ...this.robots },
      baseUrl,
      ...(this.anchors ? { anchors: [...this.anchors] } : {}),
      headings: this.pageHeadings(),
      markdown: md.markdown,
      outline: md.outline,
    };
  }

  /** A link's address in the Markdown: absolute, against the base known so far (a <base> comes in <head>). */
  private markdownHref(href: string): string | null {
    const raw = href.trim();
    if (!raw || /^(javascript|data|vbscript):/i.test(raw)) return null;
    try {
      this.baseHref ??= new URL(this.resolveBase());
      return new URL(raw, this.baseHref).href;
    } catch {
      return null;
    }
  }

  private resolveBase(): string {
    if (this.base) {
      const base = normalizeUrl(this.base, this.opts.url);
      if (base) return base;
    }
    return this.opts.url;
  }

  private onOpen(name: string, attrs: Record<string, string>): void {
    if (this.anchors && this.anchors.size < MAX_ANCHORS) {
      if (attrs.id) this.anchors.add(attrs.id);
      if (name === 'a' && attrs.name) this.anchors.add(attrs.name);
    }
    // A url( in a style attribute (the test is cheap, the tokenizer runs only when it may find something).
    if (this.opts.css && attrs.style && /url\(/i.test(attrs.style)) this.links.addCss(attrs.style);
    switch (name) {
      case 'html':
        if (attrs.lang && !this.lang) this.lang = attrs.lang.trim() || null;
        break;
      case 'base':
        if (attrs.href !== undefined && this.base === null) {
          this.base = attrs.href;
          this.baseHref = null;
        }
        break;
      case 'title':
        if (!this.titleDone && this.noTextDepth === 0) this.inTitle = true;
        break;
      case 'meta': {
        const metaName = (attrs.name ?? '').trim().toLowerCase();
        if (metaName === 'description' && this.description === null && attrs.content !== undefined)
          this.description = attrs.content.trim();
        else if ((metaName === 'robots' || metaName === ROBOTS_AGENT) && attrs.content) {
          const directives = parseRobotsDirectives(attrs.content);
          this.robots.noindex ||= directives.noindex;
          this.robots.nofollow ||= directives.nofollow;
        }
        break;
      }
      case 'a': {
        this.closeAnchor();
        // A link to a part of the same page (a term's own permalink, `<a href="#envvar-PYTHONPATH">¶</a>`) points at
        // no other page's topic.
        if (this.heading !== null && attrs.href && !attrs.href.trim().startsWith('#')) this.headingLinked = true;
        const link = this.links.add(attrs.href, name, true, /\bnofollow\b/i.test(attrs.rel ?? ''));
        if (link && !link.text) {
          this.anchorLink = link;
          this.anchorText = '';
          this.anchorFallback = attrs['aria-label'] ?? attrs.title ?? '';
        }
        break;
      }
      case 'area':
        this.links.add(
          attrs.href,
          name,
          true,
          /\bnofollow\b/i.test(attrs.rel ?? ''),
          linkText(attrs.alt ?? attrs['aria-label'] ?? ''),
        );
        break;
      case 'img': {
        const alt = linkText(attrs.alt ?? '');
        this.links.add(attrs.src, 'img', false, false, alt);
        if (attrs.srcset) for (const url of parseSrcset(attrs.srcset)) this.links.add(url, 'img', false, false, alt);
        // An image inside a link gives the link its alt as text.
        if (this.anchorLink && alt && this.anchorText.length < 400) this.anchorText += ` ${alt} `;
        break;
      }
      case 'style':
        if (this.opts.css) {
          this.inStyle = true;
          this.styleText = '';
        }
        break;
      case 'source':
        this.links.add(attrs.src, 'source', false);
        if (attrs.srcset) for (const url of parseSrcset(attrs.srcset)) this.links.add(url, 'source', false);
        break;
      case 'script':
        if (attrs.src !== undefined) this.links.add(attrs.src, 'script', false);
        else if (attrs.id === META_SCRIPT_ID && !this.metaFound) {
          this.inMetaScript = true;
          this.metaFound = true;
        }
        break;
      case 'link': {
        const rel = `${attrs.rel ?? ''} ${attrs.rev ?? ''}`;
        if (!ORIGIN_RELS.test(rel))
          this.links.add(
            attrs.href,
            'link',
            !RESOURCE_RELS.test(rel),
            false,
            linkText(attrs.title ?? ''),
            /\bstylesheet\b/i.test(rel),
          );
        break;
      }
      case 'iframe':
        this.links.add(attrs.src, 'iframe', true, false, linkText(attrs.title ?? ''));
        break;
      case 'video':
        this.links.add(attrs.src, 'video', false);
        this.links.add(attrs.poster, 'video', false);
        break;
      case 'audio':
      case 'track':
      case 'embed':
        this.links.add(attrs.src, name, false);
        break;
    }
    if (HEADING.test(name) && this.noTextDepth === 0 && this.headings.length < MAX_HEADINGS) {
      this.heading = '';
      this.headingTag = name;
      this.headingLinked = false;
    }
    if (this.md && this.noTextDepth === 0 && !NO_TEXT.has(name)) this.md.open(name, attrs);
    if (NO_TEXT.has(name)) this.noTextDepth++;
    else if (!INLINE.has(name)) this.separatorOwed = true;
  }

  /** The headings read, without the <dt> terms of a page whose terms are mostly links (see HEADING). */
  private pageHeadings(): string[] {
    const terms = this.headingLinks.filter((l) => l !== null);
    const linked = terms.filter((l) => l).length;
    if (linked * 2 <= terms.length) return this.headings;
    return this.headings.filter((_, i) => this.headingLinks[i] === null);
  }

  private onClose(name: string): void {
    if (name === 'a') this.closeAnchor();
    if (name === 'style' && this.inStyle) {
      this.inStyle = false;
      this.links.addCss(this.styleText);
      this.styleText = '';
    }
    if (name === 'title' && this.inTitle) {
      this.inTitle = false;
      this.titleDone = true;
    }
    if (name === 'script') this.inMetaScript = false;
    if (name === this.headingTag && this.heading !== null) {
      const heading = collapseWhitespace(this.heading);
      if (heading) {
        const kept = heading.length > MAX_HEADING_CHARS ? heading.slice(0, MAX_HEADING_CHARS) : heading;
        this.headings.push(name === 'dt' ? DEFINITION_TERM + kept : kept);
        this.headingLinks.push(name === 'dt' ? this.headingLinked : null);
      }
      this.heading = null;
    }
    if (NO_TEXT.has(name)) this.noTextDepth = Math.max(0, this.noTextDepth - 1);
    else {
      if (this.md && this.noTextDepth === 0) this.md.close(name);
      if (!INLINE.has(name)) this.separatorOwed = true;
    }
  }

  /** The open <a> ends: its text (else its aria-label or title) becomes its link's text. */
  private closeAnchor(): void {
    const link = this.anchorLink;
    if (!link) return;
    this.anchorLink = null;
    if (!link.text) link.text = linkText(this.anchorText) || linkText(this.anchorFallback);
  }

  private onText(data: string): void {
    if (this.inStyle) {
      if (this.styleText.length < MAX_STYLE_CHARS) this.styleText += data;
      return;
    }
    if (this.anchorLink && this.noTextDepth === 0 && this.anchorText.length < 400) this.anchorText += data;
    if (this.inMetaScript) {
      if (this.metaJson.length < MAX_META_JSON) this.metaJson += data;
      return;
    }
    if (this.inTitle) {
      if (this.title.length < 2000) this.title += data;
      return;
    }
    if (this.noTextDepth === 0) {
      this.pushText(data);
      this.md?.text(data);
      if (this.heading !== null && this.heading.length < MAX_HEADING_CHARS * 2) this.heading += data;
    }
  }

  private pushText(s: string): void {
    if (this.text.length >= this.maxText) return;
    if (this.separatorOwed) {
      this.text += ' ';
      this.separatorOwed = false;
    }
    this.text += this.text.length + s.length > this.maxText ? s.slice(0, this.maxText - this.text.length) : s;
  }
}

/** HTML string → extracted page. */
export function extractHtml(html: string, opts: ExtractOptions): ExtractedPage {
  const extractor = new HtmlExtractor(opts);
  extractor.write(html);
  return extractor.end();
}
