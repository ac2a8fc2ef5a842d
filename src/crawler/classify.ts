// Turns what a fetch came back with into a link outcome: reason, http_status, message, redirects_to.
// PURE: the one place that decides the outcome of a fetch or link check (model/link-reasons says which are broken).
import type { IncomingHttpHeaders } from 'node:http';
import type { LinkOutcomeReason } from '../model/link-reasons.js';

// Read off the CommonJS module: an ES import of node:http builds its facade, whose lazy exports load Node's own
// copy of undici (tens of milliseconds of start-up a crawl does not need: it fetches with the undici package).
const { STATUS_CODES } = process.getBuiltinModule('node:http');

/** Why nothing usable came back. */
export type FailureKind =
  | 'timeout' // no complete answer within request_timeout_ms
  | 'refused' // nothing listens there
  | 'dns' // the host name does not resolve
  | 'reset' // the connection broke
  | 'tls' // certificate or handshake failure
  | 'network' // any other transport error
  | 'redirect_loop'
  | 'too_many_redirects'
  | 'bad_redirect' // a Location that is not an http(s) URL
  | 'blocked' // the address policy refused to connect
  | 'rate_limited' // the site kept answering 429/503 + Retry-After after every retry
  | 'aborted'; // the crawl was stopped

/** One redirect answer of a chain, in order. */
export interface Hop {
  url: string;
  status: number;
  location: string;
}

export type FetchSummary =
  | {
      ok: true;
      url: string;
      finalUrl: string;
      status: number;
      hops: Hop[];
      headers?: IncomingHttpHeaders;
      /** The chain ended at a URL the caller has already (not asked for again): status is the last redirect's. */
      known?: boolean;
    }
  | { ok: false; url: string; finalUrl: string; failure: FailureKind; detail: string; hops: Hop[]; status?: number };

export interface Classification {
  reason: LinkOutcomeReason;
  /** 0 when nothing answered. */
  httpStatus: number;
  message: string;
  /** The final URL of a redirect chain; null when the link did not redirect. */
  redirectsTo: string | null;
  /** A bot or rate-limit block answered, not the page: the reason stays, the message starts `blocked:`. */
  blocked?: boolean;
}

/** Response headers that mark an answer as a bot challenge rather than the page, with the values that do. */
const CHALLENGE_HEADERS: readonly (readonly [string, RegExp])[] = [
  ['cf-mitigated', /challenge/i],
  ['x-amzn-waf-action', /challenge|captcha/i],
];

/**
 * What marks an answer as a bot or rate-limit block: status 999 (answered to crawlers by some sites), or a
 * 403/429/503 that carries a challenge header. null for any other answer.
 */
export function blockMarker(status: number, headers: IncomingHttpHeaders | undefined): string | null {
  if (status === 999) return 'status 999, sent to crawlers';
  if ((status !== 403 && status !== 429 && status !== 503) || !headers) return null;
  for (const [name, values] of CHALLENGE_HEADERS) {
    const raw = headers[name];
    const v = Array.isArray(raw) ? raw[0] : raw;
    if (v && values.test(v)) return `${name}: ${v.slice(0, 60)}`;
  }
  return null;
}

/** The reason an HTTP status stands for on its own (a 3xx only means "redirect" when it led somewhere). */
export function reasonForStatus(status: number): LinkOutcomeReason {
  if (status >= 200 && status < 300) return 'ok';
  if (status === 404 || status === 410) return 'not_found';
  if (status === 401 || status === 403 || status === 451) return 'forbidden';
  if (status >= 300 && status < 400) return 'redirect';
  // Any other 4xx or 5xx is an answer "with a failure" (spec: serverError section).
  return 'server_error';
}

export function statusText(status: number): string {
  const text = STATUS_CODES[status];
  return text ? `${status} ${text}` : `HTTP ${status}`;
}

const FAILURE_TEXT: Record<FailureKind, string> = {
  timeout: 'timed out',
  refused: 'connection refused',
  dns: 'host name not found',
  reset: 'connection reset',
  tls: 'TLS error',
  network: 'network error',
  redirect_loop: 'redirect loop',
  too_many_redirects: 'too many redirects',
  bad_redirect: 'redirect to a URL that cannot be fetched',
  blocked: 'not checked: refused by the address policy',
  rate_limited: 'not checked: the site kept asking to slow down',
  aborted: 'not checked: the crawl was stopped',
};

function chainText(hops: Hop[], last: string): string {
  const parts = hops.slice(0, 6).map((h) => `${h.url} (${h.status})`);
  if (hops.length > 6) parts.push(`… ${hops.length - 6} more`);
  parts.push(last);
  return parts.join(' → ');
}

/**
 * A link, or a redirect, into address space the policy refuses (loopback, private, link-local… not a target's).
 * Visitors outside that network meet a broken page, but svc never connected, so it cannot say the link is broken
 * (an intranet site's links to other intranet hosts work for its visitors): `unknown`, which the report lists
 * and no crawl counts as an error, with a message naming the address and the rule. A redirect keeps its first
 * hop's status and names the refused URL as where it leads.
 */
export function refusedAddressOutcome(hops: Hop[], finalUrl: string, why: string): Classification {
  if (!hops.length)
    return { reason: 'unknown', httpStatus: 0, message: `${FAILURE_TEXT.blocked}: ${why}`, redirectsTo: null };
  const message = `not checked: redirected to an address the policy refuses: ${chainText(hops, finalUrl)}; ${why}`;
  return { reason: 'unknown', httpStatus: hops[0]!.status, message, redirectsTo: finalUrl };
}

export function classify(s: FetchSummary): Classification {
  const c = classifyAnswer(s);
  const marker = s.ok ? blockMarker(s.status, s.headers) : null;
  // A block says nothing about the link itself: it keeps its reason, and says so.
  return marker ? { ...c, message: `blocked: ${c.message} (${marker})`, blocked: true } : c;
}

function classifyAnswer(s: FetchSummary): Classification {
  if (!s.ok) {
    const base = FAILURE_TEXT[s.failure];
    const message = s.detail ? `${base}: ${s.detail}` : base;
    // Being asked to slow down says nothing about the link: never report it as broken.
    if (s.failure === 'rate_limited')
      return { reason: 'skipped', httpStatus: s.status ?? 429, message, redirectsTo: null };
    if (s.failure === 'blocked') return refusedAddressOutcome(s.hops, s.finalUrl, s.detail);
    if (s.failure === 'aborted') return { reason: 'unknown', httpStatus: 0, message, redirectsTo: null };
    if (s.hops.length) {
      const first = s.hops[0]!;
      return {
        reason: 'server_error',
        httpStatus: first.status,
        message: `${base}: ${chainText(s.hops, s.detail || s.finalUrl)}`,
        redirectsTo: null,
      };
    }
    return { reason: 'server_error', httpStatus: s.status ?? 0, message, redirectsTo: null };
  }
  const own = reasonForStatus(s.status);
  if (s.known && s.hops.length) {
    // A redirect to a page the crawl has: that page's own outcome says how it answers.
    const first = s.hops[0]!;
    return {
      reason: 'redirect',
      httpStatus: first.status,
      message: `${statusText(first.status)}: ${chainText(s.hops, s.finalUrl)}`,
      redirectsTo: s.finalUrl,
    };
  }
  if (!s.hops.length) {
    if (own === 'redirect')
      return {
        reason: 'server_error',
        httpStatus: s.status,
        message: `${statusText(s.status)} without a usable Location`,
        redirectsTo: null,
      };
    return { reason: own, httpStatus: s.status, message: statusText(s.status), redirectsTo: null };
  }
  const first = s.hops[0]!;
  if (own === 'ok') {
    return {
      reason: 'redirect',
      httpStatus: first.status,
      message: `${statusText(first.status)}: ${chainText(s.hops, `${s.finalUrl} (${s.status})`)}`,
      redirectsTo: s.finalUrl,
    };
  }
  // A redirect to a broken page is broken: report the final answer, and where it was found.
  const finalReason = own === 'redirect' ? 'server_error' : own;
  return {
    reason: finalReason,
    httpStatus: s.status,
    message: `${statusText(s.status)} after redirects: ${chainText(s.hops, `${s.finalUrl} (${s.status})`)}`,
    redirectsTo: s.finalUrl,
  };
}
