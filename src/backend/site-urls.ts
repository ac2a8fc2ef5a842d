// The rule that a URL given by a caller (manual crawl, page deletion) is a full http(s) URL on a configured target.
import type { TargetConfig } from '../config/schema.js';
import { canonicalTargetHost } from '../crawler/urls.js';

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
