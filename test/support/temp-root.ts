// vitest globalSetup: every temporary directory a test run makes (the tests', the svc processes they start, the
// PostgreSQL clusters) goes under one directory of its own, removed when the run ends, so a run leaves nothing in
// the system's temp folder however its tests end. Workers and child processes inherit TMPDIR; os.tmpdir() reads it.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'svc-tests-'));
  // Like /tmp itself: the read-only tests run svc as another user, which must make its own directories here.
  chmodSync(root, 0o1777);
  process.env.TMPDIR = root;
  return () => rmSync(root, { recursive: true, force: true, maxRetries: 3 });
}
