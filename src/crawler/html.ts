// HTML → {title, text, meta, links, robots}, in one streaming pass with htmlparser2.
// Pure (no I/O): `extractHtml(html, {url})` works on any string — the search benchmark uses it on the
// PostgreSQL manual; the crawler feeds the same extractor chunk by chunk through `HtmlSink`.
import { selectAll, selectOne } from 'css-select';
import { DomHandler, type AnyNode, type Element } from 'domhandler';
import { Parser, type Handler } from 'htmlparser2';
import { TextDecoder } from 'node:util';
import type { ExtractedLink } from '../model/crawl-writes.js';
import type { PageMeta } from '../model/types.js';
import type { BodySink } from './fetch.js';
import { parseRobotsDirectives, ROBOTS_AGENT, type RobotsDirectives } from './robots.js';
import { cssLinks } from './css.js';
import { normalizeUrl, parseSrcset } from './urls.js';

export type { RobotsDirectives };

export interface ExtractOptions {
  /** The page's URL: the base for relative links (until a `<base href>` says otherwise). */
  url: string;
  /** Text comes only from elements matching this selector (all of them), when any match. */
  contentSelector?: string;
  /** The title comes from the first element matching this selector, when one matches. */
  titleSelector?: string;
  /** Text kept per page, in characters. */
  maxTextChars?: number;
  /** Links kept per page. */
  maxLinks?: number;
  /** Collect the page's fragment targets (ids, <a name>) and keep the fragments of <a>/<area> links (check_fragments). */
  anchors?: boolean;
  /** Find links in <style> blocks and style="" attributes (check_css). */
  css?: boolean;
}

/** Characters of a link's text kept. */
const LINK_TEXT_MAX = 100;

export type { ExtractedLink };

/** The fields a `<script id="svc-page-meta">` may carry, type-checked; unknown or mistyped ones are dropped. */
export type EmbeddedMeta = Partial<PageMeta>;

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
   * The text of its headings (h1–h6), in page order, whitespace collapsed: search ranks a page whose heading is
   * the query high. (Not <dt>: on real sites they are as often a book index's or a table of contents' entries
   * as the definition of a term.)
   */
  headings: string[];
}

/** Headings kept per page, and characters kept of each. */
const MAX_HEADINGS = 200;
const MAX_HEADING_CHARS = 200;
const HEADING = /^h[1-6]$/;

/** Elements whose text is not page content. */
const NO_TEXT = new Set(['script', 'style', 'noscript', 'template', 'svg', 'math', 'canvas', 'iframe', 'object', 'title', 'select', 'textarea', 'button']);
/** Elements that do not break words apart (everything else adds a separator). */
const INLINE = new Set(['a', 'abbr', 'b', 'bdi', 'bdo', 'cite', 'code', 'data', 'dfn', 'em', 'i', 'kbd', 'mark', 'q', 's', 'samp', 'small', 'span', 'strong', 'sub', 'sup', 'time', 'u', 'var', 'wbr', 'font', 'tt', 'big', 'acronym', 'strike', 'del', 'ins', 'label', 'abbr', 'nobr']);
/** <link rel> values that load a resource rather than point at another page. */
const RESOURCE_RELS = /\b(stylesheet|icon|preload|modulepreload|prefetch|manifest|apple-touch-icon|mask-icon|dns-prefetch|preconnect|pingback)\b/i;
/** <link rel> values that name an origin, not a document: nothing to check. */
const ORIGIN_RELS = /\b(dns-prefetch|preconnect)\b/i;

const META_SCRIPT_ID = 'svc-page-meta';
const MAX_META_JSON = 256 * 1024;

interface RawLink {
  raw: string;
  element: string;
  walkable: boolean;
  nofollow: boolean;
  text: string;
  stylesheet: boolean;
}

type Mention = Pick<RawLink, 'element' | 'walkable' | 'nofollow' | 'text'> & { stylesheet?: boolean };

/**
 * Another mention of a link already found: a page link beats a resource (walkable wins, with its element and text),
 * it is followed unless every mention says nofollow, and the first text found stays otherwise.
 */
function mergeMention(prev: Mention, m: Mention): void {
  if (m.walkable && !prev.walkable) {
    prev.walkable = true;
    prev.element = m.element;
    if (m.text) prev.text = m.text;
  }
  if (!m.nofollow) prev.nofollow = false;
  if (!prev.text) prev.text = m.text;
  if (m.stylesheet) prev.stylesheet = true;
}

/** Fragment targets kept per page. */
const MAX_ANCHORS = 20_000;
/** Characters of a <style> block read for links. */
const MAX_STYLE_CHARS = 1_000_000;

/** Whitespace collapsed, cut at LINK_TEXT_MAX characters (not inside a surrogate pair). */
export function linkText(s: string): string {
  const t = collapseWhitespace(s);
  if (t.length <= LINK_TEXT_MAX) return t;
  const code = t.charCodeAt(LINK_TEXT_MAX - 1);
  return t.slice(0, code >= 0xd800 && code <= 0xdbff ? LINK_TEXT_MAX - 1 : LINK_TEXT_MAX);
}

/** A URL and its fragment (without '#', '' when none) of a link resolved against base; null when it is never fetched. */
function withFragment(raw: string, base: string): { url: string; fragment: string } | null {
  const hashAt = raw.indexOf('#');
  if (hashAt < 0) {
    const url = normalizeUrl(raw, base);
    return url ? { url, fragment: '' } : null;
  }
  // "#" alone goes nowhere; "#x" alone is the document the base names.
  if (hashAt === 0 && raw.length === 1) return null;
  const url = normalizeUrl(hashAt === 0 ? base : raw.slice(0, hashAt), base);
  if (!url) return null;
  let fragment = '';
  try {
    fragment = new URL(raw, base).hash.slice(1);
  } catch {
    // unparsable: no fragment to check
  }
  return { url, fragment };
}

function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

/** Keeps the fields of a page meta JSON object that have the right types. */
export function parseEmbeddedMeta(json: string): EmbeddedMeta | null {
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch {
    return null;
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return null;
  const o = v as Record<string, unknown>;
  const m: EmbeddedMeta = {};
  if (typeof o.showInSearch === 'boolean') m.showInSearch = o.showInSearch;
  if (typeof o.title === 'string') m.title = o.title;
  if (typeof o.url === 'string') m.url = o.url;
  if (typeof o.created === 'string' || o.created === null) m.created = o.created as string | null;
  if (typeof o.modified === 'string' || o.modified === null) m.modified = o.modified as string | null;
  if (typeof o.language === 'string' || o.language === null) m.language = o.language as string | null;
  if (isStringArray(o.tags)) m.tags = o.tags;
  if (isStringArray(o.superwords)) m.superwords = o.superwords;
  if (typeof o.contentNoHighlight === 'string') m.contentNoHighlight = o.contentNoHighlight;
  if (typeof o.description === 'string') m.description = o.description;
  if (o.customFields && typeof o.customFields === 'object' && !Array.isArray(o.customFields)) {
    const cf: PageMeta['customFields'] = {};
    for (const [k, f] of Object.entries(o.customFields as Record<string, unknown>)) {
      if (!f || typeof f !== 'object') continue;
      const { type, value } = f as { type?: unknown; value?: unknown };
      if ((type === 'keyword' || type === 'number' || type === 'date') && (typeof value === 'string' || typeof value === 'number')) cf[k] = { type, value };
    }
    m.customFields = cf;
  }
  return m;
}

/** Streaming extractor: write() HTML text as it arrives, end() once for the result. */
export class HtmlExtractor {
  private readonly parser: Parser;
  private readonly dom: DomHandler | null;
  private readonly maxText: number;
  private readonly maxLinks: number;
  /** Text so far (V8 concatenates strings as ropes: cheap to append, flattened once at the end). */
  private text = '';
  /** A word break is owed before the next text (block element boundary). */
  private sep = false;
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
  private readonly raw: RawLink[] = [];
  private readonly rawSeen = new Map<string, RawLink>();
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
  private readonly headings: string[] = [];

  constructor(private readonly opts: ExtractOptions) {
    this.maxText = opts.maxTextChars ?? 1_000_000;
    this.maxLinks = opts.maxLinks ?? 10_000;
    this.anchors = opts.anchors ? new Set() : null;
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
      handler.oncomment = (d) => dom.oncomment(d);
      handler.oncommentend = () => dom.oncommentend();
      handler.oncdatastart = () => dom.oncdatastart();
      handler.oncdataend = () => dom.oncdataend();
      handler.onprocessinginstruction = (n, d) => dom.onprocessinginstruction(n, d);
      handler.onend = () => dom.onend();
      handler.onparserinit = (p) => dom.onparserinit(p);
    }
    this.parser = new Parser(handler, { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: false });
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
    const links: ExtractedLink[] = [];
    const seen = new Map<string, ExtractedLink>();
    const fragments = this.anchors !== null;
    for (const l of this.raw) {
      // Fragments matter only on links to documents (check_fragments); elsewhere a URL is its page.
      const split = fragments && (l.element === 'a' || l.element === 'area') ? withFragment(l.raw, baseUrl) : null;
      const url = split ? split.url : normalizeUrl(l.raw, baseUrl);
      if (!url) continue;
      const key = split?.fragment ? `${url}#${split.fragment}` : url;
      const prev = seen.get(key);
      if (prev) {
        // The same URL by another href (relative, absolute…).
        mergeMention(prev, l);
        continue;
      }
      const link: ExtractedLink = { url, element: l.element, walkable: l.walkable, nofollow: l.nofollow, text: l.text };
      if (l.stylesheet) link.stylesheet = true;
      if (split?.fragment) link.fragment = split.fragment;
      seen.set(key, link);
      links.push(link);
    }
    let title = collapseWhitespace(this.title);
    let text = collapseWhitespace(this.text);
    if (this.dom) {
      const root = this.dom.root;
      if (this.opts.titleSelector) {
        const el = safeSelectOne(this.opts.titleSelector, root);
        if (el) title = collapseWhitespace(nodeText(el, this.maxText)) || title;
      }
      if (this.opts.contentSelector) {
        const els = safeSelectAll(this.opts.contentSelector, root);
        if (els.length) {
          const parts: string[] = [];
          let len = 0;
          for (const el of els) {
            const t = nodeText(el, this.maxText - len);
            parts.push(t);
            len += t.length;
            if (len >= this.maxText) break;
          }
          text = collapseWhitespace(parts.join(' '));
        }
      }
    }
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
      headings: this.headings,
    };
  }

  private resolveBase(): string {
    if (this.base) {
      const b = normalizeUrl(this.base, this.opts.url);
      if (b) return b;
    }
    return this.opts.url;
  }

  /** Records a link (or merges it into an earlier mention of the same href); returns its record. */
  private addLink(raw: string | undefined, element: string, walkable: boolean, nofollow = false, text = '', stylesheet = false): RawLink | null {
    if (raw === undefined) return null;
    const v = raw.trim();
    if (!v) return null;
    const prev = this.rawSeen.get(v);
    if (prev) {
      mergeMention(prev, { element, walkable, nofollow, text, stylesheet });
      return prev;
    }
    if (this.raw.length >= this.maxLinks) return null;
    const link: RawLink = { raw: v, element, walkable, nofollow, text, stylesheet };
    this.rawSeen.set(v, link);
    this.raw.push(link);
    return link;
  }

  private addCssLinks(css: string): void {
    for (const l of cssLinks(css, this.maxLinks)) this.addLink(l.raw, 'css', false, false, '', l.import);
  }

  private onOpen(name: string, a: Record<string, string>): void {
    if (this.anchors && this.anchors.size < MAX_ANCHORS) {
      if (a.id) this.anchors.add(a.id);
      if (name === 'a' && a.name) this.anchors.add(a.name);
    }
    // A url( in a style attribute (the test is cheap, the tokenizer runs only when it may find something).
    if (this.opts.css && a.style && /url\(/i.test(a.style)) this.addCssLinks(a.style);
    switch (name) {
      case 'html':
        if (a.lang && !this.lang) this.lang = a.lang.trim() || null;
        break;
      case 'base':
        if (a.href !== undefined && this.base === null) this.base = a.href;
        break;
      case 'title':
        if (!this.titleDone && this.noTextDepth === 0) this.inTitle = true;
        break;
      case 'meta': {
        const metaName = (a.name ?? '').trim().toLowerCase();
        if (metaName === 'description' && this.description === null && a.content !== undefined) this.description = a.content.trim();
        else if ((metaName === 'robots' || metaName === ROBOTS_AGENT) && a.content) {
          const d = parseRobotsDirectives(a.content);
          this.robots.noindex ||= d.noindex;
          this.robots.nofollow ||= d.nofollow;
        }
        break;
      }
      case 'a': {
        this.closeAnchor();
        const link = this.addLink(a.href, name, true, /\bnofollow\b/i.test(a.rel ?? ''));
        if (link && !link.text) {
          this.anchorLink = link;
          this.anchorText = '';
          this.anchorFallback = a['aria-label'] ?? a.title ?? '';
        }
        break;
      }
      case 'area':
        this.addLink(a.href, name, true, /\bnofollow\b/i.test(a.rel ?? ''), linkText(a.alt ?? a['aria-label'] ?? ''));
        break;
      case 'img': {
        const alt = linkText(a.alt ?? '');
        this.addLink(a.src, 'img', false, false, alt);
        if (a.srcset) for (const u of parseSrcset(a.srcset)) this.addLink(u, 'img', false, false, alt);
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
        this.addLink(a.src, 'source', false);
        if (a.srcset) for (const u of parseSrcset(a.srcset)) this.addLink(u, 'source', false);
        break;
      case 'script':
        if (a.src !== undefined) this.addLink(a.src, 'script', false);
        else if (a.id === META_SCRIPT_ID && !this.metaFound) {
          this.inMetaScript = true;
          this.metaFound = true;
        }
        break;
      case 'link': {
        const rel = `${a.rel ?? ''} ${a.rev ?? ''}`;
        if (!ORIGIN_RELS.test(rel)) this.addLink(a.href, 'link', !RESOURCE_RELS.test(rel), false, linkText(a.title ?? ''), /\bstylesheet\b/i.test(rel));
        break;
      }
      case 'iframe':
        this.addLink(a.src, 'iframe', true, false, linkText(a.title ?? ''));
        break;
      case 'video':
        this.addLink(a.src, 'video', false);
        this.addLink(a.poster, 'video', false);
        break;
      case 'audio':
      case 'track':
      case 'embed':
        this.addLink(a.src, name, false);
        break;
    }
    if (HEADING.test(name) && this.noTextDepth === 0 && this.headings.length < MAX_HEADINGS) {
      this.heading = '';
      this.headingTag = name;
    }
    if (NO_TEXT.has(name)) this.noTextDepth++;
    else if (!INLINE.has(name)) this.sep = true;
  }

  private onClose(name: string): void {
    if (name === 'a') this.closeAnchor();
    if (name === 'style' && this.inStyle) {
      this.inStyle = false;
      this.addCssLinks(this.styleText);
      this.styleText = '';
    }
    if (name === 'title' && this.inTitle) {
      this.inTitle = false;
      this.titleDone = true;
    }
    if (name === 'script') this.inMetaScript = false;
    if (name === this.headingTag && this.heading !== null) {
      const h = collapseWhitespace(this.heading);
      if (h) this.headings.push(h.length > MAX_HEADING_CHARS ? h.slice(0, MAX_HEADING_CHARS) : h);
      this.heading = null;
    }
    if (NO_TEXT.has(name)) this.noTextDepth = Math.max(0, this.noTextDepth - 1);
    else if (!INLINE.has(name)) this.sep = true;
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
      if (this.heading !== null && this.heading.length < MAX_HEADING_CHARS * 2) this.heading += data;
    }
  }

  private pushText(s: string): void {
    if (this.text.length >= this.maxText) return;
    if (this.sep) {
      this.text += ' ';
      this.sep = false;
    }
    this.text += this.text.length + s.length > this.maxText ? s.slice(0, this.maxText - this.text.length) : s;
  }
}

/**
 * Every run of white space as one space, trimmed. The pattern leaves a lone ' ' alone (most runs are one): it
 * matches only runs that change, which makes this about twice as fast as replacing every /\s+/.
 */
export function collapseWhitespace(s: string): string {
  return s.replace(/(?: \s|[^\S ])\s*/g, ' ').trim();
}

function safeSelectOne(selector: string, root: AnyNode): Element | null {
  try {
    return selectOne<AnyNode, Element>(selector, root);
  } catch {
    return null;
  }
}

function safeSelectAll(selector: string, root: AnyNode): Element[] {
  try {
    return selectAll<AnyNode, Element>(selector, root);
  } catch {
    return [];
  }
}

/** Text of a DOM subtree with the same rules as the streaming pass. */
function nodeText(node: AnyNode, max: number): string {
  const out: string[] = [];
  let len = 0;
  const walk = (n: AnyNode) => {
    if (len >= max) return;
    if (n.type === 'text') {
      const d = (n as unknown as { data: string }).data;
      out.push(d);
      len += d.length;
      return;
    }
    if (n.type === 'tag' || n.type === 'script' || n.type === 'style') {
      const el = n as Element;
      if (NO_TEXT.has(el.name)) return;
      const sep = !INLINE.has(el.name);
      if (sep) out.push(' ');
      for (const c of el.children) walk(c);
      if (sep) out.push(' ');
      return;
    }
    const children = (n as { children?: AnyNode[] }).children;
    if (children) for (const c of children) walk(c);
  };
  walk(node);
  const s = out.join('');
  return s.length > max ? s.slice(0, max) : s;
}

/** HTML string → extracted page. */
export function extractHtml(html: string, opts: ExtractOptions): ExtractedPage {
  const x = new HtmlExtractor(opts);
  x.write(html);
  return x.end();
}

/** charset=… of a Content-Type header. */
export function charsetOf(contentType: string | null | undefined): string | null {
  const m = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '');
  return m ? m[1]!.toLowerCase() : null;
}

/** BOM or `<meta charset>` / http-equiv in the first bytes of a document. */
export function sniffCharset(head: Buffer): string | null {
  if (head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return 'utf-8';
  if (head.length >= 2 && head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  if (head.length >= 2 && head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  const s = head.subarray(0, 2048).toString('latin1');
  const m = /<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)/i.exec(s);
  return m ? m[1]!.toLowerCase() : null;
}

function decoderFor(label: string | null): TextDecoder {
  if (label) {
    try {
      return new TextDecoder(label);
    } catch {
      // unknown label: fall through to UTF-8
    }
  }
  return new TextDecoder('utf-8');
}

/** Receives a page's body bytes from the fetch layer, decodes them (charset from the header, BOM or meta) and parses as they come. */
export class HtmlSink implements BodySink {
  private decoder: TextDecoder | null = null;
  private pending: Buffer[] = [];
  private pendingLen = 0;
  private result: ExtractedPage | null = null;
  readonly extractor: HtmlExtractor;

  constructor(
    private readonly contentType: string | null,
    opts: ExtractOptions,
  ) {
    this.extractor = new HtmlExtractor(opts);
  }

  write(chunk: Buffer): void {
    if (!this.decoder) {
      this.pending.push(chunk);
      this.pendingLen += chunk.length;
      if (this.pendingLen < 1024) return;
      this.start();
      return;
    }
    this.extractor.write(this.decoder.decode(chunk, { stream: true }));
  }

  end(): void {
    if (!this.decoder) this.start();
    this.extractor.write(this.decoder!.decode());
    this.result = this.extractor.end();
  }

  /** The extraction, once end() ran. */
  get page(): ExtractedPage | null {
    return this.result;
  }

  private start(): void {
    const head = Buffer.concat(this.pending);
    this.pending = [];
    this.decoder = decoderFor(charsetOf(this.contentType) ?? sniffCharset(head));
    if (head.length) this.extractor.write(this.decoder.decode(head, { stream: true }));
  }
}

/** A whole body, decoded by its Content-Type charset (or what the bytes say), extracted in one go. */
export function extractHtmlBody(body: Buffer, contentType: string | null, opts: ExtractOptions): ExtractedPage {
  const sink = new HtmlSink(contentType, opts);
  sink.write(body);
  sink.end();
  return sink.page!;
}
