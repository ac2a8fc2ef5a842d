// For tests of what svc makes private (data directory 0700, databases and keys 0600): a file's permission bits, and
// the permissive umask most systems have for the whole file, so what is private is so by svc's own doing.
import { statSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';

export const modeOf = (p: string): number => statSync(p).mode & 0o777;

/** Runs the calling test file under umask 022, restoring the previous one after it. */
export function withPermissiveUmask(): void {
  let umask: number;
  beforeAll(() => {
    umask = process.umask(0o022);
  });
  afterAll(() => {
    process.umask(umask);
  });
}
