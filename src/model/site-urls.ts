// URLs of configured targets, for every layer: a target's origin and canonical host, and the one rule that a URL
// given by a caller (manual crawl, page deletion) is a full http(s) URL on a configured target.
import type { TargetConfig } from './config.js';

/** The origin a target setting describes, e.g. ("127.0.0.1:8080", "http") → "http://127.0.0.1:8080". */
export function targetOrigin(host: string, scheme: string): string {
  return new URL(`${scheme}://${host}/`).origin;
}

/** The canonical host[:port] of a target (so `example.org:443` with https becomes `example.org`). */
export function canonicalTargetHost(host: string, scheme: string): string {
  return new URL(`${scheme}://${host}/`).host;
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
  const hosts = targets.map((t) => canonicalTargetHost(t.host, t.scheme));
  if (!hosts.includes(url.host)) {
    return hosts.length ? `host ${url.host} is not a configured target (${hosts.join(', ')})` : 'no target is configured';
  }
  return url;
}
