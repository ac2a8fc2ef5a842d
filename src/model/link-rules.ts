// A target's rules for the links it checks: `remap` (where a link is fetched instead of where it points), `accept`
// (answers that count as fine, per host pattern) and `retries` (how often a failure that may pass is tried again).
// The schema of each and the pure decisions on them live here, so the config and the crawler agree on one meaning.
import { z } from 'zod';

/** A status code or a range `"lo-hi"`, both within 100–599. */
export const STATUS_RULE = 'must be a status code from 100 to 599, or a range of them like "500-599"';
export const RETRIES_MAX = 10;

const statusEntry = z.union([z.number(), z.string()]).superRefine((v, ctx) => {
  if (parseStatusEntry(v) === null) ctx.addIssue({ code: 'custom', message: STATUS_RULE });
});

/** `github.com` (and its subdomains), `*.github.com` (its subdomains only) or `*` (every host). */
const HOST_PATTERN_RE = /^(?:\*|(?:\*\.)?[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)$/;

export const RemapSchema = z
  .array(
    z.tuple(
      [
        z.string().superRefine((s, ctx) => {
          try {
            new RegExp(s);
          } catch (err) {
            ctx.addIssue({ code: 'custom', message: `must be a valid regular expression (${(err as Error).message})` });
          }
        }),
        z.string({ error: 'must be the replacement, a string ($1… name the groups)' }),
      ],
      { error: 'must be a pair [regex, replacement]' },
    ),
    { error: 'must be an array of [regex, replacement] pairs' },
  )
  .default([]);

export const AcceptSchema = z
  .record(
    z.string().regex(HOST_PATTERN_RE, 'each key must be a host name (its subdomains too), *.name or *'),
    z.array(statusEntry, { error: `must be an array of status codes or ranges (${STATUS_RULE})` }).min(1),
    { error: 'must be an object of host pattern → status codes, e.g. {"github.com": [429]}' },
  )
  .default({});

export const RetriesSchema = z
  .object({
    count: z
      .number({ error: `must be a whole number from 0 to ${RETRIES_MAX}` })
      .int({ error: `must be a whole number from 0 to ${RETRIES_MAX}` })
      .min(0, { error: `must be a whole number from 0 to ${RETRIES_MAX}` })
      .max(RETRIES_MAX, { error: `must be at most ${RETRIES_MAX}` })
      .default(0),
    base_ms: z
      .number({ error: 'must be a whole number of milliseconds from 1 to 60000' })
      .int({ error: 'must be a whole number of milliseconds from 1 to 60000' })
      .min(1, { error: 'must be a whole number of milliseconds from 1 to 60000' })
      .max(60_000, { error: 'must be a whole number of milliseconds from 1 to 60000' })
      .default(500),
  })
  .strict()
  .prefault({});

export type RetryPolicy = { count: number; baseMs: number };

/** A status entry as an inclusive range, or null when it is not one within 100–599. */
export function parseStatusEntry(v: number | string): [number, number] | null {
  let lo: number;
  let hi: number;
  if (typeof v === 'number') {
    lo = v;
    hi = v;
  } else {
    const m = /^\s*(\d{3})\s*(?:-\s*(\d{3})\s*)?$/.exec(v);
    if (!m) return null;
    lo = Number(m[1]);
    hi = m[2] === undefined ? lo : Number(m[2]);
  }
  if (!Number.isInteger(lo) || !Number.isInteger(hi) || lo < 100 || hi > 599 || lo > hi) return null;
  return [lo, hi];
}

interface AcceptRule {
  pattern: string;
  ranges: [number, number][];
}

/** One target's rules, compiled once per crawl. */
export interface LinkRules {
  remap: readonly (readonly [RegExp, string])[];
  accept: readonly AcceptRule[];
  retry: RetryPolicy;
}

export const NO_LINK_RULES: LinkRules = { remap: [], accept: [], retry: { count: 0, baseMs: 500 } };

export function compileLinkRules(t: {
  remap: readonly (readonly [string, string])[];
  accept: Record<string, readonly (number | string)[]>;
  retries: { count: number; base_ms: number };
}): LinkRules {
  return {
    remap: t.remap.map(([re, to]) => [new RegExp(re), to] as const),
    accept: Object.entries(t.accept).map(([pattern, codes]) => ({
      pattern: pattern.toLowerCase(),
      ranges: codes.map((c) => parseStatusEntry(c)!),
    })),
    retry: { count: t.retries.count, baseMs: t.retries.base_ms },
  };
}

/** Several targets' rules as one (in target order: the first remap that matches wins; accepts add up; the most retries). */
export function mergeLinkRules(all: readonly LinkRules[]): LinkRules {
  if (all.length === 1) return all[0]!;
  const most = all.reduce((a, r) => (r.retry.count > a.count ? r.retry : a), NO_LINK_RULES.retry);
  return { remap: all.flatMap((r) => r.remap), accept: all.flatMap((r) => r.accept), retry: most };
}

/** Where a link is fetched: the replacement of the first remap pair whose regex matches it; null when none does. */
export function remapUrl(rules: LinkRules, url: string): string | null {
  for (const [re, to] of rules.remap) {
    re.lastIndex = 0;
    if (re.test(url)) {
      re.lastIndex = 0;
      return url.replace(re, to);
    }
  }
  return null;
}

function hostMatches(pattern: string, host: string): boolean {
  if (pattern === '*') return true;
  if (pattern.startsWith('*.')) return host.endsWith(pattern.slice(1));
  return host === pattern || host.endsWith(`.${pattern}`);
}

/** The host pattern under which `status` of a URL of `host` counts as fine, or null. */
export function acceptedBy(rules: LinkRules, host: string, status: number): string | null {
  const h = host.toLowerCase();
  for (const rule of rules.accept)
    if (hostMatches(rule.pattern, h) && rule.ranges.some(([lo, hi]) => status >= lo && status <= hi))
      return rule.pattern;
  return null;
}

/**
 * How long to wait before retry `n` (0 for the first): the server's Retry-After when it gave one, else
 * base·2ⁿ with jitter (between half and one and a half of it, so many links failing together do not retry
 * together); never above maxMs.
 */
export function retryDelayMs(
  policy: RetryPolicy,
  n: number,
  retryAfterMs: number | undefined,
  maxMs: number,
  random: () => number = Math.random,
): number {
  const wait = retryAfterMs ?? policy.baseMs * 2 ** n * (0.5 + random());
  return Math.round(Math.min(maxMs, wait));
}
