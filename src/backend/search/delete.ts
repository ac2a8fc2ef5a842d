// Deleting pages from the store and the index by exact URL, without crawling them.
import type { TargetConfig } from '../../config/schema.js';
import { BackendError } from '../errors.js';
import type { Store } from '../store/store.js';
import type { DeletePagesResult } from '../types.js';

export const DELETE_URLS_MAX = 50;

const DEFAULT_PORT: Record<string, string> = { http: '80', https: '443' };

/** A target's host as URL.host writes it (lower case, default port left out). */
function targetHost(t: TargetConfig): string {
  const host = t.host.toLowerCase();
  const port = DEFAULT_PORT[t.scheme];
  return port && host.endsWith(`:${port}`) ? host.slice(0, -port.length - 1) : host;
}

/** The URL, parsed, when it is a full http(s) URL on one of the targets; else a message naming the rule. */
export function checkSiteUrl(raw: unknown, targets: TargetConfig[]): URL | string {
  if (typeof raw !== 'string' || !raw) return 'must be a full URL string';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `"${raw.slice(0, 200)}" is not a full URL (e.g. https://example.org/page)`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL';
  const hosts = targets.map(targetHost);
  if (!hosts.includes(url.host)) {
    return hosts.length ? `host ${url.host} is not a configured target (${hosts.join(', ')})` : 'no target is configured';
  }
  return url;
}

/**
 * Removes the pages stored under the given URLs (1–50), with their tags, links and index entries, in one
 * transaction. A URL matches its page exactly as given or in its normalized form (`new URL(u).href`).
 */
export function deletePages(store: Store, targets: TargetConfig[], urls: string[]): DeletePagesResult {
  if (!Array.isArray(urls)) throw new BackendError('invalid_input', 'urls: must be an array of URLs');
  if (urls.length < 1 || urls.length > DELETE_URLS_MAX) {
    throw new BackendError('invalid_input', `urls: must hold 1 to ${DELETE_URLS_MAX} URLs (got ${urls.length})`);
  }
  const problems: string[] = [];
  const parsed = urls.map((u, i) => {
    const r = checkSiteUrl(u, targets);
    if (typeof r === 'string') problems.push(`urls[${i}]: ${r}`);
    return r;
  });
  if (problems.length) throw new BackendError('invalid_input', problems.join('; '));

  const del = store.db.prepare('DELETE FROM pages WHERE url = ?');
  const deleted: string[] = [];
  const notFound: string[] = [];
  store.tx(() => {
    const seen = new Set<string>();
    urls.forEach((raw, i) => {
      if (seen.has(raw)) return;
      seen.add(raw);
      const href = (parsed[i] as URL).href;
      const n = del.run(raw).changes + (href !== raw ? del.run(href).changes : 0);
      (n > 0 ? deleted : notFound).push(raw);
    });
  });
  return { deleted, notFound };
}
