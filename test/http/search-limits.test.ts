// The caps on search: terms of at most SEARCH_TERMS_MAX_CHARS characters and SEARCH_TERMS_MAX_WORDS words on every
// surface (/v1, the svc/search ability route, the CLI, the stores' own check), and a search body over
// SEARCH_BODY_MAX_BYTES refused unread (413) while the service goes on answering everyone else.
import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/open-app.js';
import { openAbilityHost, type AbilityHost } from '../../src/app/ability-host.js';
import { httpDeps, serveHandlers } from '../../src/app/http.js';
import { addUser } from '../../src/auth/users.js';
import { CliError } from '../../src/cli/common.js';
import { run as svcSearch } from '../../src/cli/search.js';
import { createHttpServer } from '../../src/http/http-server.js';
import { silentLogger } from '../../src/lib/log.js';
import { BackendError } from '../../src/model/errors.js';
import {
  SEARCH_BODY_MAX_BYTES,
  SEARCH_TERMS_MAX_CHARS,
  SEARCH_TERMS_MAX_WORDS,
  termsLimitProblem,
  termsWordCount,
} from '../../src/model/limits.js';
import { checkTerms } from '../../src/model/search-params.js';
import { makeApp, TOKEN } from '../support/app.js';
import { testTerminal } from '../support/cli.js';

const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');

describe('the terms limit', () => {
  it('counts words between spaces, quotes included, and names the limit a too long or too wordy query is over', () => {
    expect(termsWordCount('  "red apple"  pie ')).toBe(3);
    expect(termsWordCount('   ')).toBe(0);
    expect(termsLimitProblem(words(SEARCH_TERMS_MAX_WORDS))).toBeNull();
    expect(termsLimitProblem('x'.repeat(SEARCH_TERMS_MAX_CHARS))).toBeNull();
    expect(termsLimitProblem(words(33))).toBe('must be at most 32 words (got 33)');
    expect(termsLimitProblem('x'.repeat(1001))).toBe('must be at most 1000 characters (got 1001)');
  });

  it("is the stores' own check too (invalid_input naming terms)", () => {
    expect(() => checkTerms(words(33))).toThrow(
      new BackendError('invalid_input', 'terms: must be at most 32 words (got 33)'),
    );
    expect(checkTerms(words(32))).toBe(words(32));
  });

  it('refuses svc search over it, naming TERMS and the limit, before opening anything', async () => {
    await expect(svcSearch(['x'.repeat(1001), '--config', '/nonexistent/svc.json'], testTerminal().io)).rejects.toThrow(
      new CliError('TERMS: must be at most 1000 characters (got 1001)'),
    );
    await expect(
      svcSearch([...words(33).split(' '), '--config', '/nonexistent/svc.json'], testTerminal().io),
    ).rejects.toThrow(new CliError('TERMS: must be at most 32 words (got 33)'));
  });
});

describe('search limits over HTTP', () => {
  let app: App;
  let host: AbilityHost;
  let server: Server;
  let base: string;
  let user: string;
  const searchUrl = () => `${base}/v1/projects/${encodeURIComponent(TOKEN)}/search`;
  const post = (url: string, body: string, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

  beforeAll(async () => {
    app = await makeApp({ rate_limits: { enabled: false } });
    host = await openAbilityHost(app);
    user = await addUser(app.store.sql, 'reader', 'subscriber');
    server = createHttpServer({ logger: silentLogger, handlers: serveHandlers(httpDeps(app), host) });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    host.close();
    await app.close();
  });

  it('/v1: terms over either limit → 400 naming terms and the limit; at the limits → 200', async () => {
    for (const [terms, rule] of [
      ['x'.repeat(1001), 'must be at most 1000 characters'],
      [words(33), 'must be at most 32 words'],
    ]) {
      const r = await post(searchUrl(), JSON.stringify({ terms }));
      expect(r.status).toBe(400);
      expect(await r.json()).toEqual({ error: { code: 'invalid_input', message: `terms: ${rule}` } });
    }
    for (const terms of ['x'.repeat(1000), words(32)])
      expect((await post(searchUrl(), JSON.stringify({ terms }))).status).toBe(200);
  });

  it('/v1: a 1 MB search body → 413 unread, while the searches sent beside it are answered', async () => {
    const huge = JSON.stringify({ terms: 'x'.repeat(1_000_000) });
    const [big, ...others] = await Promise.all([
      post(searchUrl(), huge),
      ...Array.from({ length: 5 }, () => post(searchUrl(), JSON.stringify({ terms: 'apple' }))),
    ]);
    expect(big.status).toBe(413);
    expect(await big.json()).toEqual({
      error: { code: 'payload_too_large', message: `request body is larger than ${SEARCH_BODY_MAX_BYTES} bytes` },
    });
    for (const r of others) {
      expect(r.status).toBe(200);
      expect(await r.json()).toMatchObject({ total: 0, hits: [] });
    }
  });

  it('/v1: a 1 MB search body sent without Content-Length is cut off at the cap → 413', async () => {
    const url = new URL(searchUrl());
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
        },
      );
      req.on('error', reject);
      const chunk = 'x'.repeat(64 * 1024);
      req.write('{"terms":"');
      for (let i = 0; i < 16; i++) req.write(chunk);
      req.end('"}');
    });
    expect(status).toBe(413);
  });

  it('the svc/search ability route: terms over the limit → 400 ability_invalid_input naming terms; a 1 MB body → 413', async () => {
    const runUrl = `${base}/wp-json/abilities/v1/abilities/svc/search/run`;
    const r = await post(runUrl, JSON.stringify({ input: { terms: words(33) } }), { authorization: `Bearer ${user}` });
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({
      code: 'ability_invalid_input',
      message: expect.stringContaining('terms: must be at most 32 words'),
      data: { status: 400 },
    });
    const big = await post(runUrl, JSON.stringify({ input: { terms: 'x'.repeat(1_000_000) } }), {
      authorization: `Bearer ${user}`,
    });
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ code: 'payload_too_large', data: { status: 413 } });
  });
});
