// vitest globalSetup: every temporary directory a test run makes (the tests', the svc processes they start, the
// PostgreSQL clusters) goes under one directory of its own, removed when the run ends, so a run leaves nothing in
// the system's temp folder however its tests end. Workers and child processes inherit TMPDIR; os.tmpdir() reads it.
// Every project lists it first (vitest runs the projects' global setups before the root's); it runs once.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT_ENV = 'SVC_TESTS_TEMP_ROOT';

export default function setup(): (() => void) | undefined {
  if (process.env[ROOT_ENV]) return undefined;
  const root = mkdtempSync(join(tmpdir(), 'svc-tests-'));
  // Like /tmp itself: the read-only tests run svc as another user, which must make its own directories here.
  chmodSync(root, 0o1777);
  process.env[ROOT_ENV] = root;
  process.env.TMPDIR = root;
  return () => rmSync(root, { recursive: true, force: true, maxRetries: 3 });
}
