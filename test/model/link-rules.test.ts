// The pure decisions of a target's remap, accept and retries, and the config rules that guard them.
import { describe, expect, it } from 'vitest';
import { TargetSchema } from '../../src/model/config.js';
import {
  acceptedBy,
  compileLinkRules,
  mergeLinkRules,
  parseStatusEntry,
  remapUrl,
  retryDelayMs,
} from '../../src/model/link-rules.js';

const rules = (over: Record<string, unknown>) => compileLinkRules(TargetSchema.parse({ host: 'example.org', ...over }));

describe('link rules', () => {
  it('remap: the first pair that matches wins, with its groups; none matching leaves the link alone', () => {
    const r = rules({
      remap: [
        ['^https://example\\.org/(.*)\\.md$', 'https://preview.example.org/$1.html'],
        ['^https://example\\.org/', 'https://other.example.org/'],
      ],
    });
    expect(remapUrl(r, 'https://example.org/docs/a.md')).toBe('https://preview.example.org/docs/a.html');
    expect(remapUrl(r, 'https://example.org/docs/a.html')).toBe('https://other.example.org/docs/a.html');
    expect(remapUrl(r, 'https://elsewhere.org/')).toBeNull();
  });

  it('accept: codes and ranges per host pattern (the name covers its subdomains; *.name only them; * all)', () => {
    const r = rules({ accept: { 'github.com': [429, '500-503'], '*.example.net': [403], '*': [418] } });
    expect(acceptedBy(r, 'github.com', 429)).toBe('github.com');
    expect(acceptedBy(r, 'api.github.com', 502)).toBe('github.com');
    expect(acceptedBy(r, 'github.com', 504)).toBeNull();
    expect(acceptedBy(r, 'notgithub.com', 429)).toBeNull();
    expect(acceptedBy(r, 'www.example.net', 403)).toBe('*.example.net');
    expect(acceptedBy(r, 'example.net', 403)).toBeNull();
    expect(acceptedBy(r, 'anything.org', 418)).toBe('*');
  });

  it('status entries: whole codes and ranges within 100–599 only', () => {
    expect(parseStatusEntry(429)).toEqual([429, 429]);
    expect(parseStatusEntry('500-599')).toEqual([500, 599]);
    for (const bad of [99, 600, 700, 429.5, '599-500', 'abc', '5xx'])
      expect(parseStatusEntry(bad), String(bad)).toBeNull();
  });

  it('retry delay: Retry-After when given, else exponential with jitter, never above the cap', () => {
    const p = { count: 5, baseMs: 100 };
    expect(retryDelayMs(p, 0, undefined, 30_000, () => 0)).toBe(50);
    expect(retryDelayMs(p, 3, undefined, 30_000, () => 0.5)).toBe(800);
    expect(retryDelayMs(p, 2, 2500, 30_000)).toBe(2500);
    expect(retryDelayMs(p, 20, undefined, 30_000, () => 0.99)).toBe(30_000);
  });

  it('merged for links no target owns: remaps in target order, accepts together, the most retries', () => {
    const a = rules({ remap: [['^x', 'a']], accept: { 'a.org': [403] }, retries: { count: 1 } });
    const b = rules({ remap: [['^x', 'b']], accept: { 'b.org': [429] }, retries: { count: 4, base_ms: 50 } });
    const m = mergeLinkRules([a, b]);
    expect(remapUrl(m, 'xyz')).toBe('ayz');
    expect(acceptedBy(m, 'b.org', 429)).toBe('b.org');
    expect(m.retry).toEqual({ count: 4, baseMs: 50 });
  });

  it('the config names the field and the rule', () => {
    const issues = (over: Record<string, unknown>) => {
      const r = TargetSchema.safeParse({ host: 'example.org', ...over });
      return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    };
    expect(issues({ remap: [['(', 'x']] })[0]).toMatch(/^remap\.0\.0: must be a valid regular expression/);
    expect(issues({ accept: { 'github.com': [700] } })[0]).toMatch(/^accept\.github\.com\.0: must be a status code/);
    expect(issues({ retries: { count: 11 } })).toEqual(['retries.count: must be at most 10']);
    expect(issues({ retries: { count: 3, base_ms: 0 } })[0]).toMatch(/^retries\.base_ms:/);
  });
});
