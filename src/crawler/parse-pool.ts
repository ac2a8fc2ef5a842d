// HTML parsing on worker threads: bodies go out (transferred, not copied), extracted pages come back.
import { Worker } from 'node:worker_threads';
import type { ExtractedPage, ExtractOptions } from './html/extractor.js';
import { extractHtmlBody } from './html/sink.js';
import type { ParseRequest } from './parse-worker.js';
import { parserThreads, WORKER_LIMITS, workerScript } from '../lib/workers.js';

interface Pending {
  resolve: (p: ExtractedPage) => void;
  reject: (e: Error) => void;
}

export class ParsePool {
  private readonly workers: { w: Worker; busy: number }[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private failed: Error | null = null;

  /** size 0, or no compiled worker script: parse in this thread. */
  constructor(size = parserThreads()) {
    const script = size > 0 ? workerScript('parse-worker', import.meta.url) : null;
    if (!script) return;
    for (let i = 0; i < size; i++) {
      const w = new Worker(script, { resourceLimits: WORKER_LIMITS });
      const slot = { w, busy: 0 };
      w.on('message', (m: { id: number; page?: ExtractedPage; error?: string }) => {
        slot.busy--;
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        if (m.page) p.resolve(m.page);
        else p.reject(new Error(m.error ?? 'parse failed'));
      });
      w.on('error', (err) => this.fail(err));
      w.unref();
      this.workers.push(slot);
    }
  }

  /** Whether bodies go to worker threads (else the caller should stream them into an HtmlSink itself). */
  get threaded(): boolean {
    return this.workers.length > 0 && !this.failed;
  }

  /** Parses the body given as chunks (joined into one buffer of its own, which is handed to the thread, not copied). */
  parse(chunks: Buffer[], contentType: string | null, opts: ExtractOptions): Promise<ExtractedPage> {
    if (!this.threaded) return Promise.resolve(extractHtmlBody(Buffer.concat(chunks), contentType, opts));
    const slot = this.workers.reduce((a, b) => (b.busy < a.busy ? b : a));
    const id = this.nextId++;
    // Not Buffer.concat: its result may be a slice of the shared pool, which cannot be transferred.
    const copy = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
    let at = 0;
    for (const c of chunks) {
      copy.set(c, at);
      at += c.length;
    }
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      slot.busy++;
      const req: ParseRequest = { id, body: copy, contentType, opts };
      slot.w.postMessage(req, [copy.buffer]);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((s) => s.w.terminate()));
    this.workers.length = 0;
    this.fail(new Error('parser closed'));
  }

  private fail(err: Error): void {
    this.failed ??= err;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }
}
