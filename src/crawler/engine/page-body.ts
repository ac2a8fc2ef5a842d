// How a page's body is read as it arrives: hashed (to tell an unchanged page), and either parsed as it streams in
// (this thread), collected whole for a parser thread or for parsing once its hash says it changed, or, for a
// stylesheet of a target that checks CSS, collected up to a cap for its links. Nothing else is read.
import type { Hash } from 'node:crypto';
import type { StoredRevisit } from '../../model/crawl-writes.js';
import type { ResponseInfo } from '../fetcher.js';
import type { BodySink } from '../response-body.js';
import type { ExtractOptions } from '../html/extractor.js';
import { HtmlSink } from '../html/sink.js';
import { bodyHasher } from '../revisit.js';
import { normalizeUrl } from '../urls.js';
import type { TargetRun } from './target.js';

/** Stylesheet bytes read for links. */
const MAX_STYLESHEET_BYTES = 2 * 1024 * 1024;

export function isHtml(contentType: string | null): boolean {
  if (!contentType) return true;
  return /^\s*(text\/html|application\/xhtml\+xml)\b/i.test(contentType);
}

function isCss(contentType: string | null): boolean {
  return /^\s*text\/css\b/i.test(contentType ?? '');
}

/** A body collected whole. */
export interface CollectedBody {
  chunks: Buffer[];
  contentType: string | null;
  /** The URL it came from (the end of its redirects). */
  url: string;
}

/** The extract options of a target's pages, but for the page's URL. */
export type PageExtractOptions = Omit<ExtractOptions, 'url'>;

/** What the fetch of one page read of its body; filled by onResponse as the answer comes in. */
export class PageBody {
  /** The body's hash (null: the body was not read). */
  hash: Hash | null = null;
  /** The stored page it would replace: the requested URL's (set here), or the end of its redirects' (looked up later). */
  before: StoredRevisit | null = null;
  /** Redirected to another page of the target: the stored page it would replace is looked up once the body is in. */
  redirectedTo: string | null = null;
  /** Parsed as it streamed in. */
  streamed: HtmlSink | null = null;
  /** An HTML page collected whole, to be parsed. */
  collected: CollectedBody | null = null;
  /** A stylesheet collected (up to its cap) for its links. */
  stylesheet: CollectedBody | null = null;

  /**
   * requested: the URL asked for; prior: what the store holds of it; collectAll: pages go to parser threads (so are
   * collected whole).
   */
  constructor(
    private readonly run: TargetRun,
    private readonly requested: string,
    private readonly prior: StoredRevisit | null,
    private readonly extract: PageExtractOptions,
    private readonly collectAll: boolean,
  ) {}

  /** The fetcher's onResponse: where the body of a 2xx HTML page (or stylesheet) of the target goes. */
  readonly onResponse = (info: ResponseInfo): BodySink | undefined => {
    const run = this.run;
    if (info.status < 200 || info.status >= 300) return undefined;
    const css = run.css && isCss(info.contentType);
    if (!css && !isHtml(info.contentType)) return undefined;
    const final = normalizeUrl(info.url);
    if (!final || !run.owns(final)) return undefined;
    // Redirected to a page this crawl has already seen: no need to parse it twice.
    if (final !== this.requested && run.seen.has(run.canon(final))) return undefined;
    if (final === this.requested) this.before = this.prior;
    else this.redirectedTo = run.canon(final);
    const hash = bodyHasher(info.headers);
    this.hash = hash;
    if (css || this.collectAll || this.redirectedTo !== null || this.before?.bodyHash) {
      // Collected whole: a stylesheet (read up to its cap), or a page parsed later.
      const body: CollectedBody = { chunks: [], contentType: info.contentType, url: final };
      if (css) this.stylesheet = body;
      else this.collected = body;
      const cap = css ? MAX_STYLESHEET_BYTES : Infinity;
      let size = 0;
      const write = (chunk: Buffer) => {
        if (size >= cap) return;
        size += chunk.length;
        hash.update(chunk);
        body.chunks.push(chunk);
      };
      return { write, end: () => {} };
    }
    const html = new HtmlSink(info.contentType, { url: final, ...this.extract });
    this.streamed = html;
    return {
      write: (chunk: Buffer) => {
        hash.update(chunk);
        html.write(chunk);
      },
      end: () => html.end(),
    };
  };
}
