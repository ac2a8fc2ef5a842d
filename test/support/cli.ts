// `svc` as tests run it: a command in this process (runHere, and serveHere for svc serve: its own writers,
// environment, signals and a small password cost) where the process is not what the test is about, or the built svc
// spawned as users run it, to its end (runSvc) or as a long-running process (serveSvc, spawnSvc: serve, worker)
// whose JSON log lines are collected as they come. Both give a run's
// status, stdout and stderr the same way (docs/testing.md says which a test uses).
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { Readable } from 'node:stream';
import { Agent, getGlobalDispatcher, setGlobalDispatcher, type Dispatcher } from 'undici';
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

/** A running `svc serve`, spawned (serveSvc) or in this process (serveHere): what a test reads of it. */
export interface RunningServe {
  baseUrl: string;
  /** Every JSON log line so far (stderr). */
  logs: LogLine[];
  stdout(): string;
  stderr(): string;
  /** SIGTERM, then waits for its shutdown to end (the process to exit, or the in-process run to return). */
  stop(): Promise<void>;
}

export interface ServeProcess extends SvcProcess, RunningServe {}

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

/** A writer of stderr's chunks that pushes each JSON line (a log line) onto `logs` as it is complete. */
function logCollector(logs: LogLine[]): (chunk: string) => void {
  let buf = '';
  return (chunk) => {
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
  };
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
  const logLines = logCollector(logs);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    logLines(chunk);
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
  /** Every JSON log line written to its stderr so far. */
  logs: LogLine[];
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
  const logs: LogLine[] = [];
  const logLines = logCollector(logs);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(opts.env ?? {})) if (v !== undefined) env[k] = v;
  const signals = new EventEmitter();
  const tty = opts.tty === true;
  const io: Terminal = {
    stdout: { write: (s: string) => (stdout += s), isTTY: tty },
    stderr: {
      write: (s: string) => {
        stderr += s;
        logLines(s);
      },
      isTTY: tty,
    },
    stdin: Readable.from(opts.input === undefined ? [] : [Buffer.from(opts.input)]),
    env,
    signals,
    passwordCost: TEST_PASSWORD_COST,
  };
  return { io, stdout: () => stdout, stderr: () => stderr, logs, signals } satisfies TestTerminal;
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

/** The `svc serve listening` line once it is logged, or an error saying it ended first or never listened. */
async function listening(logs: LogLine[], ended: () => boolean, stderr: () => string, ms: number): Promise<LogLine> {
  const line = await until(
    'svc serve to listen',
    () => logs.find((l) => l.msg === 'svc serve listening') ?? (ended() && 'exited'),
    ms,
  ).catch(() => null);
  if (!line || line === 'exited')
    throw new Error(
      `svc serve ${line ? 'exited' : 'did not listen'}: ${logs.map((l) => l.msg).join('; ') || stderr()}`,
    );
  return line;
}

/**
 * Starts `svc serve --config <config> --port <port>` (default 0: a free one) as a process and resolves once it
 * listens: for a test about the process (its start-up, its signals, two of them on one database).
 */
export async function serveSvc(config: string, opts: SvcOptions & { port?: number } = {}): Promise<ServeProcess> {
  const p = spawnSvc(['serve', '--config', config, '--port', String(opts.port ?? 0)], opts.env, opts);
  const line = await listening(p.logs, () => p.child.exitCode !== null, p.stderr, 30_000);
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

/**
 * While a serve runs in this process, this one's fetch (and the MCP SDK's, and undici's request) opens a connection
 * per request. Client and server share one event loop here: a stall of it (a crawl's parse, a loaded machine)
 * longer than the server's keep-alive timeout lets the client write on an idle socket that the server's timer then
 * closes in the same turn, before reading it (ECONNRESET). Across processes each side's loop keeps its own time.
 */
let closeAfterEach: { before: Dispatcher; agent: Agent; users: number } | null = null;

function holdNoKeepAlive(): () => Promise<void> {
  if (!closeAfterEach) {
    const before = getGlobalDispatcher();
    // pipelining 0: undici keeps no connection open after its response.
    const agent = new Agent({ pipelining: 0 });
    setGlobalDispatcher(agent);
    closeAfterEach = { before, agent, users: 0 };
  }
  const held = closeAfterEach;
  held.users++;
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    if (--held.users > 0) return;
    setGlobalDispatcher(held.before);
    closeAfterEach = null;
    await held.agent.close();
  };
}

/**
 * `svc serve --config <config> --port <port>` (default 0) in this process, as runHere runs a command: its own
 * environment (`env` alone), writers and signals, and TEST_PASSWORD_COST for the passwords it hashes and checks
 * (the spawned binary always uses the default). For every test of what serve answers, where the process is not the
 * subject; stop() sends SIGTERM on its signals and waits for the shutdown, which closes all it opened.
 */
export async function serveHere(
  config: string,
  opts: { env?: Record<string, string | undefined>; port?: number } = {},
): Promise<RunningServe> {
  const t = testTerminal({ env: opts.env });
  const release = holdNoKeepAlive();
  let ended = false;
  const run = runSvcCommand(['serve', '--config', config, '--port', String(opts.port ?? 0)], t.io, loadFromSource);
  const done = run.finally(async () => {
    ended = true;
    await release();
  });
  const line = await listening(t.logs, () => ended, t.stderr, 30_000).catch(async (err: unknown) => {
    // Not listening in time: shut it down here, or its timers would run on in the worker's next files.
    t.signals.emit('SIGTERM');
    await done;
    throw err;
  });
  return {
    baseUrl: line.base_url as string,
    logs: t.logs,
    stdout: t.stdout,
    stderr: t.stderr,
    async stop() {
      t.signals.emit('SIGTERM');
      const code = await done;
      if (code !== 0) throw new Error(`svc serve ended ${code}: ${t.stderr()}`);
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
