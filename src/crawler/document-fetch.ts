// One small document fetched under the address policy, as the crawler fetches pages: the sign-in asks for a
// client's metadata document at an address the client chose, so that fetch must not reach a private or loopback
// address, must not wait long, and must not read much. No redirects are followed (the document must be at its
// own URL). Each failure is an error whose message says why, without naming an address.
import { Agent, type buildConnector } from '../lib/undici-agent.js';
import { readCapped } from '../lib/read-capped.js';
import type { AddressPolicy } from './address-policy.js';
import { DEFAULT_USER_AGENT } from './fetcher.js';
import { guardedConnector, type HostLookup } from './guarded-connector.js';

export interface DocumentFetchOptions {
  policy: AddressPolicy;
  /** Whole request: connect, headers and body (default 5 s). */
  timeoutMs?: number;
  /** Largest body read (default 5 KB). */
  maxBytes?: number;
  /** More TLS options (a test's own CA). */
  tls?: buildConnector.BuildOptions;
  lookup?: HostLookup;
}

export interface FetchedDocument {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A network error's text without the IP addresses (and ports) it names, e.g. "connect ECONNREFUSED 10.0.0.5:443". */
export function withoutAddresses(text: string): string {
  return text
    .replace(/\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b/g, '<address>')
    .replace(/\[?(?:[0-9a-f]{0,4}:){2,}[0-9a-f]{0,4}\]?(?::\d+)?/gi, '<address>');
}

/** A fetch of one https document; close() ends its connections. */
export function createDocumentFetch(
  opts: DocumentFetchOptions,
): ((url: string) => Promise<FetchedDocument>) & { close(): Promise<void> } {
  const timeoutMs = opts.timeoutMs ?? 5000;
  const maxBytes = opts.maxBytes ?? 5 * 1024;
  const agent = new Agent({
    connect: guardedConnector(opts.policy, timeoutMs, opts.lookup, opts.tls),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  const fetchDocument = async (url: string): Promise<FetchedDocument> => {
    const u = new URL(url);
    if (u.protocol !== 'https:') throw new Error('only https documents are fetched');
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const res = await agent.request({
        origin: u.origin,
        path: `${u.pathname}${u.search}`,
        method: 'GET',
        headers: { accept: 'application/json', 'user-agent': DEFAULT_USER_AGENT },
        signal,
      });
      const length = Number(res.headers['content-length']);
      if (length > maxBytes) {
        res.body.destroy();
        throw new Error(`it is larger than ${maxBytes} bytes`);
      }
      const body = await readCapped(res.body, maxBytes, () => {
        res.body.destroy();
        return new Error(`it is larger than ${maxBytes} bytes`);
      });
      return { status: res.statusCode, headers: res.headers, body };
    } catch (err) {
      if (signal.aborted) throw new Error(`no answer within ${timeoutMs / 1000} s`);
      const e = err as Error & { code?: string };
      // The messages go to whoever asked for the sign-in page, signed in or not: they name no address a name
      // resolves to, and no address of a failed connection, so this fetch cannot map the server's network.
      if (e.code === 'SVC_ADDRESS_BLOCKED')
        throw new Error(
          'its host is not one svc may fetch from (public addresses only, unless oauth.cimd_allow_hosts lists it)',
        );
      if (
        e.code === 'UND_ERR_HEADERS_TIMEOUT' ||
        e.code === 'UND_ERR_BODY_TIMEOUT' ||
        e.code === 'UND_ERR_CONNECT_TIMEOUT'
      )
        throw new Error(`no answer within ${timeoutMs / 1000} s`);
      const text = withoutAddresses(e.message);
      throw new Error(e.code && !text.includes(e.code) ? `${e.code}: ${text}` : text);
    }
  };
  return Object.assign(fetchDocument, { close: () => agent.close() });
}
