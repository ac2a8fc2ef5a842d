// Where a page's body bytes meet the extractor: decoded by the charset the header, a BOM or a <meta> names, and
// parsed as they come (from the fetch layer) or all at once (on a parser thread).
import type { TextDecoder } from 'node:util';
import type { BodySink } from '../response-body.js';
import { charsetOf, decoderFor, sniffCharset } from './charset.js';
import { HtmlExtractor, type ExtractedPage, type ExtractOptions } from './extractor.js';

/** Bytes held back before the charset is decided (enough for a <meta charset> near the top). */
const SNIFF_BYTES = 1024;

/** Receives a page's body bytes from the fetch layer, decodes them (charset from the header, BOM or meta) and parses as they come. */
export class HtmlSink implements BodySink {
  private decoder: TextDecoder | null = null;
  private pending: Buffer[] = [];
  private pendingLength = 0;
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
      this.pendingLength += chunk.length;
      if (this.pendingLength < SNIFF_BYTES) return;
      this.start();
      return;
    }
    this.extractor.write(this.decoder.decode(chunk, { stream: true }));
  }

  end(): void {
    const decoder = this.decoder ?? this.start();
    this.extractor.write(decoder.decode());
    this.result = this.extractor.end();
  }

  /** The extraction, once end() ran. */
  get page(): ExtractedPage | null {
    return this.result;
  }

  private start(): TextDecoder {
    const head = Buffer.concat(this.pending);
    this.pending = [];
    const decoder = decoderFor(charsetOf(this.contentType) ?? sniffCharset(head));
    this.decoder = decoder;
    if (head.length) this.extractor.write(decoder.decode(head, { stream: true }));
    return decoder;
  }
}

/** A whole body, decoded by its Content-Type charset (or what the bytes say), extracted in one go. */
export function extractHtmlBody(body: Buffer, contentType: string | null, opts: ExtractOptions): ExtractedPage {
  const sink = new HtmlSink(contentType, opts);
  sink.write(body);
  sink.end();
  return sink.page!;
}
