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

/** The canonical hosts of the targets: how pages, links and search entries name them. */
export function canonicalTargetHosts(targets: readonly Pick<TargetConfig, 'host' | 'scheme'>[]): string[] {
  return targets.map((t) => canonicalTargetHost(t.host, t.scheme));
}

/** The configured target a caller names (its host as configured, or canonical; any case), or undefined. */
export function findTarget<T extends Pick<TargetConfig, 'host' | 'scheme'>>(
  name: string,
  targets: readonly T[],
): T | undefined {
  const wanted = name.trim().toLowerCase();
  return targets.find((t) => t.host.toLowerCase() === wanted || canonicalTargetHost(t.host, t.scheme) === wanted);
}

export interface SiteUrlOptions {
  /** List the configured targets in the message (never for a caller who may not know them). Default true. */
  revealTargets?: boolean;
}

/**
 * The URL, parsed, when it is a full http(s) URL on one of the targets, with the target's scheme; else a message
 * naming the rule. Hosts compare in canonical form (case, default port, punycode).
 */
export function checkSiteUrl(raw: unknown, targets: readonly TargetConfig[], opts: SiteUrlOptions = {}): URL | string {
  if (typeof raw !== 'string' || !raw) return 'must be a full URL string';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `"${raw.slice(0, 200)}" is not a full URL (e.g. https://example.org/page)`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL';
  const target = targets.find((t) => canonicalTargetHost(t.host, t.scheme) === url.host);
  if (!target) {
    if (!targets.length) return 'no target is configured';
    const list = opts.revealTargets === false ? '' : ` (${canonicalTargetHosts(targets).join(', ')})`;
    return `host ${url.host} is not a configured target${list}`;
  }
  if (url.protocol !== `${target.scheme}:`) return `must be a ${target.scheme}:// URL, like its target ${target.host}`;
  return url;
}
