// `svc` as tests run it: a command in this process (runHere: its own writers, environment and a small password cost)
// where the process is not what the test is about, or the built svc spawned as users run it, to its end (runSvc) or
// as a long-running process (serve, worker) whose JSON log lines are collected as they come. Both give a run's
// status, stdout and stderr the same way (docs/testing.md says which a test uses).
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { Readable } from 'node:stream';
import { runSvcCommand, type CommandModule } from '../../src/cli/dispatch.js';
import type { Terminal } from '../../src/cli/terminal.js';
import type { CrawlRecord } from '../../src/model/types.js';
import { listCrawls } from '../../src/store/crawls.js';
import { Store } from '../../src/store/sqlite/store.js';
import { TEST_PASSWORD_COST } from './app.js';
import { ROOT, SERVER_JS } from './paths.js';
import { until } from './wait.js';

export interface LogLine {
  msg: string;
  crawl?: number;
  [k: string]: unknown;
}

export interface SvcProcess {
  child: ChildProcess;
  /** Every JSON log line so far (stderr). */
  logs: LogLine[];
  /** Everything written so far. */
  stdout(): string;
  stderr(): string;
  /** Its exit code once it has exited. */
  exited: Promise<number | null>;
  /** Its exit code once it has exited and its output is all read. */
  closed: Promise<number | null>;
}

export interface ServeProcess extends SvcProcess {
  baseUrl: string;
  /** SIGTERM, then waits for it to exit. */
  stop(): Promise<void>;
}

export interface SvcOptions {
  /** Set in its environment; undefined removes a name. */
  env?: Record<string, string | undefined>;
  /** Default: the repository. Spawned runs only (runHere never changes directory: give it absolute paths). */
  cwd?: string;
  /** Written to its stdin, then closed (default: no stdin). */
  input?: string;
}

/**
 * The environment of a test's svc: this one without any setting svc reads (SVC_*, PORT, HOST: the shell's config,
 * data dir, user or port never reach a test), then `env`.
 */
function svcEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('SVC_') && k !== 'PORT' && k !== 'HOST') out[k] = v;
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete out[k];
    else out[k] = v;
  }
  return out;
}

/** Starts `svc <args>` and collects its output and log lines. */
export function spawnSvc(
  args: string[],
  env: Record<string, string | undefined> = {},
  opts: Omit<SvcOptions, 'env'> = {},
): SvcProcess {
  const child = spawn(process.execPath, [SERVER_JS, ...args], {
    cwd: opts.cwd ?? ROOT,
    env: svcEnv(env),
    stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (opts.input !== undefined) child.stdin!.end(opts.input);
  const logs: LogLine[] = [];
  let stdout = '';
  let stderr = '';
  let buf = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    buf += chunk;
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      try {
        logs.push(JSON.parse(line) as LogLine);
      } catch {
        // not a log line
      }
    }
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const closed = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
  return { child, logs, stdout: () => stdout, stderr: () => stderr, exited, closed };
}

/** How a run of svc ended: its exit code (null: killed by a signal) and all it wrote. */
export interface SvcResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `svc <args>` to its end without blocking (the test's own sites must keep answering while it crawls), its
 * log level warn unless `env` says otherwise.
 */
export async function runSvc(args: string[], opts: SvcOptions = {}): Promise<SvcResult> {
  const p = spawnSvc(args, { SVC_LOG_LEVEL: 'warn', ...opts.env }, opts);
  const status = await p.closed;
  return { status, stdout: p.stdout(), stderr: p.stderr() };
}

/** runSvc's stdout, or an error carrying its stderr when it exits other than 0. */
export async function svcOutput(args: string[], opts: SvcOptions = {}): Promise<string> {
  return okOutput(args, await runSvc(args, opts));
}

function okOutput(args: string[], r: SvcResult): string {
  if (r.status !== 0) throw new Error(`svc ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

/** A command's I/O captured: what it wrote, and the signals a test may send it (`signals.emit('SIGINT')`). */
export interface TestTerminal {
  io: Terminal;
  stdout(): string;
  stderr(): string;
  signals: EventEmitter;
}

/**
 * I/O for a command run in this process: writers that keep what it writes (a terminal when `tty`), `input` as its
 * stdin, `env` alone as its environment (never this process's: the shell's SVC_* settings never reach a test), and
 * TEST_PASSWORD_COST for the passwords it sets.
 */
export function testTerminal(opts: { env?: Record<string, string | undefined>; input?: string; tty?: boolean } = {}) {
  let stdout = '';
  let stderr = '';
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(opts.env ?? {})) if (v !== undefined) env[k] = v;
  const signals = new EventEmitter();
  const tty = opts.tty === true;
  const io: Terminal = {
    stdout: { write: (s: string) => (stdout += s), isTTY: tty },
    stderr: { write: (s: string) => (stderr += s), isTTY: tty },
    stdin: Readable.from(opts.input === undefined ? [] : [Buffer.from(opts.input)]),
    env,
    signals,
    passwordCost: TEST_PASSWORD_COST,
  };
  return { io, stdout: () => stdout, stderr: () => stderr, signals } satisfies TestTerminal;
}

/** A command's module from src/, as the vitest worker loads it. */
const loadFromSource = (name: string): Promise<CommandModule> =>
  import(`../../src/cli/${name}.ts`) as Promise<CommandModule>;

/**
 * Runs `svc <args>` in this process, as runSvc would spawn it (the same table, errors and exit codes:
 * src/cli/dispatch.ts), with testTerminal's I/O and the log level warn unless `env` says otherwise. For every run
 * where the process is not what the test is about: set-up (users add, keys create, posts import) and a command's
 * output, options and exit status.
 */
export async function runHere(args: string[], opts: Omit<SvcOptions, 'cwd'> = {}): Promise<SvcResult> {
  const t = testTerminal({ env: { SVC_LOG_LEVEL: 'warn', ...opts.env }, input: opts.input });
  const status = await runSvcCommand(args, t.io, loadFromSource);
  return { status, stdout: t.stdout(), stderr: t.stderr() };
}

/** runHere's stdout, or an error carrying its stderr when it exits other than 0. */
export async function hereOutput(args: string[], opts: Omit<SvcOptions, 'cwd'> = {}): Promise<string> {
  return okOutput(args, await runHere(args, opts));
}

/** Starts `svc serve --config <config>` on a free port and resolves once it listens. */
export async function serveSvc(config: string, opts: SvcOptions = {}): Promise<ServeProcess> {
  const p = spawnSvc(['serve', '--config', config, '--port', '0'], opts.env, opts);
  const listening = until(
    'svc serve to listen',
    () => p.logs.find((l) => l.msg === 'svc serve listening') ?? (p.child.exitCode !== null && 'exited'),
    20_000,
  ).catch(() => null);
  const line = await listening;
  if (!line || line === 'exited')
    throw new Error(`svc serve ${line ? 'exited' : 'did not listen'}: ${p.logs.map((l) => l.msg).join('; ')}`);
  return {
    ...p,
    baseUrl: line.base_url as string,
    async stop() {
      if (p.child.exitCode === null) {
        p.child.kill('SIGTERM');
        await p.exited;
      }
    },
  };
}

/** Crawl records of a project in a SQLite file, oldest first (the test's own connection). */
export async function crawlsIn(file: string, token: string): Promise<CrawlRecord[]> {
  const store = new Store(file);
  try {
    return (await listCrawls(store.sql, token, 1000, 0)).reverse();
  } finally {
    store.close();
  }
}
