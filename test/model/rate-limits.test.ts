// The rate limit's decisions (group, window, verdict) and its config section's validation.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/cli/load-config.js';
import { decide, parseWindow, rateGroupOf, windowStart } from '../../src/model/rate-limits.js';
import { problemsOf } from '../support/config-problems.js';

const ROOT = '/wp-json/abilities/v1';

describe('rate limit decisions', () => {
  it('puts public search, /mcp and the rest of /v1 and the ability routes in their groups; /healthz and OAuth in none', () => {
    expect(rateGroupOf('POST', '/v1/projects/demo1234%3Aeu-north-1/search', ROOT)).toBe('search');
    expect(rateGroupOf('POST', `${ROOT}/abilities/svc/search/run`, ROOT)).toBe('search');
    expect(rateGroupOf('GET', `${ROOT}/abilities/svc%2Fsearch/run`, ROOT)).toBe('search');
    expect(rateGroupOf('POST', '/mcp', ROOT)).toBe('mcp');
    expect(rateGroupOf('OPTIONS', '/mcp', ROOT)).toBeNull();
    expect(rateGroupOf('GET', '/v1/projects/x/crawls', ROOT)).toBe('api');
    expect(rateGroupOf('GET', '/v1/openapi.json', ROOT)).toBe('api');
    expect(rateGroupOf('POST', `${ROOT}/abilities/svc/full-crawl/run`, ROOT)).toBe('api');
    expect(rateGroupOf('GET', '/healthz', ROOT)).toBeNull();
    // The console: its search page counts as search, its form posts as API, its other pages not at all.
    expect(rateGroupOf('GET', '/console/p/demo1234%3Aeu-north-1/search', ROOT)).toBe('search');
    expect(rateGroupOf('POST', '/console/p/demo1234%3Aeu-north-1/keys', ROOT)).toBe('api');
    expect(rateGroupOf('POST', '/console/sign-in', ROOT)).toBe('api');
    expect(rateGroupOf('GET', '/console/p/demo1234%3Aeu-north-1/crawls', ROOT)).toBeNull();
    expect(rateGroupOf('POST', '/token', ROOT)).toBeNull();
    expect(rateGroupOf('GET', '/v1x', ROOT)).toBeNull();
  });

  it('aligns windows on the clock, and allows up to the limit, then says how long to wait (at least 1 s)', () => {
    expect(windowStart(125_000, 60_000)).toBe(120_000);
    expect(decide(3, 3, 120_000, 60_000, 125_000)).toEqual({ allowed: true });
    expect(decide(4, 3, 120_000, 60_000, 125_000)).toEqual({ allowed: false, retryAfterSeconds: 55 });
    expect(decide(4, 3, 120_000, 60_000, 179_999)).toEqual({ allowed: false, retryAfterSeconds: 1 });
  });

  it('reads windows from 1 s to 1 h', () => {
    expect(parseWindow('10s')).toBe(10_000);
    expect(parseWindow('1m')).toBe(60_000);
    expect(parseWindow('1h')).toBe(3_600_000);
    for (const bad of ['0s', '2h', '1d', '90', 'soon']) expect(parseWindow(bad)).toBeNull();
  });
});

describe('the rate_limits config section', () => {
  it('defaults: on, a 1 minute window, 120 searches, 300 MCP and 600 API requests per client', () => {
    expect(parseConfig({}).rate_limits).toEqual({ enabled: true, window: '1m', search: 120, mcp: 300, api: 600 });
    expect(parseConfig({ rate_limits: { enabled: false } }).rate_limits.enabled).toBe(false);
    expect(parseConfig({ rate_limits: { search: null } }).rate_limits.search).toBeNull();
  });

  it('refuses bad values naming the field and the rule', () => {
    expect(problemsOf({ rate_limits: { window: '1d' } })).toEqual([
      'rate_limits.window: must be a window like "10s", "1m" or "1h" (1 second to 1 hour)',
    ]);
    expect(problemsOf({ rate_limits: { search: 0 } })).toEqual([
      'rate_limits.search: must be a whole number from 1 to 1000000, or null for no limit',
    ]);
    expect(problemsOf({ rate_limits: { mcp: 2.5 } })).toEqual([
      'rate_limits.mcp: must be a whole number from 1 to 1000000, or null for no limit',
    ]);
    expect(problemsOf({ rate_limits: { api: '600' } })).toEqual([
      'rate_limits.api: must be the number of API requests one client may make per window (a whole number from 1 to 1000000), or null for no limit',
    ]);
    expect(problemsOf({ rate_limits: { enabled: 'no' } })).toEqual(['rate_limits.enabled: must be true or false']);
    expect(problemsOf({ rate_limits: { per_minute: 5 } })).toEqual(['rate_limits: unknown field(s) "per_minute"']);
  });
});
