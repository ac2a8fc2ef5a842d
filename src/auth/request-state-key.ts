// Where the requestState signing key lives. Every process that may receive a confirmation's retry must hold the same
// key: with SQLite they share the data directory, so the key is a file there (made 0600 on first use, 32 random
// bytes); with PostgreSQL the instances may share nothing but the database, so it is a row there.
import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createPrivateFile, makePrivateDir } from '../store/private-files.js';
import { sharedServerKey } from '../store/server-keys.js';
import type { Sql } from '../store/sql.js';
import { REQUEST_STATE_KEY_BYTES } from './request-state.js';

export const REQUEST_STATE_KEY_FILE = 'request-state.key';
const KEY_NAME = 'request_state';

function newKeyText(): string {
  return randomBytes(REQUEST_STATE_KEY_BYTES).toString('base64url');
}

/** The key written as `text` (base64url), or an error naming where it came from and what is wrong. */
export function decodeRequestStateKey(text: string, where: string): Buffer {
  const trimmed = text.trim();
  const key = Buffer.from(trimmed, 'base64url');
  if (!/^[A-Za-z0-9_-]+$/.test(trimmed) || key.length !== REQUEST_STATE_KEY_BYTES) {
    throw new Error(
      `${where} does not hold a request state key (${REQUEST_STATE_KEY_BYTES} bytes, base64url); delete it and a new one is made (confirmations in flight are then asked again)`,
    );
  }
  return key;
}

/**
 * The key in `<dataDir>/request-state.key`, made on first use. It is written whole to a private temporary file and
 * then linked into place, so a process starting at the same moment reads either no file or the complete one, and
 * the one that loses the race reads the winner's key.
 */
export function requestStateKeyFromDataDir(dataDir: string): Buffer {
  const file = join(dataDir, REQUEST_STATE_KEY_FILE);
  try {
    return decodeRequestStateKey(readFileSync(file, 'utf8'), file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  makePrivateDir(dataDir);
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  createPrivateFile(temp);
  try {
    writeFileSync(temp, `${newKeyText()}\n`);
    linkSync(temp, file);
  } catch (err) {
    // EEXIST: another process made the key first; theirs is the one everyone uses.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    unlinkSync(temp);
  }
  return decodeRequestStateKey(readFileSync(file, 'utf8'), file);
}

/** The key shared by every process on a PostgreSQL database (its server_keys row), made by the first to ask. */
export async function requestStateKeyFromDatabase(sql: Sql): Promise<Buffer> {
  return decodeRequestStateKey(
    await sharedServerKey(sql, KEY_NAME, newKeyText),
    `the database's server_keys row ${KEY_NAME}`,
  );
}

/** The key for a store: its server_keys row on PostgreSQL, else the file in `dataDir` beside the SQLite database. */
export async function requestStateKey(sql: Sql, dataDir: string): Promise<Buffer> {
  return sql.dialect === 'pg' ? requestStateKeyFromDatabase(sql) : requestStateKeyFromDataDir(dataDir);
}
