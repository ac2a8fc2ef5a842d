// The data directory and the database files hold password, token and key hashes: they are the service's alone. A
// directory made here is 0700 and every database file (with its -wal and -shm, and a backup) 0600, whatever the
// umask. An existing directory is left as its owner made it (it may be shared on purpose, or be `.`): a looser one
// is only reported, so the operator can tighten it.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Creates `dir` (and its missing parents) readable by this user only; an existing one is left as it is. */
export function makePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/** Why `dir` is open to other local users (group or others may read or enter it), or null when it is not (or is missing). */
export function looseDirProblem(dir: string): string | null {
  let mode: number;
  try {
    mode = statSync(dir).mode & 0o777;
  } catch {
    return null;
  }
  if (!(mode & 0o077)) return null;
  return `the data directory ${dir} is ${mode.toString(8).padStart(4, '0')}: other local users can reach the databases in it (password, token and key hashes); make it private with: chmod 700 ${dir}`;
}

/** Makes a database file and its -wal and -shm (those that exist) readable and writable by this user only. */
export function makeDatabaseFilesPrivate(path: string): void {
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    if (!existsSync(file)) continue;
    try {
      chmodSync(file, PRIVATE_FILE_MODE);
    } catch (err) {
      // Another user's file that we may still open (a shared group, say): theirs to tighten.
      if ((err as NodeJS.ErrnoException).code !== 'EPERM') throw err;
    }
  }
}

/** Creates `file`, which must not exist, empty and 0600, so what is written into it is never readable by others. */
export function createPrivateFile(file: string): void {
  closeSync(openSync(file, 'wx', PRIVATE_FILE_MODE));
  chmodSync(file, PRIVATE_FILE_MODE);
}
