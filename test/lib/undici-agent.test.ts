// src/lib/undici-agent.ts loads four of undici's internal files by path, which undici does not promise to keep.
// This test reads those paths out of the source and fails, naming the path, when an upgrade of undici moves one
// or changes what it exports from what undici's public entry gives.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import * as ours from '../../src/lib/undici-agent.js';

const require = createRequire(import.meta.url);
const source = readFileSync(new URL('../../src/lib/undici-agent.ts', import.meta.url), 'utf8');
const internalPaths = [...source.matchAll(/require\('(undici\/[^']+)'\)/g)].map((m) => m[1]!);

describe('undici internals used by src/lib/undici-agent.ts', () => {
  // The full undici, whose public names each internal file must still be.
  const undici = require('undici') as Record<string, unknown> & { Dispatcher: { prototype: object } };
  /** What each internal file must equal in the public entry. */
  const expected: Record<string, (m: unknown) => void> = {
    'undici/lib/dispatcher/dispatcher.js': (m) => expect(m).toBe(undici.Dispatcher),
    'undici/lib/dispatcher/agent.js': (m) => expect(m).toBe(undici.Agent),
    'undici/lib/core/connect.js': (m) => expect(m).toBe(undici.buildConnector),
    // The request methods undici's entry copies onto every dispatcher (the wiring step the source repeats).
    'undici/lib/api/index.js': (m) => {
      const api = m as Record<string, unknown>;
      expect(Object.keys(api)).toEqual(expect.arrayContaining(['request', 'stream', 'pipeline', 'connect', 'upgrade']));
      const proto = undici.Dispatcher.prototype as Record<string, unknown>;
      for (const [name, fn] of Object.entries(api)) expect(proto[name], name).toBe(fn);
    },
  };

  it('the source loads exactly the internal files this test knows', () => {
    expect(internalPaths.sort()).toEqual(Object.keys(expected).sort());
  });

  for (const path of Object.keys(expected)) {
    it(`${path} resolves in the installed undici and is what its public entry exports`, () => {
      expect(() => require.resolve(path), `${path} no longer resolves`).not.toThrow();
      expected[path]!(require(path));
    });
  }

  it('the Agent and connector svc exports are undici’s own, with request() wired on the Agent', () => {
    expect(ours.Agent).toBe(undici.Agent);
    expect(ours.buildConnector).toBe(undici.buildConnector);
    const agent = new ours.Agent();
    expect(typeof agent.request).toBe('function');
    return agent.close();
  });
});
