// The ability registry: names, schemas, capabilities, the version gate. SQLite only: over a FakeBackend, the store
// plays no part.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { App } from '../../src/app/open-app.js';
import { defineAbility, SVC_CATEGORY } from '../../src/abilities/define.js';
import { Registry } from '../../src/abilities/registry.js';
import { AbilityError } from '../../src/abilities/types.js';
import { compareVersions, hasAbilitiesApi } from '../../src/cms/version.js';
import { addRoleUsers, makeHost, SITE } from '../support/app.js';
import { type FakeBackend, makeFakeApp } from '../support/fake-backend.js';
import { openAbilityHost } from '../../src/app/ability-host.js';

const NAMES = [
  'svc/search',
  'svc/get-page',
  'svc/list-pages',
  'svc/get-page-meta',
  'svc/link-report',
  'svc/full-crawl',
  'svc/partial-crawl',
  'svc/manual-crawl',
  'svc/delete-pages',
  'svc/get-crawl',
];

let app: App;
let backend: FakeBackend;
afterEach(async () => app?.close());

async function setup(over = {}) {
  ({ app, backend } = await makeFakeApp(over));
  const users = await addRoleUsers(app);
  const { host, clock } = await makeHost(app);
  return { host, clock, users, admin: { user: users.administrator.user } };
}

async function errorOf(p: Promise<unknown>): Promise<AbilityError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AbilityError) return err;
    throw err;
  }
  throw new Error('expected an AbilityError, got a result');
}

describe('registry', () => {
  it('registers the ten svc abilities in the category svc, with names namespace/name', async () => {
    const { host } = await setup();
    const list = host.registry.list();
    expect(list.map((a) => a.name)).toEqual(NAMES);
    for (const a of list) {
      expect(a.category).toBe('svc');
      expect(a.name).toMatch(/^[a-z0-9-]+\/[a-z0-9-]+$/);
      expect(a.inputJsonSchema.type).toBe('object');
      expect(a.inputJsonSchema.additionalProperties).toBe(false);
      expect(a.outputJsonSchema.type).toBe('object');
      expect(a.description.length).toBeGreaterThan(80);
      expect(host.registry.get(a.name)).toBe(a);
    }
    expect(host.registry.get('svc/nope')).toBeUndefined();
    expect(host.registry.categories().map((c) => c.slug)).toEqual(['svc']);
  });

  it('publishes capabilities and annotations as the spec table says', async () => {
    const { host } = await setup();
    const row = (n: string) => {
      const a = host.registry.get(n)!;
      return [a.capability, a.annotations.readonly, a.annotations.destructive];
    };
    expect(row('svc/search')).toEqual(['read', true, false]);
    expect(row('svc/get-page')).toEqual(['read', true, false]);
    expect(row('svc/list-pages')).toEqual(['read', true, false]);
    expect(row('svc/get-page-meta')).toEqual(['read', true, false]);
    expect(row('svc/link-report')).toEqual(['manage_options', true, false]);
    expect(row('svc/full-crawl')).toEqual(['manage_options', false, false]);
    expect(row('svc/partial-crawl')).toEqual(['manage_options', false, false]);
    expect(row('svc/manual-crawl')).toEqual(['manage_options', false, false]);
    expect(row('svc/delete-pages')).toEqual(['manage_options', false, true]);
  });

  it('publishes JSON Schemas made from the zod schemas (limits, defaults, required fields)', async () => {
    const { host } = await setup();
    const report = host.registry.get('svc/link-report')!.inputJsonSchema as {
      properties: Record<string, Record<string, unknown>>;
      required?: string[];
    };
    expect(report.properties.limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 5000, default: 25 });
    expect(report.required ?? []).toEqual([]);
    const del = host.registry.get('svc/delete-pages')!.inputJsonSchema as {
      properties: Record<string, Record<string, unknown>>;
      required: string[];
    };
    expect(del.properties.urls).toMatchObject({ type: 'array', minItems: 1, maxItems: 50 });
    expect(del.required).toEqual(['urls']);
    expect((host.registry.get('svc/search')!.inputJsonSchema as { required: string[] }).required).toEqual(['terms']);
    expect((host.registry.get('svc/get-page-meta')!.inputJsonSchema as { required: string[] }).required).toEqual([
      'post_id',
    ]);
    const out = host.registry.get('svc/link-report')!.outputJsonSchema as { required: string[] };
    expect(out.required).toEqual([
      'status',
      'counts',
      'summary',
      'links',
      'targets',
      'top_links',
      'truncated',
      'next_cursor',
      'last_full_crawl',
    ]);
  });

  it('refuses bad ability names, unknown categories and duplicates', async () => {
    await setup();
    const r = new Registry({ fns: (await openAbilityHost(app)).functions, targets: [] });
    const def = (name: string, category = SVC_CATEGORY) => ({
      ...defineAbility({
        name,
        label: 'x',
        description: 'x',
        capability: 'read',
        annotations: { readonly: true, destructive: false, idempotent: true },
        inputSchema: z.object({}),
        outputSchema: z.object({}),
        run: async () => ({}),
      }),
      category,
    });
    expect(() => r.register(def('svc/x'))).toThrow(/category "svc" is not registered/);
    r.registerCategory({ slug: 'svc', label: 'svc', description: '' });
    for (const bad of ['svc', 'Svc/x', 'svc/x/y', 'svc/x_y', '/x', 'svc/'])
      expect(() => r.register(def(bad))).toThrow(/must match/);
    r.register(def('svc/x'));
    expect(() => r.register(def('svc/x'))).toThrow(/already registered/);
    expect(r.list().map((a) => a.name)).toEqual(['svc/x']);
  });

  it('answers ability_not_found (404) for an unknown name', async () => {
    const { host, admin } = await setup();
    const e = await errorOf(host.registry.execute('svc/nope', {}, admin));
    expect([e.code, e.status]).toEqual(['ability_not_found', 404]);
  });

  it('runs in-process through the ability object itself (obtain by name, execute)', async () => {
    const { host, admin } = await setup();
    const out = await host.registry.get('svc/search')!.execute({ terms: 'hello' }, admin);
    expect(out).toMatchObject({ success: true, results: { total: 1 } });
  });
});

describe('execute order', () => {
  it('applies the input schema default when input is absent (undefined or null)', async () => {
    const { host, admin } = await setup();
    await expect(host.registry.execute('svc/full-crawl', undefined, admin)).resolves.toMatchObject({
      mode: 'full',
      status: 'queued',
    });
    await expect(host.registry.execute('svc/partial-crawl', null, admin)).resolves.toMatchObject({ mode: 'partial' });
    await host.registry.execute('svc/link-report', undefined, admin);
    expect(backend.calls.at(-1)).toEqual({ method: 'linkReport', args: [{ target: undefined, limit: 25 }] });
  });

  it('an absent input where the schema has no default is an input error naming the required field', async () => {
    const { host, admin } = await setup();
    for (const input of [undefined, null]) {
      const e = await errorOf(host.registry.execute('svc/search', input, admin));
      expect(e.code).toBe('ability_invalid_input');
      expect(e.status).toBe(400);
      expect(e.message).toBe('invalid input for svc/search: terms: is required (must be a string)');
    }
  });

  it.each([
    ['svc/link-report', { limit: 99999 }, 'limit', /at most 5000/],
    ['svc/link-report', { limit: 0 }, 'limit', /at least 1/],
    ['svc/link-report', { limit: 10.5 }, 'limit', /whole number/],
    ['svc/link-report', { limit: '10' }, 'limit', /whole number/],
    ['svc/link-report', { refresh: 'yes' }, 'refresh', /true or false/],
    ['svc/link-report', { nope: 1 }, 'input', /unknown field\(s\) "nope"/],
    ['svc/link-report', { target: 'elsewhere.example' }, 'target', /not a configured target/],
    ['svc/search', {}, 'terms', /is required/],
    ['svc/search', { terms: '' }, 'terms', /must not be empty/],
    ['svc/search', { terms: '  \t ' }, 'terms', /must not be empty/],
    ['svc/search', { terms: 'x', search_params: { size: 1000 } }, 'search_params.size', /100/],
    ['svc/search', { terms: 'x', search_params: { colour: 'red' } }, 'search_params', /unknown field\(s\) "colour"/],
    ['svc/search', { terms: 'x', extra: true }, 'input', /unknown field\(s\) "extra"/],
    ['svc/get-page-meta', { post_id: 'abc' }, 'post_id', /whole number/],
    ['svc/get-page-meta', { post_id: -1 }, 'post_id', /at least 1/],
    ['svc/manual-crawl', { urls: [] }, 'urls', /at least 1 URL/],
    ['svc/manual-crawl', { urls: ['/relative'] }, 'urls[0]', /full http\(s\) URL/],
    [
      'svc/manual-crawl',
      { urls: ['https://elsewhere.example/x'] },
      'urls[0]',
      /host elsewhere\.example is not a configured target/,
    ],
    ['svc/manual-crawl', { urls: [`${SITE}/a`, 'ftp://x/y'] }, 'urls[1]', /full http\(s\) URL/],
    ['svc/delete-pages', { urls: [] }, 'urls', /at least 1 URL/],
    ['svc/delete-pages', { urls: Array.from({ length: 51 }, (_, i) => `${SITE}/p${i}`) }, 'urls', /at most 50 URLs/],
    ['svc/full-crawl', { mode: 'full' }, 'input', /unknown field\(s\) "mode"/],
    ['svc/full-crawl', 'go', 'input', /object/],
  ])('%s %j → ability_invalid_input naming %s', async (name, input, field, rule) => {
    const { host, admin } = await setup();
    const e = await errorOf(host.registry.execute(name, input, admin));
    expect(e.code).toBe('ability_invalid_input');
    expect(e.status).toBe(400);
    const issues = e.data.issues as { path: string; message: string }[];
    expect(issues.some((i) => i.path === field && rule.test(i.message))).toBe(true);
    expect(e.message).toContain(`${field}: `);
    expect(backend.calls).toEqual([]);
  });

  it('validates input before checking permissions (bad input without a user is still invalid input)', async () => {
    const { host } = await setup();
    const e = await errorOf(host.registry.execute('svc/link-report', { limit: 99999 }, { user: null }));
    expect(e.code).toBe('ability_invalid_input');
  });

  it('checks permissions before running the function: the backend is never reached', async () => {
    const { host, users } = await setup();
    const e = await errorOf(
      host.registry.execute('svc/delete-pages', { urls: [`${SITE}/a`] }, { user: users.editor.user }),
    );
    expect([e.code, e.status]).toEqual(['ability_invalid_permissions', 403]);
    expect(backend.calls).toEqual([]);
  });

  it('validates the output: a function answering outside its schema gives ability_invalid_output (500)', async () => {
    const { host, admin } = await setup();
    backend.report = { ...backend.report, truncated: 'sometimes' as unknown as boolean };
    const e = await errorOf(host.registry.execute('svc/link-report', {}, admin));
    expect([e.code, e.status]).toEqual(['ability_invalid_output', 500]);
    expect(e.message).toMatch(/output\.truncated|truncated/);
  });

  it('strips fields the output schema does not publish', async () => {
    const { host, admin } = await setup();
    backend.report = { ...backend.report, secret: 'x' } as never;
    const out = (await host.registry.execute('svc/link-report', { refresh: true }, admin)) as Record<string, unknown>;
    expect(out).not.toHaveProperty('secret');
  });
});

describe('version gate', () => {
  it.each([
    ['6.8', false],
    ['6.8.3', false],
    ['5.9', false],
    ['6.9', true],
    ['6.9.0', true],
    ['6.10', true],
    ['7', true],
  ])('host.version %s → abilities %s', async (version, enabled) => {
    ({ app, backend } = await makeFakeApp({ host: { version } }));
    const users = await addRoleUsers(app);
    const host = await openAbilityHost(app);
    expect(host.abilitiesEnabled).toBe(enabled);
    expect(host.registry.list()).toHaveLength(enabled ? 10 : 0);
    expect(hasAbilitiesApi(version)).toBe(enabled);
    if (enabled) {
      expect(host.disabledReason).toBeNull();
    } else {
      expect(host.disabledReason).toMatch(new RegExp(`${version.replace(/\./g, '\\.')} is older than 6\\.9`));
      const e = await errorOf(host.registry.execute('svc/search', { terms: 'x' }, { user: users.administrator.user }));
      expect(e.code).toBe('ability_not_found');
      expect(host.registry.categories()).toEqual([]);
    }
    // The plain functions work on every version, with no capability check.
    await expect(host.functions.svc_search('hello')).resolves.toMatchObject({ total: 1 });
    await expect(host.functions.svc_full_crawl()).resolves.toMatchObject({ mode: 'full' });
  });

  it('compares versions numerically', () => {
    expect(compareVersions('6.10', '6.9')).toBe(1);
    expect(compareVersions('6.9', '6.9.0')).toBe(0);
    expect(compareVersions('6.8.9', '6.9')).toBe(-1);
    expect(compareVersions('10.0', '9.9')).toBe(1);
  });
});
