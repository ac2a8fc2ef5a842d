// vitest globalSetup: a run never tests a stale build. The suites that run svc as users do start dist/src/server.js
// (and dist/test/support/shared-worker.js), so when dist/ is missing or any of their sources is newer than its
// output, this runs the `build` script before any test file; a current dist/ costs one walk of mtimes.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT, SERVER_JS } from './paths.js';

/**
 * The sources of what tests run compiled: svc itself and the test support (shared-worker.js). dist/ also holds the
 * test files and bench/, but nothing runs those from dist/ during a test run, so editing a test rebuilds nothing.
 */
const SOURCE_DIRS = ['src', 'test/support'];

/** The sources whose compiled output is missing or older than they are (relative to ROOT). */
export function staleSources(root = ROOT): string[] {
  const stale: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) {
        const out = join(root, 'dist', relative(root, p)).replace(/\.ts$/, '.js');
        if (!existsSync(out) || statSync(out).mtimeMs < statSync(p).mtimeMs) stale.push(relative(root, p));
      }
    }
  };
  for (const d of SOURCE_DIRS) if (existsSync(join(root, d))) walk(join(root, d));
  return stale;
}

export default function setup(): void {
  const stale = staleSources();
  if (!stale.length && existsSync(SERVER_JS)) return;
  process.stderr.write(
    `building dist/: ${stale.length} source(s) newer than their output (${stale.slice(0, 3).join(', ')}${stale.length > 3 ? ', …' : ''})\n`,
  );
  const r = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, encoding: 'utf8' });
  // tsc writes its output even when it reports type errors; a test run may go on with a fresh build of code that
  // does not type-check (typecheck says so), but never with a stale one.
  if (r.status !== 0) process.stderr.write(`npm run build exited ${r.status}:\n${r.stdout}${r.stderr}\n`);
  const still = staleSources();
  if (still.length || !existsSync(SERVER_JS))
    throw new Error(
      `dist/ is still stale after npm run build (${still.slice(0, 3).join(', ')}): ${r.stdout}${r.stderr}`,
    );
}
