// The pure rules of the authorization server: how a redirect URI matches, what a client may say about itself, and
// how a metadata document's URL, answer and cache headers are judged.
import { describe, expect, it } from 'vitest';
import {
  checkClientMetadata,
  clientNameProblem,
  redirectUriMatches,
  redirectUriProblem,
} from '../../src/auth/oauth/client-metadata.js';
import {
  clientFromDocument,
  documentLifetime,
  documentUrlProblem,
  isDocumentClientId,
} from '../../src/auth/oauth/metadata-document.js';

describe('redirectUriMatches', () => {
  it('is an exact string match, a loopback port aside', () => {
    expect(redirectUriMatches('https://app.example/cb', 'https://app.example/cb')).toBe(true);
    for (const other of [
      'https://app.example/cb#x',
      'HTTPS://app.example/cb',
      'https://APP.example/cb',
      'https://app.example/cb/',
      'https://app.example/cb?a=1',
      'https://app.example:443/cb',
    ]) {
      expect(redirectUriMatches(other, 'https://app.example/cb'), other).toBe(false);
    }
    expect(redirectUriMatches('http://127.0.0.1:5555/cb', 'http://127.0.0.1/cb')).toBe(true);
    expect(redirectUriMatches('http://localhost:1/cb?x=1', 'http://localhost:2/cb?x=1')).toBe(true);
    expect(redirectUriMatches('http://localhost:1/cb', 'http://127.0.0.1:1/cb')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1:1/cb#f', 'http://127.0.0.1:2/cb')).toBe(false);
    expect(redirectUriMatches('HTTP://127.0.0.1:1/cb', 'http://127.0.0.1:2/cb')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1:1/CB', 'http://127.0.0.1:2/cb')).toBe(false);
  });
});

describe('client metadata rules', () => {
  it('refuses unsafe, userinfo-carrying, fragment and off-loopback http redirect URIs, naming the rule', () => {
    expect(redirectUriProblem('https://app.example/cb')).toBeNull();
    expect(redirectUriProblem('com.example.app:/cb')).toBeNull();
    expect(redirectUriProblem('http://[::1]:8/cb')).toBeNull();
    expect(redirectUriProblem('javascript:alert(1)')?.code).toBe('invalid_client_metadata');
    expect(redirectUriProblem('https://a@app.example/cb')?.message).toMatch(/user name or password/);
    expect(redirectUriProblem('https://@app.example/cb')?.message).toMatch(/user name or password/);
    expect(redirectUriProblem('https://app.example/cb#')?.message).toMatch(/fragment/);
    expect(redirectUriProblem('http://app.example/cb')?.message).toMatch(/must use https/);
    expect(redirectUriProblem(' https://app.example/cb')?.message).toMatch(/spaces or control/);
  });

  it('takes https, http on loopback and private-use (reverse domain) schemes only, and names the rule', () => {
    for (const ok of [
      'com.example.app:/cb',
      'io.github.someone.tool:/oauth',
      'https://app.example/cb',
      'http://localhost:1/cb',
    ])
      expect(redirectUriProblem(ok), ok).toBeNull();
    for (const bad of [
      'ftp://files.example/cb',
      'ws://app.example/cb',
      'wss://app.example/cb',
      'gopher://x.example/cb',
      'mailto:a@b.example',
      'myapp://cb',
      'ftp://127.0.0.1/cb',
    ]) {
      const problem = redirectUriProblem(bad);
      expect(problem?.code, bad).toBe('invalid_redirect_uri');
      expect(problem?.message, bad).toMatch(
        /https, http on a loopback address, or an app's own scheme in reverse domain form/,
      );
    }
  });

  it('refuses invisible and format characters in names: zero-width, word joiner, BOM, tags, line and paragraph separators', () => {
    for (const c of ['\u200B', '\u200C', '\u200D', '\u2060', '\uFEFF', '\u{E0041}', '\u2028', '\u2029', '\u00AD']) {
      const problem = clientNameProblem(`Clau${c}de`);
      expect(problem?.message, JSON.stringify(c)).toMatch(/invisible or format characters/);
    }
    expect(clientNameProblem('Zoë & Łukasz 日本 🚀')).toBeNull();
  });

  it('refuses bidi and control characters and overlong names', () => {
    expect(clientNameProblem('Claude (Anthropic) — ünïcode ok')).toBeNull();
    expect(clientNameProblem('a\u202Eb')?.message).toMatch(/bidirectional/);
    expect(clientNameProblem('a\nb')?.message).toMatch(/control characters/);
    expect(clientNameProblem('x'.repeat(201))?.message).toMatch(/at most 200/);
  });

  it('makes every client public, and refuses a secret method only where asked to', () => {
    const c = checkClientMetadata(
      { redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: 'client_secret_post', extra: 1 },
      'id',
      { secretRefused: false, nameRequired: false },
    );
    expect(c).toEqual({
      client_id: 'id',
      redirect_uris: ['https://a.example/cb'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    });
    expect(() =>
      checkClientMetadata(
        { redirect_uris: ['https://a.example/cb'], client_name: 'n', token_endpoint_auth_method: 'private_key_jwt' },
        'id',
        { secretRefused: true, nameRequired: true },
      ),
    ).toThrow(/is not supported/);
    expect(() =>
      checkClientMetadata({ redirect_uris: [] }, 'id', { secretRefused: false, nameRequired: false }),
    ).toThrow(/at least one/);
    expect(() =>
      checkClientMetadata({ redirect_uris: ['https://a.example/cb'], grant_types: ['client_credentials'] }, 'id', {
        secretRefused: false,
        nameRequired: false,
      }),
    ).toThrow(/grant_types/);
  });
});

describe('metadata documents', () => {
  it('tells URL client ids from registered ones and judges their URLs', () => {
    expect(isDocumentClientId('https://a.example/c.json')).toBe(true);
    expect(isDocumentClientId('3f0c2a4e-1b7d-4c55-9a3e-0f1e2d3c4b5a')).toBe(false);
    expect(documentUrlProblem('https://a.example/c.json')).toBeNull();
    expect(documentUrlProblem('https://A.example/c.json')).toMatch(/normal form/);
    expect(documentUrlProblem('https://a.example/x/./c.json')).toMatch(/path segments/);
    expect(documentUrlProblem('ftp://a.example/c.json')).toMatch(/https/);
  });

  it('keeps a document per max-age, 24 hours at most, never with no-store or no-cache', () => {
    expect(documentLifetime({ 'cache-control': 'public, max-age=300' })).toBe(300);
    expect(documentLifetime({ 'cache-control': 'max-age=999999' })).toBe(86400);
    expect(documentLifetime({ 'cache-control': 'no-cache, max-age=300' })).toBe(0);
    expect(documentLifetime({ 'cache-control': 'private, no-store' })).toBe(0);
    expect(documentLifetime({})).toBe(0);
  });

  it('reads a document into a client with its host', () => {
    const url = 'https://a.example/c.json';
    const doc = (body: unknown) => ({ status: 200, headers: {}, body: Buffer.from(JSON.stringify(body)) });
    expect(
      clientFromDocument(url, doc({ client_id: url, client_name: 'A', redirect_uris: ['https://a.example/cb'] })),
    ).toMatchObject({ client_id: url, client_name: 'A', metadata_document_host: 'a.example' });
    expect(() =>
      clientFromDocument(url, doc({ client_id: `${url}/`, client_name: 'A', redirect_uris: ['https://a.example/cb'] })),
    ).toThrow(/names another client_id/);
  });
});
