// `svc serve` run in the test's process (serveHere: what the MCP, console and App suites use) answers as the binary
// does, checks sign-ins at the tests' password cost, and on SIGTERM shuts down to status 0 leaving nothing of its
// own running in the worker, which goes on with other files (isolate: false): no listening socket, connection,
// ref'd timer or worker thread it created is left open. Its start-up line names the schedule in force.
import { AsyncLocalStorage, createHook } from 'node:async_hooks';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_PASSWORD_COST, tempDir } from '../support/app.js';
import { hereOutput, serveHere } from '../support/cli.js';
import { consoleSignIn as signIn } from '../support/console-sign-in.js';
import { article, startSite, writeJson, type TestSite } from '../support/site.js';
import { until } from '../support/wait.js';

const PASSWORD = 'a long admin password';

interface Tracked<T> {
  result: Promise<T>;
  /** The kinds of the handles still open. */
  left(): string[];
  /** Stops tracking. */
  stop(): void;
}

/**
 * The handles created by whatever runs inside `f` (and what that starts later, in its async context) that still
 * hold the event loop: ref'd timers, sockets, servers, worker threads — what a shutdown must have closed.
 */
function handlesOf<T>(f: () => Promise<T>): Tracked<T> {
  const mine = new AsyncLocalStorage<true>();
  const live = new Map<number, { type: string; resource: { hasRef?: () => boolean } }>();
  const hook = createHook({
    init(id, type, _trigger, resource) {
      if (mine.getStore()) live.set(id, { type, resource: resource as { hasRef?: () => boolean } });
    },
    destroy(id) {
      live.delete(id);
    },
  }).enable();
  return {
    result: mine.run(true, f),
    left: () =>
      [...live.values()]
        .filter((h) => /^(Timeout|TCPWRAP|TCPSERVERWRAP|WORKER|MESSAGEPORT)$/.test(h.type))
        .filter((h) => h.type !== 'Timeout' || h.resource.hasRef?.() !== false)
        .map((h) => h.type),
    stop: () => void hook.disable(),
  };
}

/** The stored hash of a login's password. */
function storedHash(database: string, login: string): string {
  const db = new Database(database, { readonly: true });
  try {
    return (db.prepare('SELECT password_hash FROM users WHERE login = ?').get(login) as { password_hash: string })
      .password_hash;
  } finally {
    db.close();
  }
}

describe('svc serve in the test process', () => {
  let site: TestSite;
  let dir: string;
  let config: string;
  beforeAll(async () => {
    site = await startSite({ '/': (_q, r) => void r.writeHead(200).end(article('Home', 'Hello.')) });
    dir = tempDir('svc-serve-here-');
    config = writeJson(dir, 'svc.json', {
      data_dir: join(dir, 'data'),
      targets: [{ host: site.host, scheme: 'http' }],
      rate_limits: { enabled: false },
    });
    await hereOutput(['users', 'add', 'admin', '--role', 'administrator', '--config', config]);
    await hereOutput(['users', 'set-password', 'admin', '--config', config], { input: `${PASSWORD}\n` });
  });
  afterAll(async () => {
    await site?.close();
  });

  it('signs in at the tests’ password cost, and SIGTERM ends it with 0 and nothing of it left running', async () => {
    const run = handlesOf(() => serveHere(config));
    const serve = await run.result;
    expect(serve.logs.find((l) => l.msg === 'svc serve listening')?.base_url).toBe(serve.baseUrl);
    expect(serve.stderr()).toContain(`console      ${serve.baseUrl}/console/`);
    expect((await fetch(`${serve.baseUrl}/healthz`)).status).toBe(200);
    const database = serve.logs.find((l) => l.msg === 'serving project')!.database as string;
    const { N, r, p } = TEST_PASSWORD_COST;
    const atTestCost = new RegExp(`^scrypt\\$${N}\\$${r}\\$${p}\\$`);
    const hash = storedHash(database, 'admin');
    expect(hash).toMatch(atTestCost);
    expect(await signIn(serve.baseUrl, 'admin', PASSWORD)).toBe(303);
    expect(await signIn(serve.baseUrl, 'admin', 'not the password')).toBe(401);
    // Checked at the server's cost: had it been the default, the sign-in would have stored the hash again at it.
    expect(storedHash(database, 'admin')).toBe(hash);

    await serve.stop(); // throws unless the run ended 0
    expect(serve.logs.map((l) => l.msg)).toContain('shutting down');
    try {
      await until('the server to leave nothing running', () => run.left().length === 0, 10_000).catch(() =>
        expect(run.left(), 'handles svc serve left open').toEqual([]),
      );
    } finally {
      run.stop();
    }
    expect((await fetch(`${serve.baseUrl}/healthz`).catch((err: unknown) => err)) instanceof Error).toBe(true);
  });

  it('says at start-up the schedule in force: the config’s, then the one stored in its place', async () => {
    const said = async () => {
      const serve = await serveHere(config);
      try {
        return serve.logs.find((l) => l.msg === 'serving project')!;
      } finally {
        await serve.stop();
      }
    };
    expect(await said()).toMatchObject({ schedule: {}, schedule_source: 'config' });
    await hereOutput(['schedule', 'set', '--full', '0 4 * * *', '--config', config]);
    expect(await said()).toMatchObject({ schedule: { full: '0 4 * * *' }, schedule_source: 'stored' });
    await hereOutput(['schedule', 'clear', '--config', config]);
  });
});
