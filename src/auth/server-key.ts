// Where a key the server makes for itself lives (the request-state signing key, the sign-in forms' signing key, the
// webhook secrets' sealing key).
// Every process that serves the same data must hold the same key: with SQLite they share the data directory, so the
// key is a file there (made 0600 on first use, random bytes); with PostgreSQL the instances may share nothing but the
// database, so it is a server_keys row there.
import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createPrivateFile, makePrivateDir } from '../store/private-files.js';
import { sharedServerKey } from '../store/server-keys.js';
import type { Sql } from '../store/sql.js';

/** One kind of server key: its file in the data directory, its server_keys row, its length and what it is called. */
export interface ServerKeySpec {
  file: string;
  name: string;
  bytes: number;
  /** As an error names it: "a request state key". */
  what: string;
  /** What deleting a bad key costs, for the error's advice. */
  lossIfReplaced: string;
}

/**
 * The key that signs sign-in forms (HMAC-SHA256): a form one process issued is taken by any other serving the same
 * data (several `svc serve` behind a load balancer), and a restart spoils no open form.
 */
export const SIGN_IN_FORM_KEY: ServerKeySpec = {
  file: 'sign-in-form.key',
  name: 'sign_in_forms',
  bytes: 32,
  what: 'a sign-in form key',
  lossIfReplaced: 'sign-in pages open at that moment ask once more',
};

/** The key that seals the console-added webhooks' signing secrets (AES-256-GCM): every process must open them. */
export const WEBHOOK_SECRETS_KEY: ServerKeySpec = {
  file: 'webhook-secrets.key',
  name: 'webhook_secrets',
  bytes: 32,
  what: 'a webhook secrets key',
  lossIfReplaced: 'webhooks added in the console can then no longer be signed: remove and add them again',
};

function newKeyText(spec: ServerKeySpec): string {
  return randomBytes(spec.bytes).toString('base64url');
}

/** The key written as `text` (base64url), or an error naming where it came from and what is wrong. */
export function decodeServerKey(spec: ServerKeySpec, text: string, where: string): Buffer {
  const trimmed = text.trim();
  const key = Buffer.from(trimmed, 'base64url');
  if (!/^[A-Za-z0-9_-]+$/.test(trimmed) || key.length !== spec.bytes) {
    throw new Error(
      `${where} does not hold ${spec.what} (${spec.bytes} bytes, base64url); delete it and a new one is made (${spec.lossIfReplaced})`,
    );
  }
  return key;
}

/**
 * The key in `<dataDir>/<spec.file>`, made on first use. It is written whole to a private temporary file and then
 * linked into place, so a process starting at the same moment reads either no file or the complete one, and the one
 * that loses the race reads the winner's key.
 */
export function serverKeyFromDataDir(spec: ServerKeySpec, dataDir: string): Buffer {
  const file = join(dataDir, spec.file);
  try {
    return decodeServerKey(spec, readFileSync(file, 'utf8'), file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  makePrivateDir(dataDir);
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  createPrivateFile(temp);
  try {
    writeFileSync(temp, `${newKeyText(spec)}\n`);
    linkSync(temp, file);
  } catch (err) {
    // EEXIST: another process made the key first; theirs is the one everyone uses.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    unlinkSync(temp);
  }
  return decodeServerKey(spec, readFileSync(file, 'utf8'), file);
}

/** The key shared by every process on a PostgreSQL database (its server_keys row), made by the first to ask. */
export async function serverKeyFromDatabase(spec: ServerKeySpec, sql: Sql): Promise<Buffer> {
  return decodeServerKey(
    spec,
    await sharedServerKey(sql, spec.name, () => newKeyText(spec)),
    `the database's server_keys row ${spec.name}`,
  );
}

/** The key for a store: its server_keys row on PostgreSQL, else the file in `dataDir` beside the SQLite database. */
export async function serverKey(spec: ServerKeySpec, sql: Sql, dataDir: string): Promise<Buffer> {
  return sql.dialect === 'pg' ? serverKeyFromDatabase(spec, sql) : serverKeyFromDataDir(spec, dataDir);
}

/**
 * serverKey read once and kept; a failed read (an unwritable data directory, the database away) is not kept, so the
 * next call tries again.
 */
export function keyReader(spec: ServerKeySpec, sql: Sql, dataDir: string): () => Promise<Buffer> {
  let key: Promise<Buffer> | null = null;
  return () =>
    (key ??= serverKey(spec, sql, dataDir).catch((err: unknown) => {
      key = null;
      throw err;
    }));
}
