// The fetch layer against loopback servers: redirects by hand, caps, time limits, slow-down answers,
// HEAD fallback, per-host politeness and headers, the connect-time address policy.
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAddressPolicy } from '../../src/crawler/address-policy.js';
import { Fetcher } from '../../src/crawler/fetcher.js';
import type { HostLookup } from '../../src/crawler/guarded-connector.js';
import type { BodySink } from '../../src/crawler/response-body.js';
import { HostLimiter } from '../../src/crawler/host-limiter.js';
import { hang, html, redirect, send, startSite, type TestSite } from '../support/site.js';

function collect(): BodySink & { bytes: number; text: () => string } {
  const chunks: Buffer[] = [];
  return {
    bytes: 0,
    write(c) {
      chunks.push(c);
      this.bytes += c.length;
    },
    end() {},
    text: () => Buffer.concat(chunks).toString('utf8'),
  };
}

describe('Fetcher', () => {
  let site: TestSite;
  let other: TestSite;
  let inFlight = 0;
  let maxInFlight = 0;
  let hits429 = 0;

  beforeAll(async () => {
    other = await startSite({ '/landing': html('other host') });
    site = await startSite({
      '/a': redirect(301, '/b'),
      '/b': redirect(302, '/c'),
      '/c': html('final'),
      '/loop': redirect(307, '/loop2'),
      '/loop2': redirect(308, '/loop'),
      '/mailto': redirect(302, 'mailto:x@example.org'),
      '/big': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(Buffer.alloc(3 * 1024 * 1024, 'a'));
      },
      '/endless': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        const chunk = Buffer.alloc(64 * 1024, 'b');
        const pump = () => {
          while (res.write(chunk)) {
            /* keep writing until the socket pushes back */
          }
        };
        res.on('drain', pump);
        res.on('close', () => res.off('drain', pump));
        pump();
      },
      '/bomb': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
        res.end(gzipSync(Buffer.alloc(64 * 1024 * 1024)));
      },
      '/gzip': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
        res.end(gzipSync('<title>compressed</title>'));
      },
      '/slow-body': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.write('<p>start');
        const t = setInterval(() => res.write('.'), 50);
        res.on('close', () => clearInterval(t));
      },
      '/hang': hang,
      '/429': (_req, res) => {
        hits429++;
        if (hits429 < 3) res.writeHead(429, { 'retry-after': '0' }).end();
        else res.writeHead(200, { 'content-type': 'text/html' }).end('ok now');
      },
      '/always-429': send(429, '', { 'retry-after': '0' }),
      '/503-retry-after': send(503, '', { 'retry-after': '0' }),
      '/503': send(503),
      '/head-501': (req, res) => void (req.method === 'HEAD' ? res.writeHead(501).end() : res.writeHead(200).end('x')),
      '/slow': async (_req, res) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((r) => setTimeout(r, 40));
        inFlight--;
        res.writeHead(200).end('ok');
      },
      '/headers': send(200),
      '/to-other': (_req, res) => void res.writeHead(302, { location: `${other.origin}/landing` }).end(),
      '/to-localhost': (_req, res) =>
        void res.writeHead(302, { location: `http://localhost:${other.port}/landing` }).end(),
    });
  });
  afterAll(async () => {
    await site.close();
    await other.close();
  });

  it('follows redirects by hand and records every hop', async () => {
    const f = new Fetcher();
    const r = await f.fetch(`${site.origin}/a`, { timeoutMs: 1000 });
    expect(r).toMatchObject({ ok: true, status: 200, finalUrl: `${site.origin}/c` });
    expect(r.hops).toEqual([
      { url: `${site.origin}/a`, status: 301, location: '/b' },
      { url: `${site.origin}/b`, status: 302, location: '/c' },
    ]);
    expect(r.requests).toBe(3);
    await f.close();
  });

  it('fails on a redirect loop, a chain past the cap and a Location that is not http(s)', async () => {
    const f = new Fetcher({ maxRedirects: 1 });
    expect(await f.fetch(`${site.origin}/loop`, { timeoutMs: 1000 })).toMatchObject({
      ok: false,
      failure: 'too_many_redirects',
    });
    const g = new Fetcher();
    const loop = await g.fetch(`${site.origin}/loop`, { timeoutMs: 1000 });
    expect(loop).toMatchObject({ ok: false, failure: 'redirect_loop' });
    expect(loop.hops).toHaveLength(2);
    expect(await g.fetch(`${site.origin}/mailto`, { timeoutMs: 1000 })).toMatchObject({
      ok: false,
      failure: 'bad_redirect',
    });
    await f.close();
    await g.close();
  });

  it('cuts a big body, an endless body and a gzip bomb at the size cap', async () => {
    const f = new Fetcher();
    for (const path of ['/big', '/endless', '/bomb']) {
      const sink = collect();
      const r = await f.fetch(`${site.origin}${path}`, {
        timeoutMs: 5000,
        maxBodyBytes: 1024 * 1024,
        onResponse: () => sink,
      });
      expect(r, path).toMatchObject({ ok: true, truncated: true });
      expect(sink.bytes, path).toBe(1024 * 1024);
    }
    const sink = collect();
    const r = await f.fetch(`${site.origin}/gzip`, { timeoutMs: 1000, onResponse: () => sink });
    expect(r).toMatchObject({ ok: true, truncated: false });
    expect(sink.text()).toBe('<title>compressed</title>');
    await f.close();
  });

  it('bounds headers and body together by the time limit', async () => {
    const f = new Fetcher();
    const t0 = Date.now();
    expect(await f.fetch(`${site.origin}/hang`, { timeoutMs: 200 })).toMatchObject({
      ok: false,
      failure: 'timeout',
      hops: [],
    });
    const body = await f.fetch(`${site.origin}/slow-body`, { timeoutMs: 300, onResponse: () => collect() });
    expect(body).toMatchObject({ ok: false, failure: 'timeout', status: 200 });
    expect(Date.now() - t0).toBeLessThan(2000);
    await f.close();
  });

  it('waits out 429 and 503 + Retry-After, retries a bounded number of times and slows the host down', async () => {
    const f = new Fetcher({ maxRetries: 3, maxRetryWaitMs: 50, maxSlowDownDelayMs: 100 });
    const r = await f.fetch(`${site.origin}/429`, { timeoutMs: 1000 });
    expect(r).toMatchObject({ ok: true, status: 200, requests: 3 });
    expect(f.limiter(site.host).slowDowns).toBe(2);
    const always = await f.fetch(`${site.origin}/always-429`, { timeoutMs: 1000 });
    expect(always).toMatchObject({ ok: false, failure: 'rate_limited', status: 429, requests: 4 });
    expect(await f.fetch(`${site.origin}/503-retry-after`, { timeoutMs: 1000 })).toMatchObject({
      ok: false,
      failure: 'rate_limited',
      status: 503,
    });
    // 503 without Retry-After is a plain server error.
    expect(await f.fetch(`${site.origin}/503`, { timeoutMs: 1000 })).toMatchObject({
      ok: true,
      status: 503,
      requests: 1,
    });
    await f.close();
  });

  it('checks links with HEAD and falls back to GET on 501', async () => {
    const f = new Fetcher();
    const before = site.hitCount('/head-501', 'GET');
    const r = await f.check(`${site.origin}/head-501`, { timeoutMs: 1000 });
    expect(r).toMatchObject({ ok: true, status: 200 });
    expect(site.hitCount('/head-501', 'HEAD')).toBe(1);
    expect(site.hitCount('/head-501', 'GET')).toBe(before + 1);
    await f.close();
  });

  it('keeps per-host concurrency, spacing, and sends a host its headers only', async () => {
    const f = new Fetcher();
    f.configureHost(site.host, { concurrency: 2, delayMs: 0, headers: { 'x-site-token': 'secret' } });
    await Promise.all(Array.from({ length: 8 }, () => f.fetch(`${site.origin}/slow`, { timeoutMs: 2000 })));
    expect(maxInFlight).toBe(2);
    await f.fetch(`${site.origin}/headers`, { timeoutMs: 1000 });
    expect(site.headers.get('/headers')!['x-site-token']).toBe('secret');
    expect(site.headers.get('/headers')!['user-agent']).toMatch(/^svc-crawler\//);
    await f.fetch(`${site.origin}/to-other`, { timeoutMs: 1000 });
    expect(other.headers.get('/landing')!['x-site-token']).toBeUndefined();
    await f.close();

    const spaced = new HostLimiter({ concurrency: 4, delayMs: 60 });
    const starts: number[] = [];
    await Promise.all(Array.from({ length: 4 }, () => spaced.run(async () => void starts.push(Date.now()))));
    starts.sort((a, b) => a - b);
    for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(50);
  });

  it('spaces request starts from the last real start when a timer fires late on a busy machine', async () => {
    const spaced = new HostLimiter({ concurrency: 3, delayMs: 60 });
    const starts: number[] = [];
    // The first request holds the event loop for 100 ms, so the second's timer (due at 60) fires at ~100 and the
    // third's (due at 120) on time: kept to that schedule, the third would start ~20 ms after the second.
    const busy = async () => {
      starts.push(Date.now());
      const until = Date.now() + 100;
      while (Date.now() < until);
    };
    const quick = async () => void starts.push(Date.now());
    await Promise.all([spaced.run(busy), spaced.run(quick), spaced.run(quick)]);
    starts.sort((a, b) => a - b);
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(100);
    // A request notes its start a little after the limiter lets it go (a few ms on a loaded machine); the schedule
    // this guards against would put the third ~20 ms after the second.
    expect(starts[2]! - starts[1]!).toBeGreaterThanOrEqual(55);
  });

  it('with an address policy, refuses loopback addresses other than the target, named directly, by name or through a redirect', async () => {
    const f = new Fetcher({ addressPolicy: createAddressPolicy([{ host: '127.0.0.1', port: site.port }]) });
    const before = other.log.length;
    expect(await f.fetch(`${site.origin}/c`, { timeoutMs: 1000 })).toMatchObject({ ok: true, status: 200 });
    const direct = await f.fetch(`http://127.0.0.2:${site.port}/c`, { timeoutMs: 1000 });
    expect(direct).toMatchObject({ ok: false, failure: 'blocked' });
    expect(await f.fetch(`${other.origin}/landing`, { timeoutMs: 1000 })).toMatchObject({
      ok: false,
      failure: 'blocked',
    });
    expect(await f.fetch(`http://localhost:${other.port}/landing`, { timeoutMs: 1000 })).toMatchObject({
      ok: false,
      failure: 'blocked',
    });
    const viaRedirect = await f.fetch(`${site.origin}/to-localhost`, { timeoutMs: 1000 });
    expect(viaRedirect).toMatchObject({ ok: false, failure: 'blocked' });
    expect(viaRedirect.hops).toHaveLength(1);
    expect(other.log.length).toBe(before);
    await f.close();
    // A target named through DNS (localhost) is reached at the address the check approved.
    const byName = new Fetcher({ addressPolicy: createAddressPolicy([{ host: 'localhost', port: site.port }]) });
    expect(await byName.fetch(`http://localhost:${site.port}/c`, { timeoutMs: 1000 })).toMatchObject({
      ok: true,
      status: 200,
    });
    expect(await byName.fetch(`${site.origin}/c`, { timeoutMs: 1000 })).toMatchObject({
      ok: false,
      failure: 'blocked',
    });
    await byName.close();
  });

  it('asks the resolver once per crawl about a host name that does not exist; a resolver that failed for now is asked again', async () => {
    // The lookup is the system's edge: answered here, so no DNS query leaves the machine.
    const asked: string[] = [];
    const lookup: HostLookup = (name, _opts, cb) => {
      asked.push(name);
      if (name === 'gone.example')
        return cb(Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' }), []);
      if (name === 'flaky.example')
        return cb(Object.assign(new Error(`getaddrinfo EAI_AGAIN ${name}`), { code: 'EAI_AGAIN' }), []);
      cb(null, [{ address: '127.0.0.1', family: 4 }]);
    };
    const f = new Fetcher({ addressPolicy: createAddressPolicy([{ host: 'site.example', port: site.port }]), lookup });
    const gone = await Promise.all(
      Array.from({ length: 8 }, (_, i) => f.check(`http://gone.example/p${i}`, { timeoutMs: 1000 })),
    );
    for (const r of gone) expect(r).toMatchObject({ ok: false, failure: 'dns' });
    expect(asked.filter((n) => n === 'gone.example').length).toBeLessThanOrEqual(4); // at most the host's concurrency in flight at once
    const later = asked.length;
    expect(await f.check('http://gone.example/later', { timeoutMs: 1000 })).toMatchObject({
      ok: false,
      failure: 'dns',
      requests: 0,
    });
    expect(asked.length).toBe(later);
    await f.check('http://flaky.example/a', { timeoutMs: 1000 });
    await f.check('http://flaky.example/b', { timeoutMs: 1000 });
    expect(asked.filter((n) => n === 'flaky.example')).toHaveLength(2);
    // A name that resolves is not affected.
    expect(await f.fetch(`http://site.example:${site.port}/c`, { timeoutMs: 1000 })).toMatchObject({
      ok: true,
      status: 200,
    });
    await f.close();
  });
});

describe('Fetcher retries (a target’s retries)', () => {
  it('tries a 5xx again until it answers, and a timeout at most count times; HEAD and GET share the count', async () => {
    let flaky = 0;
    const site = await startSite({
      '/flaky': (_req, res) => {
        flaky++;
        if (flaky <= 2) res.writeHead(500).end('oops');
        else res.writeHead(200).end('ok');
      },
      '/reset': (req) => void req.socket.destroy(),
      '/slow': hang,
    });
    const f = new Fetcher();
    try {
      const ok = await f.check(site.url('/flaky'), { timeoutMs: 2000, retry: { count: 3, baseMs: 5 } });
      expect(ok).toMatchObject({ ok: true, status: 200, retries: 2, requests: 3 });
      flaky = 0;
      const short = await f.check(site.url('/flaky'), { timeoutMs: 2000, retry: { count: 1, baseMs: 5 } });
      expect(short).toMatchObject({ ok: true, status: 500, retries: 1 });
      const reset = await f.check(site.url('/reset'), { timeoutMs: 2000, retry: { count: 2, baseMs: 5 } });
      expect(reset).toMatchObject({ ok: false, failure: 'reset', retries: 2 });
      const slow = await f.check(site.url('/slow'), { timeoutMs: 200, retry: { count: 2, baseMs: 5 } });
      // HEAD, two retries, then the GET fallback with no retries left.
      expect(slow).toMatchObject({ ok: false, failure: 'timeout', retries: 2, requests: 4 });
      expect(site.hitCount('/slow', 'HEAD')).toBe(3);
      expect(site.hitCount('/slow', 'GET')).toBe(1);
      expect(f.retries).toBe(7);
    } finally {
      await f.close();
      await site.close();
    }
  });
});
