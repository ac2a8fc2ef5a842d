// Who may run which ability (over a FakeBackend: the role table is the registry's, the store plays no part there, so
// it runs on SQLite only), and which posts get-page-meta shows to whom (the post store: on SQLite and on PostgreSQL).
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/open-app.js';
import { AbilityError } from '../../src/abilities/types.js';
import { canReadPost, ROLE_CAPABILITIES, userCan } from '../../src/cms/roles.js';
import { ROLES, type Role, type User } from '../../src/model/users.js';
import { addRoleUsers, makeHost, POSTS, seedPosts, SITE } from '../support/app.js';
import { type FakeBackend, makeFakeApp } from '../support/fake-backend.js';
import type { AbilityHost } from '../../src/abilities/runtime.js';
import { DIALECTS, storeKit, type StoreKit } from '../support/stores.js';

let app: App;
let backend: FakeBackend;
let host: AbilityHost;
let users: Record<Role, { user: User; token: string }>;

/** For the describe it is called in, before each test or once before all: an app on the kit's store, users, posts, host. */
function appOn(kit: StoreKit, per: 'test' | 'describe'): void {
  const [before, after] = per === 'test' ? [beforeEach, afterEach] : [beforeAll, afterAll];
  before(async () => {
    ({ app, backend } = await makeFakeApp({ database_url: await kit.databaseUrl() }));
    users = await addRoleUsers(app);
    await seedPosts(app);
    ({ host } = await makeHost(app));
  });
  after(async () => app.close());
}

const INPUTS: Record<string, unknown> = {
  'svc/search': { terms: 'hello' },
  'svc/get-page-meta': { post_id: 1 },
  'svc/link-report': {},
  'svc/full-crawl': undefined,
  'svc/partial-crawl': {},
  'svc/manual-crawl': { urls: [`${SITE}/hello`] },
  'svc/delete-pages': { urls: [`${SITE}/hello`] },
};

const OK = 'allowed';
const DENIED = 'ability_invalid_permissions:403';
const NO_USER = 'ability_invalid_permissions:401';
const READ_ONLY_ROW = {
  'svc/search': OK,
  'svc/get-page-meta': OK,
  'svc/link-report': DENIED,
  'svc/full-crawl': DENIED,
  'svc/partial-crawl': DENIED,
  'svc/manual-crawl': DENIED,
  'svc/delete-pages': DENIED,
};

// role × ability → allowed, or the exact error: every role may search and read page meta; only manage_options
// (administrator) may read the link report and start crawls; no user gets 401.
const TABLE: Record<Role | 'no user', Record<string, string>> = {
  administrator: Object.fromEntries(Object.keys(INPUTS).map((n) => [n, OK])),
  editor: READ_ONLY_ROW,
  author: READ_ONLY_ROW,
  contributor: READ_ONLY_ROW,
  subscriber: READ_ONLY_ROW,
  'no user': Object.fromEntries(Object.keys(INPUTS).map((n) => [n, NO_USER])),
};

const cases = Object.entries(TABLE).flatMap(([role, row]) =>
  Object.entries(row).map(([ability, expected]) => [role, ability, expected] as const),
);

describe('role × ability', () => {
  appOn(storeKit('sqlite'), 'test');

  it.each(cases)('%s → %s: %s', async (role, ability, expected) => {
    const user = role === 'no user' ? null : users[role as Role].user;
    let outcome: string;
    try {
      const out = await host.registry.execute(ability, INPUTS[ability], { user });
      expect(out).toBeTypeOf('object');
      outcome = OK;
    } catch (err) {
      if (!(err instanceof AbilityError)) throw err;
      outcome = `${err.code}:${err.status}`;
      if (err.code === 'ability_invalid_permissions') {
        expect(err.message).toContain(ability);
        expect(err.message).toContain(host.registry.get(ability)!.capability);
      }
    }
    expect(outcome).toBe(expected);
    // A refused call never reaches the backend.
    if (expected !== OK) expect(backend.calls).toEqual([]);
  });

  it('a refused caller gets no fallback to the plain function', async () => {
    const e = await host.registry
      .execute('svc/full-crawl', {}, { user: users.subscriber.user })
      .catch((err: unknown) => err);
    expect(e).toBeInstanceOf(AbilityError);
    expect(backend.count('startCrawl')).toBe(0);
  });

  it('a no-user error says no user is set', async () => {
    const e = (await host.registry
      .execute('svc/search', { terms: 'x' }, { user: null })
      .catch((err: unknown) => err)) as AbilityError;
    expect(e.message).toMatch(/no user is set/);
  });
});

describe('roles and capabilities', () => {
  it('grants capabilities as the CMS does', () => {
    expect(ROLE_CAPABILITIES.administrator).toEqual(
      expect.arrayContaining(['read', 'manage_options', 'read_private_posts']),
    );
    for (const r of ROLES) expect(userCan({ login: 'x', role: r }, 'read')).toBe(true);
    expect(ROLES.filter((r) => userCan({ login: 'x', role: r }, 'manage_options'))).toEqual(['administrator']);
    expect(ROLES.filter((r) => userCan({ login: 'x', role: r }, 'read_private_posts'))).toEqual([
      'administrator',
      'editor',
    ]);
    expect(userCan(null, 'read')).toBe(false);
  });

  it.each([
    ['publish', 'someone', [true, true, true, true, true, true]],
    ['private', 'author', [true, true, true, false, false, false]],
    ['draft', 'contributor', [true, true, false, true, false, false]],
    ['pending', 'contributor', [true, true, false, true, false, false]],
    ['future', 'subscriber', [true, true, false, false, true, false]],
  ] as const)(
    'a %s post by %s is readable by admin, editor, author, contributor, subscriber, nobody: %j',
    (status, author, expected) => {
      const who: (User | null)[] = [...ROLES.map((r) => ({ login: r, role: r })), null];
      expect(who.map((u) => canReadPost(u, { status, author }))).toEqual(expected);
    },
  );
});

describe.each(DIALECTS)('svc/get-page-meta visibility on %s', (dialect) => {
  const kit = storeKit(dialect);
  afterAll(() => kit.stop());
  // One app for these reads (the one test that deletes a post puts it back).
  appOn(kit, 'describe');

  async function answer(role: Role, postId: number): Promise<unknown> {
    try {
      return await host.registry.execute('svc/get-page-meta', { post_id: postId }, { user: users[role].user });
    } catch (err) {
      if (!(err instanceof AbilityError)) throw err;
      return { code: err.code, message: err.message, status: err.status, data: err.data };
    }
  }

  it('a missing post and a hidden post give the same code, message and status', async () => {
    // post 4 is private (by administrator); post 404 does not exist. Ask for ids that differ only in existence.
    const hidden = await answer('subscriber', 4);
    const missing = await answer('subscriber', 4000);
    expect(hidden).toMatchObject({ code: 'svc_post_not_found', status: 404 });
    expect({ ...(hidden as object), message: (hidden as { message: string }).message.replace('4', 'N') }).toEqual({
      ...(missing as object),
      message: (missing as { message: string }).message.replace('4000', 'N'),
    });
    // And for the same id: delete the post, ask again — the answer is identical.
    const before = await answer('author', 4);
    await app.store.sql.run('DELETE FROM posts WHERE id = 4');
    try {
      expect(await answer('author', 4)).toEqual(before);
    } finally {
      await seedPosts(app, [POSTS[3]!]);
    }
  });

  it.each([
    // role, post id, readable?
    ['administrator', 2, true],
    ['administrator', 3, true],
    ['administrator', 4, true],
    ['editor', 2, true],
    ['editor', 4, true],
    ['author', 2, true], // its own private post
    ['author', 3, false], // someone else's draft
    ['author', 4, false],
    ['contributor', 3, true], // its own draft
    ['contributor', 2, false],
    ['subscriber', 2, false],
    ['subscriber', 3, false],
    ['subscriber', 1, true], // published: everyone
    ['contributor', 1, true],
  ] as const)('%s reading post %i → %s', async (role, id, readable) => {
    const out = await answer(role, id);
    if (readable) expect(out).toMatchObject({ customFields: { postId: { type: 'number', value: id } } });
    else
      expect(out).toEqual({
        code: 'svc_post_not_found',
        message: `no post ${id} that you can read`,
        status: 404,
        data: {},
      });
  });

  it('returns the page meta of a published post', async () => {
    expect(await answer('subscriber', 1)).toEqual({
      showInSearch: true,
      title: 'Hello world',
      url: `${SITE}/hello`,
      created: '2026-05-01T09:00:00.000Z',
      modified: '2026-05-02T09:00:00.000Z',
      language: 'en',
      tags: ['public', 'post_type/post', 'taxonomy/category/news', 'domain/127.0.0.1:18123'],
      customFields: { postId: { type: 'number', value: 1 } },
      superwords: [],
      // No crawl has seen the page: the post asks to be in search, but it is not there yet.
      index: { indexed: false, in_search: false, last_crawled: null },
    });
  });
});
