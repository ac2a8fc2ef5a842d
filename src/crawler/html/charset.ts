// Which character set a page's bytes are in: the Content-Type header's charset, else a BOM or a <meta charset>
// in the first bytes, else UTF-8. Pure.
import { TextDecoder } from 'node:util';

/** charset=… of a Content-Type header. */
export function charsetOf(contentType: string | null | undefined): string | null {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '');
  return match ? match[1]!.toLowerCase() : null;
}

/** BOM or `<meta charset>` / http-equiv in the first bytes of a document. */
export function sniffCharset(head: Buffer): string | null {
  if (head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return 'utf-8';
  if (head.length >= 2 && head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  if (head.length >= 2 && head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  const start = head.subarray(0, 2048).toString('latin1');
  const match = /<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)/i.exec(start);
  return match ? match[1]!.toLowerCase() : null;
}

/** A decoder for a charset label; UTF-8 when there is none or it is unknown. */
export function decoderFor(label: string | null): TextDecoder {
  if (label) {
    try {
      return new TextDecoder(label);
    } catch {
      // unknown label: fall through to UTF-8
    }
  }
  return new TextDecoder('utf-8');
}
