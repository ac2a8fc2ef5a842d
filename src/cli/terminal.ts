// A command's I/O, given by its caller instead of read from `process`: the `svc` entry passes the process's; the
// tests run a command in their own process with writers and an environment of their own (test/support/cli.ts).
// It imports nothing that loads a library: the `svc` entry builds the process's before Node's compile cache is on.
import type { PasswordCost } from '../auth/passwords.js';

/** Where a command writes: its stdout or stderr (pino's log lines included). */
export interface Output {
  write(text: string): unknown;
  /** A terminal: progress lines redrawn in place, log lines for people. */
  readonly isTTY?: boolean;
}

/** What a command reads: `svc users set-password` its password, typed without echo on a terminal. */
export type Input = NodeJS.ReadableStream & { readonly isTTY?: boolean; setRawMode?(raw: boolean): unknown };

/** The signals a command stops its work on (SIGINT, SIGTERM): a foreground crawl, svc serve, svc worker. */
export interface Signals {
  on(signal: 'SIGINT' | 'SIGTERM', listener: () => void): unknown;
  once(signal: 'SIGINT' | 'SIGTERM', listener: () => void): unknown;
  off(signal: 'SIGINT' | 'SIGTERM', listener: () => void): unknown;
}

export interface Terminal {
  stdout: Output;
  stderr: Output;
  stdin: Input;
  /** The settings the command reads (SVC_CONFIG, SVC_USER, SVC_LOG_LEVEL …): never another's. */
  env: Readonly<Record<string, string | undefined>>;
  signals: Signals;
  /**
   * The scrypt cost of the passwords the command sets. Only a test's in-process caller sets it (a small one): no
   * config field or environment variable reaches it, so svc itself always hashes at the default.
   */
  passwordCost?: PasswordCost;
}

/** The process's own: what `svc` runs with. */
export function processTerminal(): Terminal {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, signals: process };
}
