import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
// Users in the store and the svc users / svc posts commands; on SQLite and on PostgreSQL (the config's database_url).
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/app/open-app.js';
import { hashSecret } from '../../src/auth/secrets.js';
import { addUser, getUser, listUsers, resetUserToken, userByToken, UserError } from '../../src/auth/users.js';
import { run as postsCli } from '../../src/cli/posts.js';
import { run as usersCli } from '../../src/cli/users.js';
import { CliError } from '../../src/cli/common.js';
import { loadApp } from '../../src/app/open-app.js';
import { parseConfig } from '../../src/cli/load-config.js';
import { makeAppOn, ONE_HOST, tempDir } from '../support/app.js';
import { testTerminal } from '../support/cli.js';
import { DIALECTS, storeKit } from '../support/stores.js';
import { getPost } from '../../src/store/posts.js';

let app: App | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
  vi.restoreAllMocks();
});

describe.each(DIALECTS)('users on %s', (dialect) => {
  const kit = storeKit(dialect);
  afterAll(() => kit.stop());

  it('adds a user, stores only the token hash, and maps the token back to the user', async () => {
    app = await makeAppOn(kit, {}, ONE_HOST);
    const token = await addUser(app.store.sql, 'alice', 'editor');
    expect(token).toMatch(/^svc_user_[A-Za-z0-9_-]{43}$/);
    const row = (await app.store.sql.get<Record<string, unknown>>('SELECT * FROM users WHERE login = ?', ['alice']))!;
    expect(row.token_hash).toBe(hashSecret(token));
    expect(JSON.stringify(row)).not.toContain(token);
    expect(await userByToken(app.store.sql, token)).toEqual({ login: 'alice', role: 'editor' });
    expect(await userByToken(app.store.sql, `${token}x`)).toBeNull();
    expect(await userByToken(app.store.sql, 'svc_user_nope')).toBeNull();
    expect(await userByToken(app.store.sql, '')).toBeNull();
    expect(await getUser(app.store.sql, 'alice')).toEqual({ login: 'alice', role: 'editor' });
    expect(await getUser(app.store.sql, 'bob')).toBeNull();
  });

  it('refuses a taken login, a bad login and an unknown role, naming them', async () => {
    app = await makeAppOn(kit, {}, ONE_HOST);
    await addUser(app.store.sql, 'alice', 'editor');
    await expect(addUser(app!.store.sql, 'alice', 'subscriber')).rejects.toThrow(
      /login "alice": a user with this login already exists/,
    );
    await expect(addUser(app!.store.sql, 'bad login', 'subscriber')).rejects.toThrow(UserError);
    await expect(addUser(app!.store.sql, 'bob', 'root')).rejects.toThrow(
      /role "root": must be one of administrator, editor, author, contributor, subscriber/,
    );
    expect(await listUsers(app.store.sql)).toEqual([{ login: 'alice', role: 'editor' }]);
  });

  it('a reset token replaces the old one', async () => {
    app = await makeAppOn(kit, {}, ONE_HOST);
    const old = await addUser(app.store.sql, 'alice', 'author');
    const fresh = await resetUserToken(app.store.sql, 'alice');
    expect(await userByToken(app.store.sql, old)).toBeNull();
    expect(await userByToken(app.store.sql, fresh)).toEqual({ login: 'alice', role: 'author' });
    await expect(resetUserToken(app!.store.sql, 'nobody')).rejects.toThrow(/no such user/);
  });
});

describe.each(DIALECTS)('svc users / svc posts commands on %s', (dialect) => {
  const kit = storeKit(dialect);
  afterAll(() => kit.stop());

  async function configFile(): Promise<string> {
    const dir = tempDir();
    const file = join(dir, 'svc.json');
    writeFileSync(
      file,
      JSON.stringify({ data_dir: join(dir, 'data'), database_url: await kit.databaseUrl(), log_level: 'silent' }),
    );
    return file;
  }

  it('svc users add prints the bearer token alone on one stdout line', async () => {
    const config = await configFile();
    const t = testTerminal();
    expect(await usersCli(['add', 'alice', '--role', 'administrator', '--config', config], t.io)).toBe(0);
    const out = [t.stdout()];
    expect(out[0]).toMatch(/^svc_user_[A-Za-z0-9_-]+\n$/);
    app = await loadApp(parseConfig(JSON.parse((await import('node:fs')).readFileSync(config, 'utf8'))));
    expect(await userByToken(app.store.sql, out[0]!.trim())).toEqual({ login: 'alice', role: 'administrator' });
  });

  it('svc users add without --role or with a bad one fails with a clear error', async () => {
    const config = await configFile();
    const { io } = testTerminal();
    await expect(usersCli(['add', 'alice', '--config', config], io)).rejects.toThrow(/--role is required/);
    await expect(usersCli(['add', 'alice', '--role', 'king', '--config', config], io)).rejects.toThrow(CliError);
    await expect(usersCli(['add', 'alice', '--role', 'king', '--config', config], io)).rejects.toThrow(/role "king"/);
  });

  it('svc posts import loads a file; a bad file names line and field', async () => {
    const config = await configFile();
    const dir = tempDir();
    const good = join(dir, 'posts.json');
    writeFileSync(good, JSON.stringify([{ id: 5, url: 'https://e.org/5', status: 'publish', author: 'a' }]));
    const bad = join(dir, 'bad.ndjson');
    writeFileSync(bad, '{"id": 6, "url": "https://e.org/6", "status": "publish"}\n');
    const t = testTerminal();
    expect(await postsCli(['import', good, '--config', config], t.io)).toBe(0);
    expect(t.stdout()).toMatch(/imported 1 post from/);
    await expect(postsCli(['import', bad, '--config', config], t.io)).rejects.toThrow(/line 1: author: is required/);
    app = await loadApp(parseConfig(JSON.parse((await import('node:fs')).readFileSync(config, 'utf8'))));
    expect(await getPost(app.store.sql, 5)).toMatchObject({ url: 'https://e.org/5' });
    expect(await getPost(app.store.sql, 6)).toBeNull();
  });
});
