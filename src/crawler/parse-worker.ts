// Worker thread: turns page bodies into extracted pages (html/) off the main thread.
import { parentPort } from 'node:worker_threads';
import type { ExtractOptions } from './html/extractor.js';
import { extractHtmlBody } from './html/sink.js';

export interface ParseRequest {
  id: number;
  body: Uint8Array;
  contentType: string | null;
  opts: ExtractOptions;
}

parentPort!.on('message', (m: ParseRequest) => {
  try {
    const page = extractHtmlBody(
      Buffer.from(m.body.buffer, m.body.byteOffset, m.body.byteLength),
      m.contentType,
      m.opts,
    );
    parentPort!.postMessage({ id: m.id, page });
  } catch (err) {
    parentPort!.postMessage({ id: m.id, error: err instanceof Error ? err.message : String(err) });
  }
});
