// The Host/Origin rules of /mcp as a pure function.
import { describe, expect, it } from 'vitest';
import { createOriginGuard } from '../../src/http/origin-guard.js';

describe('origin guard', () => {
  const loopbackOnly = createOriginGuard();
  const configured = createOriginGuard({
    allowedHosts: ['svc.example.org', 'proxy.example.org:8443'],
    allowedOrigins: ['https://app.example.org'],
  });

  it('accepts the loopback names with any port, and no Origin', () => {
    for (const host of ['127.0.0.1', '127.0.0.1:8787', 'localhost', 'LOCALHOST:3000', '[::1]', '[::1]:8787'])
      expect(loopbackOnly(host, undefined), host).toBeNull();
  });

  it('refuses other hosts, a missing Host, and junk', () => {
    for (const host of [
      undefined,
      '',
      'evil.example.com',
      'evil.example.com:8787',
      '127.0.0.2',
      'localhost.evil.com',
      '127.0.0.1@evil.com',
      'a b',
      '0.0.0.0:8787',
    ]) {
      expect(loopbackOnly(host, undefined), String(host)).not.toBeNull();
    }
  });

  it('checks Origin when a browser sends one', () => {
    expect(loopbackOnly('127.0.0.1:8787', 'http://localhost:5173')).toBeNull();
    expect(loopbackOnly('127.0.0.1:8787', 'https://[::1]')).toBeNull();
    for (const origin of [
      'http://evil.example.com',
      'null',
      'file://',
      'chrome-extension://abc',
      'http://127.0.0.1.evil.com',
    ]) {
      expect(loopbackOnly('127.0.0.1:8787', origin), origin).toMatch(/Origin/);
    }
  });

  it('adds the configured hosts (a name: any port; name:port: that port) and origins to the loopback names', () => {
    expect(configured('svc.example.org', undefined)).toBeNull();
    expect(configured('svc.example.org:9000', undefined)).toBeNull();
    expect(configured('proxy.example.org:8443', undefined)).toBeNull();
    expect(configured('proxy.example.org:8444', undefined)).not.toBeNull();
    expect(configured('proxy.example.org', undefined)).not.toBeNull();
    expect(configured('localhost:8787', undefined)).toBeNull();
    expect(configured('svc.example.org', 'https://app.example.org')).toBeNull();
    expect(configured('svc.example.org', 'https://APP.example.org:443')).toBeNull();
    expect(configured('svc.example.org', 'http://app.example.org')).not.toBeNull();
  });

  it('rejects a bad allow-list entry at start-up, naming the setting', () => {
    expect(() => createOriginGuard({ allowedHosts: ['http://x.org/'] })).toThrow(/server\.allowed_hosts/);
    expect(() => createOriginGuard({ allowedOrigins: ['x.org'] })).toThrow(/server\.allowed_origins/);
  });
});
