// Client ID Metadata Documents: a client whose client_id is an https URL publishes its metadata at that URL, so
// it needs no registration. The document is fetched by a function the composition root hands in (it goes through
// the crawler's address policy, capped in size and time), checked by the rules every client's metadata meets, and
// kept for as long as its HTTP cache headers allow, 24 hours at most. A document that fails is an OAuth error
// naming why, and nothing of it is kept.
import { LRUCache } from 'lru-cache';
import { checkClientMetadata, type OAuthClient } from './client-metadata.js';
import { OAuthError } from './errors.js';

/** What the fetch of a document gives; it throws (with a message saying why) when it cannot fetch. */
export interface FetchedDocument {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}
export type DocumentFetch = (url: string) => Promise<FetchedDocument>;

/** A client known by its metadata document: the host it was fetched from is shown on the consent page. */
export interface DocumentClient extends OAuthClient {
  metadata_document_host: string;
}

const MAX_CACHE_S = 24 * 3600;
const MAX_URL = 2000;

/** Whether a client_id names a metadata document (every registered client_id is a UUID). */
export function isDocumentClientId(clientId: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(clientId);
}

/** Why this client_id cannot be a metadata document's URL, or null (the URL rules of the CIMD draft). */
export function documentUrlProblem(clientId: string): string | null {
  if (clientId.length > MAX_URL) return `at most ${MAX_URL} characters`;
  let u: URL;
  try {
    u = new URL(clientId);
  } catch {
    return 'is not a URL';
  }
  if (!clientId.startsWith('https://')) return 'a URL client_id must use https';
  if (u.username || u.password || clientId.slice(8).split('/')[0]!.includes('@'))
    return 'must not carry a user name or password';
  if (clientId.includes('#')) return 'must not have a fragment';
  if (u.pathname === '/') return 'must have a path (the document is not the site root)';
  if (
    clientId
      .split(/[?]/)[0]!
      .split('/')
      .some((seg) => seg === '.' || seg === '..')
  )
    return 'must not contain "." or ".." path segments';
  if (u.href !== clientId) return `must be written in its normal form (${u.href})`;
  return null;
}

/** Seconds the answer may be kept: Cache-Control max-age (no-store, no-cache: not at all), at most 24 hours. */
export function documentLifetime(headers: FetchedDocument['headers']): number {
  const raw = headers['cache-control'];
  const cc = (Array.isArray(raw) ? raw.join(',') : (raw ?? '')).toLowerCase();
  if (/(^|[,\s])(no-store|no-cache)\b/.test(cc)) return 0;
  const m = /(?:^|[,\s])max-age\s*=\s*"?(\d+)"?/.exec(cc);
  return m ? Math.min(Number(m[1]), MAX_CACHE_S) : 0;
}

/** The client a fetched document describes, or the OAuth error that says why it cannot be used. PURE. */
export function clientFromDocument(clientId: string, doc: FetchedDocument): DocumentClient {
  const fail = (why: string) =>
    new OAuthError('invalid_client', `client_id: the metadata document at ${clientId} ${why}`);
  if (doc.status !== 200) throw fail(`answered HTTP ${doc.status} (it must answer 200 with the document)`);
  let json: unknown;
  try {
    json = JSON.parse(doc.body.toString('utf8'));
  } catch {
    throw fail('is not JSON');
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw fail('is not a JSON object');
  const record = json as Record<string, unknown>;
  if (record.client_id !== clientId)
    throw fail(`names another client_id (${JSON.stringify(record.client_id)}); it must be its own URL`);
  if ('client_secret' in record || 'client_secret_expires_at' in record) throw fail('must not contain a client_secret');
  let client: OAuthClient;
  try {
    client = checkClientMetadata(record, clientId, { secretRefused: true, nameRequired: true });
  } catch (err) {
    throw err instanceof OAuthError ? fail(`is not acceptable: ${err.message}`) : err;
  }
  return { ...client, metadata_document_host: new URL(clientId).host };
}

export interface MetadataDocumentsOptions {
  fetch: DocumentFetch;
  /** Documents remembered at most (default 1000). */
  maxEntries?: number;
  /** Clock in ms (tests move it). */
  now?: () => number;
}

/** The documents of URL client ids, fetched on first use and kept while their cache headers allow. */
export class MetadataDocuments {
  private readonly cache: LRUCache<string, DocumentClient>;

  constructor(private readonly opts: MetadataDocumentsOptions) {
    const now = opts.now ?? Date.now;
    this.cache = new LRUCache({ max: opts.maxEntries ?? 1000, ttlAutopurge: false, perf: { now } });
  }

  /** The client of this URL client_id; an OAuthError (invalid_client) when its document cannot be had or used. */
  async client(clientId: string): Promise<DocumentClient> {
    const problem = documentUrlProblem(clientId);
    if (problem) throw new OAuthError('invalid_client', `client_id: "${clientId.slice(0, 200)}" ${problem}`);
    const kept = this.cache.get(clientId);
    if (kept) return kept;
    let doc: FetchedDocument;
    try {
      doc = await this.opts.fetch(clientId);
    } catch (err) {
      throw new OAuthError(
        'invalid_client',
        `client_id: the metadata document at ${clientId} could not be fetched: ${(err as Error).message}`,
      );
    }
    const client = clientFromDocument(clientId, doc);
    const lifetime = documentLifetime(doc.headers);
    if (lifetime > 0) this.cache.set(clientId, client, { ttl: lifetime * 1000 });
    return client;
  }
}
