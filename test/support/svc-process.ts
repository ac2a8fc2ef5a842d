// The built `svc` as a long-running process (serve, worker), its JSON log lines collected as they come, and a wait
// for a condition: what the process tests share.
import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { ROOT, SERVER_JS } from '../paths.js';
import type { CrawlRecord } from '../../src/model/types.js';
import { listCrawls } from '../../src/store/crawls.js';
import { Store } from '../../src/store/sqlite/store.js';

export interface LogLine {
  msg: string;
  crawl?: number;
  [k: string]: unknown;
}

export interface SvcProcess {
  child: ChildProcess;
  /** Every JSON log line so far (stderr). */
  logs: LogLine[];
  /** Its exit code once it has exited. */
  exited: Promise<number | null>;
}

export interface ServeProcess extends SvcProcess {
  baseUrl: string;
  /** SIGTERM, then waits for it to exit. */
  stop(): Promise<void>;
}

/** Waits until f answers something truthy (polling every 50 ms), or throws after `ms`. */
export async function until<T>(what: string, f: () => T | undefined | null | false | Promise<T | undefined | null | false>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** Runs the built svc to its end without blocking: the test's own sites must keep answering while it crawls. */
export function runSvc(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [SERVER_JS, ...args], { cwd: ROOT, env: { ...process.env, SVC_CONFIG: '', SVC_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  return new Promise((resolve) => child.once('close', (status) => resolve({ status, stdout, stderr })));
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

/** Starts `svc <args>` (no SVC_CONFIG from the environment) and collects its log lines. */
export function spawnSvc(args: string[], env: Record<string, string> = {}): SvcProcess {
  const child = spawn(process.execPath, [SERVER_JS, ...args], { cwd: ROOT, env: { ...process.env, SVC_CONFIG: '', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  const logs: LogLine[] = [];
  let buf = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
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
  return { child, logs, exited };
}

/** Starts `svc serve --config <config>` on a free port and resolves once it listens. */
export async function serveSvc(config: string): Promise<ServeProcess> {
  const p = spawnSvc(['serve', '--config', config, '--port', '0']);
  const listening = until('svc serve to listen', () => p.logs.find((l) => l.msg === 'svc serve listening') ?? (p.child.exitCode !== null && 'exited'), 20_000).catch(() => null);
  const line = await listening;
  if (!line || line === 'exited') throw new Error(`svc serve ${line ? 'exited' : 'did not listen'}: ${p.logs.map((l) => l.msg).join('; ')}`);
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
