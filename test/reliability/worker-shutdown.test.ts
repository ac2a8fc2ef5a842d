// Threads that hold a SQLite connection end without taking the process down: better-sqlite3 up to 12 could abort
// a Node 24 process at worker-thread shutdown ("Assertion failed: (env) != nullptr"), now and then, so the writer
// thread is started and ended many times over, every way it ends, in a child process of the running Node.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/paths.js';

const ROUNDS = 30;

const dir = mkdtempSync(join(tmpdir(), 'svc-worker-shutdown-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The child: for each round a store and its writer thread ended cleanly, and a writer thread terminated with its connection open; then it exits while one still runs. */
function childScript(dbPath: string): string {
  const dist = (p: string) => JSON.stringify(pathToFileURL(join(ROOT, 'dist/src', p)).href);
  return `
import { Worker } from 'node:worker_threads';
import { Store } from ${dist('store/sqlite/store.js')};
import { CrawlWriter } from ${dist('store/sqlite/crawl-writer.js')};
const path = ${JSON.stringify(dbPath)};
const script = new URL(${dist('store/sqlite/writer-worker.js')});
const online = (w) => new Promise((resolve, reject) => { w.once('online', resolve); w.once('error', reject); });
new Store(path).close(); // migrated once, as the crawling process does before its writer starts
for (let i = 0; i < ${ROUNDS}; i++) {
  const store = new Store(path);
  const writer = new CrawlWriter(store, 1);
  await writer.close();
  store.close();
  const w = new Worker(script, { workerData: { path } });
  await online(w);
  await new Promise((r) => setTimeout(r, i % 5));
  await w.terminate();
}
const last = new Worker(script, { workerData: { path } });
await online(last);
process.stdout.write('rounds done\\n');
process.exit(0);
`;
}

describe('writer thread shutdown', () => {
  it(`starts and ends the writer thread ${ROUNDS * 2} times and exits with one still open: exit 0, no assertion`, async () => {
    if (!existsSync(join(ROOT, 'dist/src/store/sqlite/writer-worker.js')))
      throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
    const { code, signal, stdout, stderr } = await new Promise<{
      code: number | null;
      signal: string | null;
      stdout: string;
      stderr: string;
    }>((resolve) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', childScript(join(dir, 'svc.db'))], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (c: Buffer) => (out += c));
      child.stderr.on('data', (c: Buffer) => (err += c));
      child.on('close', (c, s) => resolve({ code: c, signal: s, stdout: out, stderr: err }));
    });
    expect(stderr).not.toMatch(/Assertion failed|Abort/i);
    expect({ code, signal }, stderr).toEqual({ code: 0, signal: null });
    expect(stdout).toBe('rounds done\n');
  }, 60_000);
});
