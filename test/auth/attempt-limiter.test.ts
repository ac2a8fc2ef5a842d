// The sign-in limiter: failures per key in a sliding window, a bounded number of keys.
import { describe, expect, it } from 'vitest';
import { AttemptLimiter } from '../../src/auth/oauth/attempt-limiter.js';

function limiter(max: number, maxKeys?: number) {
  let t = 1_000_000;
  const l = new AttemptLimiter({ max, windowMs: 60_000, maxKeys, now: () => t });
  return { l, advance: (ms: number) => void (t += ms) };
}

describe('AttemptLimiter', () => {
  it('lets a key fail max times, then says how long to wait', () => {
    const { l, advance } = limiter(3);
    for (let i = 0; i < 3; i++) {
      expect(l.retryAfter('a')).toBe(0);
      l.fail('a');
      advance(10_000);
    }
    // Failures at 0 s, 10 s, 20 s; now 30 s: the first leaves the window at 60 s.
    expect(l.retryAfter('a')).toBe(30);
    expect(l.retryAfter('b')).toBe(0);
    advance(30_001);
    expect(l.retryAfter('a')).toBe(0);
  });

  it('reset forgets a key', () => {
    const { l } = limiter(1);
    l.fail('a');
    expect(l.retryAfter('a')).toBeGreaterThan(0);
    l.reset('a');
    expect(l.retryAfter('a')).toBe(0);
  });

  it('remembers at most maxKeys keys, dropping the oldest', () => {
    const { l } = limiter(1, 2);
    l.fail('a');
    l.fail('b');
    l.fail('c');
    expect(l.retryAfter('a')).toBe(0);
    expect(l.retryAfter('b')).toBeGreaterThan(0);
    expect(l.retryAfter('c')).toBeGreaterThan(0);
  });
});
