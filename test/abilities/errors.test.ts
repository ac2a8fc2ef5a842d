// How an ability fails, case by case: no capability or no user → ability_invalid_permissions; a post the user may not
// read looks missing; bad input → ability_invalid_input; an upstream failure → svc_api_error with its status; and how
// each BackendError maps to an ability error. SQLite only: over a FakeBackend, the mapping is the registry's; the
// post-store case (hidden = missing) runs on both stores in permissions.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/open-app.js';
import { AbilityError } from '../../src/abilities/types.js';
import { BackendError } from '../../src/model/errors.js';
import { addRoleUsers, makeHost, seedPosts, SITE } from '../support/app.js';
import { type FakeBackend, makeFakeApp } from '../support/fake-backend.js';

let app: App;
let backend: FakeBackend;
afterEach(async () => app.close());

async function setup() {
  ({ app, backend } = await makeFakeApp());
  const users = await addRoleUsers(app);
  await seedPosts(app);
  const { host } = await makeHost(app);
  const run = async (name: string, input: unknown, role: keyof typeof users | null = 'administrator') => {
    try {
      return await host.registry.execute(name, input, { user: role ? users[role].user : null });
    } catch (err) {
      if (err instanceof AbilityError) return err;
      throw err;
    }
  };
  return { run };
}

describe('the ability error cases', () => {
  it('row 1: a user lacking the capability → ability_invalid_permissions', async () => {
    const { run } = await setup();
    expect(await run('svc/link-report', {}, 'editor')).toMatchObject({
      code: 'ability_invalid_permissions',
      status: 403,
    });
  });

  it('row 1: no current user → ability_invalid_permissions', async () => {
    const { run } = await setup();
    expect(await run('svc/get-page-meta', { post_id: 1 }, null)).toMatchObject({
      code: 'ability_invalid_permissions',
      status: 401,
    });
  });

  it('row 2: get-page-meta of a non-public post the user may not read → the same error as a missing post', async () => {
    const { run } = await setup();
    const hidden = (await run('svc/get-page-meta', { post_id: 2 }, 'subscriber')) as AbilityError;
    const missing = (await run('svc/get-page-meta', { post_id: 2000 }, 'subscriber')) as AbilityError;
    expect([hidden.code, hidden.status]).toEqual(['svc_post_not_found', 404]);
    expect([missing.code, missing.status]).toEqual([hidden.code, hidden.status]);
    expect(hidden.message.replace(/\d+/, 'N')).toBe(missing.message.replace(/\d+/, 'N'));
    expect(hidden.data).toEqual(missing.data);
  });

  it('row 3: input violating the schema → an error object (ability_invalid_input)', async () => {
    const { run } = await setup();
    const e = (await run('svc/delete-pages', { urls: 'x' })) as AbilityError;
    expect(e).toBeInstanceOf(AbilityError);
    expect(e).toMatchObject({ code: 'ability_invalid_input', status: 400 });
    expect(e.message).toMatch(/urls: must be an array of URLs/);
  });

  it('row 4: failure of the upstream API → an error object (svc_api_error with the upstream status)', async () => {
    const { run } = await setup();
    backend.failWith = new BackendError('upstream_error', '/v1 answered 500', 500);
    const e = (await run('svc/search', { terms: 'x' })) as AbilityError;
    expect(e).toMatchObject({ code: 'svc_api_error', status: 502, data: { upstream_status: 500 } });
    expect(e.message).toContain('/v1 answered 500');
  });
});

describe('backend failures', () => {
  it.each([
    ['svc/full-crawl', {}],
    ['svc/partial-crawl', {}],
    ['svc/manual-crawl', { urls: [`${SITE}/hello`] }],
    ['svc/delete-pages', { urls: [`${SITE}/hello`] }],
    ['svc/link-report', { refresh: true }],
    ['svc/search', { terms: 'hello' }],
  ])('%s: an unreachable upstream → svc_api_error 502', async (name, input) => {
    const { run } = await setup();
    backend.failWith = new BackendError('upstream_error', 'cannot reach the /v1 service: ECONNREFUSED');
    expect(await run(name, input)).toMatchObject({
      code: 'svc_api_error',
      status: 502,
      data: { upstream_status: 502 },
    });
  });

  it('a crawl already running → svc_api_error 409', async () => {
    const { run } = await setup();
    backend.failWith = new BackendError('conflict', 'a crawl of this project is already running');
    expect(await run('svc/full-crawl', {})).toMatchObject({
      code: 'svc_api_error',
      status: 409,
      data: { upstream_status: 409 },
      message: expect.stringMatching(/already running/),
    });
  });

  it('bad input the backend catches stays an input error', async () => {
    const { run } = await setup();
    backend.failWith = new BackendError('invalid_input', 'urls[0]: not a page of this site');
    expect(await run('svc/manual-crawl', { urls: [`${SITE}/x`] })).toMatchObject({
      code: 'ability_invalid_input',
      status: 400,
      message: expect.stringContaining('urls[0]'),
    });
  });

  it('an error that is not a BackendError is not disguised', async () => {
    const { run } = await setup();
    backend.failWith = new TypeError('bug') as unknown as BackendError;
    await expect(run('svc/search', { terms: 'x' })).rejects.toThrow(TypeError);
  });
});
