// Worker thread: turns page bodies into extracted pages (html.ts) off the main thread.
import { parentPort } from 'node:worker_threads';
import { HtmlSink, type ExtractOptions } from './html.js';

export interface ParseRequest {
  id: number;
  body: Uint8Array;
  contentType: string | null;
  opts: ExtractOptions;
}

parentPort!.on('message', (m: ParseRequest) => {
  try {
    const sink = new HtmlSink(m.contentType, m.opts);
    sink.write(Buffer.from(m.body.buffer, m.body.byteOffset, m.body.byteLength));
    sink.end();
    parentPort!.postMessage({ id: m.id, page: sink.page });
  } catch (err) {
    parentPort!.postMessage({ id: m.id, error: err instanceof Error ? err.message : String(err) });
  }
});
