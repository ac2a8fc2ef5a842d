// The signed requestState of a confirmed delete: what it binds (user, tool, URL set, 10 minutes) and every reason a
// state is refused, each told apart; and that the state carries neither the user nor the URLs in clear.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  canonicalUrlSet,
  REQUEST_STATE_TTL_MS,
  requestStateExpiry,
  signRequestState,
  verifyRequestState,
} from '../../src/auth/request-state.js';

const key = randomBytes(32);
const now = Date.UTC(2026, 10, 25, 12, 0, 0);
const claims = {
  user: 'editor',
  tool: 'svc-delete-pages',
  urls: ['https://example.test/a', 'https://example.test/b'],
  expiresAt: requestStateExpiry(now),
};
const expected = { user: 'editor', tool: 'svc-delete-pages', urls: claims.urls, now: now + 1000 };
const state = signRequestState(key, claims);

/** The state with its payload (decoded JSON) changed by `edit`, the signature left as it was. */
function withPayload(s: string, edit: (p: Record<string, unknown>) => void): string {
  const [prefix, body, mac] = s.split('.') as [string, string, string];
  const p = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
  edit(p);
  return `${prefix}.${Buffer.from(JSON.stringify(p)).toString('base64url')}.${mac}`;
}

describe('requestState', () => {
  it('verifies what it signed, until 10 minutes after signing', () => {
    expect(REQUEST_STATE_TTL_MS).toBe(600_000);
    expect(verifyRequestState(key, state, expected)).toEqual({ ok: true, expiresAt: now + 600_000 });
    expect(verifyRequestState(key, state, { ...expected, now: now + 600_000 - 1 }).ok).toBe(true);
  });

  it('takes the URL list as a set: another order or a repeat is the same list', () => {
    expect(verifyRequestState(key, state, { ...expected, urls: [...claims.urls].reverse() }).ok).toBe(true);
    expect(verifyRequestState(key, state, { ...expected, urls: [...claims.urls, claims.urls[0]!] }).ok).toBe(true);
    expect(canonicalUrlSet(['b', 'a', 'b'])).toBe('["a","b"]');
    // JSON delimits members: a comma inside a URL does not make two lists alike.
    expect(canonicalUrlSet(['a,b'])).not.toBe(canonicalUrlSet(['a', 'b']));
  });

  it('names neither the user nor any URL in the clear', () => {
    const decoded = Buffer.from(state.split('.')[1]!, 'base64url').toString('utf8');
    expect(decoded).not.toContain('editor');
    expect(decoded).not.toContain('example.test');
    expect(JSON.parse(decoded)).toMatchObject({ v: 1, exp: now + 600_000, tool: 'svc-delete-pages' });
  });

  it.each([
    ['not a string', 42],
    ['empty', ''],
    ['another prefix', state.replace(/^rs1\./, 'rs2.')],
    ['two parts', state.split('.').slice(0, 2).join('.')],
    ['four parts', `${state}.x`],
    ['not base64url', state.replace(/\.[^.]+$/, '.abc+/=')],
    ['far too long', `rs1.${'a'.repeat(2000)}.b`],
  ])('refuses a malformed state (%s)', (_, bad) => {
    expect(verifyRequestState(key, bad, expected)).toMatchObject({ ok: false, reason: 'malformed' });
  });

  it('refuses a state whose payload or signature was changed, or that another key signed, as tampered', () => {
    const later = withPayload(state, (p) => (p.exp = (p.exp as number) + 3_600_000));
    expect(verifyRequestState(key, later, { ...expected, now: now + 700_000 })).toMatchObject({
      ok: false,
      reason: 'tampered',
    });
    const otherTool = withPayload(state, (p) => (p.tool = 'svc-full-crawl'));
    expect(verifyRequestState(key, otherTool, { ...expected, tool: 'svc-full-crawl' })).toMatchObject({
      ok: false,
      reason: 'tampered',
    });
    const mac = state.split('.')[2]!;
    const flipped = state.slice(0, -mac.length) + (mac[0] === 'A' ? 'B' : 'A') + mac.slice(1);
    expect(verifyRequestState(key, flipped, expected)).toMatchObject({ ok: false, reason: 'tampered' });
    expect(verifyRequestState(randomBytes(32), state, expected)).toMatchObject({ ok: false, reason: 'tampered' });
  });

  it('refuses an expired state, saying how to be asked again', () => {
    const r = verifyRequestState(key, state, { ...expected, now: now + 600_000 });
    expect(r).toMatchObject({ ok: false, reason: 'expired' });
    expect(!r.ok && r.message).toMatch(/within 10 minutes; call the tool again/);
  });

  it('refuses a state of another user, another tool or another URL set, each by name', () => {
    expect(verifyRequestState(key, state, { ...expected, user: 'admin' })).toMatchObject({
      ok: false,
      reason: 'other_user',
    });
    expect(verifyRequestState(key, state, { ...expected, user: 'Editor' })).toMatchObject({
      ok: false,
      reason: 'other_user',
    });
    expect(verifyRequestState(key, state, { ...expected, tool: 'svc-full-crawl' })).toMatchObject({
      ok: false,
      reason: 'other_tool',
    });
    expect(verifyRequestState(key, state, { ...expected, urls: [claims.urls[0]!] })).toMatchObject({
      ok: false,
      reason: 'changed_urls',
    });
    expect(
      verifyRequestState(key, state, { ...expected, urls: [...claims.urls, 'https://example.test/c'] }),
    ).toMatchObject({ ok: false, reason: 'changed_urls' });
  });

  it('wants a 32-byte key and a whole-millisecond expiry', () => {
    expect(() => signRequestState(randomBytes(16), claims)).toThrow(/32 bytes, not 16/);
    expect(() => verifyRequestState(Buffer.alloc(0), state, expected)).toThrow(/32 bytes/);
    expect(() => signRequestState(key, { ...claims, expiresAt: 1.5 })).toThrow(/expiresAt/);
  });
});
