// Read commands (svc report, svc search) on a data directory they may not write: a backup mounted read-only, or
// another user's data. As root every file is writable, so the commands run as an unprivileged user when we are root.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { saveOutcomes, savePages } from '../../src/store/sqlite/writes.js';
import { Store } from '../../src/store/sqlite/store.js';
import { outcome, linkingPage as page } from '../support/writes.js';
import { SERVER_JS } from '../support/paths.js';

let dir: string;
let config: string;
const asRoot = process.getuid?.() === 0;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-readonly-'));
  config = join(dir, 'svc.json');
  writeFileSync(
    config,
    JSON.stringify({
      project: { public_token: 'readonly:eu-north-1' },
      data_dir: join(dir, 'data'),
      targets: [{ host: 'a.example' }],
    }),
  );
  const store = new Store(join(dir, 'data', 'svc.db'));
  savePages(store, [
    page('https://a.example/', ['https://a.example/gone'], { content: 'the wombat burrows at night' }),
  ]);
  saveOutcomes(store, [outcome('https://a.example/gone', 'not_found')]);
  store.close();
  for (const f of readdirSync(join(dir, 'data'))) chmodSync(join(dir, 'data', f), 0o444);
  chmodSync(join(dir, 'data'), 0o555);
  chmodSync(dir, 0o755);
  chmodSync(config, 0o644);
});
afterAll(() => chmodSync(join(dir, 'data'), 0o755));

function svc(args: string[]) {
  const cmd = asRoot
    ? ['runuser', '-u', 'nobody', '--', process.execPath, SERVER_JS, ...args]
    : [process.execPath, SERVER_JS, ...args];
  return spawnSync(cmd[0]!, cmd.slice(1), { encoding: 'utf8', env: { ...process.env, HOME: '/tmp' } });
}

it('svc report and svc search answer from a read-only data directory, and write nothing there', () => {
  const report = svc(['report', '--config', config, '--format', 'json']);
  // As root the commands run as nobody, who must be able to read the checkout (a clone under a 0700 folder, such
  // as mktemp -d makes, is not): say so rather than fail on svc's exit code.
  expect(report.stderr, asRoot ? `as nobody, from ${SERVER_JS}` : undefined).not.toMatch(/Cannot find module|EACCES/);
  expect(report.stderr).not.toMatch(/svc: /);
  expect(report.status).toBe(0);
  expect(JSON.parse(report.stdout).notFound.count).toBe(1);
  const search = svc(['search', 'wombat', '--config', config, '--json']);
  expect(search.status).toBe(0);
  expect(JSON.parse(search.stdout).total).toBe(1);
  expect(readdirSync(join(dir, 'data')).sort()).toEqual(['svc.db']);
});

it('a write command there fails with one line, no stack trace', () => {
  const r = svc(['keys', 'create', '--config', config]);
  expect(r.status).not.toBe(0);
  expect(
    r.stderr
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('svc:')),
  ).toHaveLength(1);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.stderr).toMatch(
    /svc: cannot write the data directory .*\/data \(SQLITE_READONLY.*\): it is read-only for this user; svc report and svc search still read it/,
  );
});
