// The signed requestState of a confirmed destructive call. A client that is asked to confirm a delete comes back
// with a retry carrying the state it was given; nothing but the state connects the two calls (no session), and the
// state passes through the client, so it is signed (HMAC-SHA256) and bound to who asked, which tool, which URLs and
// until when. Pure: the key is an argument; reading or making it is request-state-key.ts's job.
//
// Wire form: `rs1.<payload>.<mac>`, both base64url; the payload is JSON {v, exp, tool, user, urls} where `user` and
// `urls` are keyed tags (HMAC of the value under the same key, domain-separated), so the state names no user and
// lists no URL, yet a mismatch of either is told apart from a forged state. `tool` is a public name, kept in clear.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How long a client has to answer a confirmation. */
export const REQUEST_STATE_TTL_MS = 10 * 60 * 1000;
/** The key's length in bytes. */
export const REQUEST_STATE_KEY_BYTES = 32;
/** States longer than this are refused unread (ours are about 200 characters). */
const MAX_STATE_LENGTH = 1024;
const PREFIX = 'rs1';

/** What a state is bound to. `user` is the caller's stable id (the same text on the retry); `urls` a set. */
export interface RequestStateClaims {
  user: string;
  tool: string;
  urls: readonly string[];
  /** Milliseconds since the epoch. */
  expiresAt: number;
}

export type RequestStateFailure = 'malformed' | 'tampered' | 'expired' | 'other_user' | 'other_tool' | 'changed_urls';

export type RequestStateCheck =
  | { ok: true; expiresAt: number }
  | { ok: false; reason: RequestStateFailure; message: string };

const MESSAGES: Record<RequestStateFailure, string> = {
  malformed: 'requestState is not one this server issued: it is not in the form rs1.<payload>.<signature>',
  tampered: 'requestState failed its signature check: it was changed, or signed with another key',
  expired: `requestState has expired: a confirmation must be answered within ${REQUEST_STATE_TTL_MS / 60000} minutes; call the tool again to be asked again`,
  other_user: 'requestState was issued to another user',
  other_tool: 'requestState was issued for another tool',
  changed_urls:
    'requestState was issued for another list of URLs: call the tool again with the new list to be asked again',
};

/** When a state signed at `now` expires. */
export function requestStateExpiry(now: number): number {
  return now + REQUEST_STATE_TTL_MS;
}

function assertKey(key: Buffer): void {
  if (key.length !== REQUEST_STATE_KEY_BYTES)
    throw new RangeError(`request state key must be ${REQUEST_STATE_KEY_BYTES} bytes, not ${key.length}`);
}

function hmac(key: Buffer, domain: string, data: string): Buffer {
  return createHmac('sha256', key).update(`svc.requestState.${domain}\0`, 'utf8').update(data, 'utf8').digest();
}

/**
 * The URL list as a set: sorted, duplicates dropped, then JSON (which delimits every member, so no two lists share
 * an encoding). A set, because what is deleted does not depend on the order or on repeats: a retry that lists the
 * same URLs in another order deletes exactly what was confirmed, and any URL added or dropped needs a new confirmation.
 */
export function canonicalUrlSet(urls: readonly string[]): string {
  return JSON.stringify([...new Set(urls)].sort());
}

function tag(key: Buffer, domain: string, value: string): string {
  return hmac(key, domain, value).subarray(0, 16).toString('base64url');
}

interface Payload {
  v: 1;
  exp: number;
  tool: string;
  user: string;
  urls: string;
}

/** An opaque string binding `claims`, signed with `key` (32 bytes). */
export function signRequestState(key: Buffer, claims: RequestStateClaims): string {
  assertKey(key);
  if (!Number.isSafeInteger(claims.expiresAt))
    throw new RangeError('expiresAt must be an integer number of milliseconds');
  const payload: Payload = {
    v: 1,
    exp: claims.expiresAt,
    tool: claims.tool,
    user: tag(key, 'user', claims.user),
    urls: tag(key, 'urls', canonicalUrlSet(claims.urls)),
  };
  const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  return `${PREFIX}.${body}.${hmac(key, 'mac', body).toString('base64url')}`;
}

function equalTags(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

function fail(reason: RequestStateFailure): RequestStateCheck {
  return { ok: false, reason, message: MESSAGES[reason] };
}

function parsePayload(body: string): Payload | null {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  const p = value as Partial<Payload> | null;
  if (
    !p ||
    typeof p !== 'object' ||
    p.v !== 1 ||
    !Number.isSafeInteger(p.exp) ||
    typeof p.tool !== 'string' ||
    typeof p.user !== 'string' ||
    typeof p.urls !== 'string'
  )
    return null;
  return p as Payload;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * Whether `state` was signed with `key` for this user, tool and URL set, and has not expired at `now`. The signature
 * is checked first (in constant time), so nothing of a forged state is believed, not even its expiry.
 */
export function verifyRequestState(
  key: Buffer,
  state: unknown,
  expected: { user: string; tool: string; urls: readonly string[]; now: number },
): RequestStateCheck {
  assertKey(key);
  if (typeof state !== 'string' || state.length > MAX_STATE_LENGTH) return fail('malformed');
  const parts = state.split('.');
  if (parts.length !== 3 || parts[0] !== PREFIX || !BASE64URL.test(parts[1]!) || !BASE64URL.test(parts[2]!))
    return fail('malformed');
  const [, body, mac] = parts as [string, string, string];
  const given = Buffer.from(mac, 'base64url');
  const wanted = hmac(key, 'mac', body);
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return fail('tampered');
  // Signed by us, so well formed unless the key signed something else; still read defensively.
  const payload = parsePayload(body);
  if (!payload) return fail('malformed');
  if (expected.now >= payload.exp) return fail('expired');
  if (!equalTags(payload.user, tag(key, 'user', expected.user))) return fail('other_user');
  if (payload.tool !== expected.tool) return fail('other_tool');
  if (!equalTags(payload.urls, tag(key, 'urls', canonicalUrlSet(expected.urls)))) return fail('changed_urls');
  return { ok: true, expiresAt: payload.exp };
}
