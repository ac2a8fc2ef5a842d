// Body caps: a response body read decoded (gzip, deflate, br) into a sink and cut at a byte limit of raw or decoded
// data, so a 50 MB page, an endless body or a gzip bomb costs at most the limit; an unread body is drained or dropped.
import type { Readable, Transform } from 'node:stream';
import zlib from 'node:zlib';

/** Decoded bytes kept of one page; the rest is cut off (a 50 MB page or an endless body stops here). */
export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;

/** Receives the decoded body of the final answer, chunk by chunk. */
export interface BodySink {
  write(chunk: Buffer): void;
  end(): void;
}

/** Reads a small body to keep the connection reusable; a big one closes it instead. */
export async function discard(body: Readable & { dump?: (o?: { limit: number }) => Promise<void> }): Promise<void> {
  try {
    if (body.dump) await body.dump({ limit: 64 * 1024 });
    else body.destroy();
  } catch {
    body.destroy();
  }
}

function decoderFor(encoding: string | undefined): Transform | null {
  const enc = (encoding ?? '').trim().toLowerCase();
  // finishFlush: a truncated stream yields what it has instead of an error.
  if (enc === 'gzip' || enc === 'x-gzip') return zlib.createGunzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH });
  if (enc === 'deflate') return zlib.createInflate({ finishFlush: zlib.constants.Z_SYNC_FLUSH });
  if (enc === 'br') return zlib.createBrotliDecompress();
  return null;
}

/** Streams the (decoded) body into the sink; stops at maxBytes of either raw or decoded data. Resolves with whether it cut. */
export function pump(body: Readable, encoding: string | undefined, sink: BodySink, maxBytes: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const decoder = decoderFor(encoding);
    const source: Readable = decoder ?? body;
    let raw = 0;
    let bytes = 0;
    let done = false;
    const finish = (err: unknown, truncated = false) => {
      if (done) return;
      done = true;
      source.off('data', onData);
      if (truncated) {
        body.destroy();
        decoder?.destroy();
      }
      if (err) return reject(err);
      try {
        sink.end();
      } catch (e) {
        return reject(e);
      }
      resolve(truncated);
    };
    const onData = (c: Buffer) => {
      if (done) return;
      try {
        if (bytes + c.length > maxBytes) {
          if (maxBytes > bytes) sink.write(c.subarray(0, maxBytes - bytes));
          bytes = maxBytes;
          return finish(null, true);
        }
        bytes += c.length;
        sink.write(c);
        if (raw > maxBytes) finish(null, true);
      } catch (e) {
        finish(e, true);
      }
    };
    if (decoder) {
      body.on('data', (c: Buffer) => void (raw += c.length));
      body.on('error', (e) => decoder.destroy(e));
      body.pipe(decoder);
    }
    source.on('data', onData);
    source.once('end', () => finish(null));
    source.once('error', (e) => finish(e));
    source.once('close', () =>
      finish(Object.assign(new Error('the body ended early'), { code: 'ERR_STREAM_PREMATURE_CLOSE' })),
    );
  });
}
