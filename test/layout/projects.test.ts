// Every test file runs in exactly one vitest project (test/support/projects.ts), and the lists say what each file
// does: a unit file starts no server, process, browser or database file (its project shares one module graph and
// is the edit loop), a file that runs the built svc or Chromium is e2e, and an e2e file does one of those. A new file
// lands in integration unless listed; this names the list it belongs in instead.
import { globSync, readFileSync } from 'node:fs';
import { matchesGlob } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/paths.js';
import { ALL_TESTS, E2E, SLOWEST, UNIT } from '../support/projects.js';

const files = globSync(ALL_TESTS, { cwd: ROOT }).sort();
/** This file names the patterns it looks for. */
const SELF = 'test/layout/projects.test.ts';
const inList = (list: readonly string[], f: string) => list.some((g) => matchesGlob(f, g));
const source = (f: string) => readFileSync(`${ROOT}/${f}`, 'utf8');

/** What only a file that runs the built svc, or Chromium, calls (test/support/cli.ts, mcp.ts, chromium.ts …). */
const E2E_MARK =
  /\b(spawnSvc|runSvc|serveSvc|svcOutput|spawnServe|stdioClient|SERVER_JS|launchChromium|launchBrowser)\b/;

/** What a unit file may not import: servers, processes, browsers, stores on files or PostgreSQL, the app. */
const UNIT_FORBIDDEN: [RegExp, string][] = [
  [/from 'node:(child_process|http|https|net|worker_threads)'/, 'a node module for servers or processes'],
  [/from 'playwright-core'/, 'playwright'],
  [
    /from '(\.\.\/)+support\/(app|stores|stored|postgres|shared-db|cli|site|mcp|mcp-raw|oauth|chromium|fake-backend)\.js'/,
    'a test/support helper that opens a store, an app, a server or a process',
  ],
  [/src\/(store\/sqlite\/store|store\/pg\/|app\/open-app)/, 'a store on a file or PostgreSQL, or the app'],
  [/new Database\((?!':memory:')/, 'a SQLite file'],
];

describe('vitest projects', () => {
  it('each list entry names a test file that exists', () => {
    for (const g of [...UNIT, ...E2E, ...SLOWEST])
      expect(
        files.some((f) => matchesGlob(f, g)),
        `${g} matches no test file`,
      ).toBe(true);
  });

  it('every test file is in exactly one project', () => {
    expect(files.length).toBeGreaterThan(100);
    for (const f of files) {
      const projects = [inList(UNIT, f) && 'unit', inList(E2E, f) && 'e2e'].filter(Boolean);
      expect(projects.length, `${f} is in ${projects.join(' and ')}`).toBeLessThanOrEqual(1);
    }
  });

  it('a unit file starts no server, process, browser or database file', () => {
    const bad: string[] = [];
    for (const f of files.filter((x) => inList(UNIT, x) && x !== SELF))
      for (const [re, what] of UNIT_FORBIDDEN) if (re.test(source(f))) bad.push(`${f} imports ${what}: not unit`);
    expect(bad).toEqual([]);
  });

  it('a file that runs the built svc or Chromium is e2e, and every e2e file does', () => {
    const bad: string[] = [];
    for (const f of files.filter((x) => x !== SELF)) {
      const runsSvc = E2E_MARK.test(source(f));
      if (runsSvc && !inList(E2E, f)) bad.push(`${f} runs svc or Chromium: list it in E2E (test/support/projects.ts)`);
      if (!runsSvc && inList(E2E, f)) bad.push(`${f} runs neither svc nor Chromium: not e2e`);
    }
    expect(bad).toEqual([]);
  });
});
