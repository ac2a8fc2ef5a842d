// Starting what a benchmark measures: the docs site (nginx), `svc` commands and `svc serve`, all on loopback.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const SVC = join(ROOT, 'dist/src/server.js');
/**
 * The environment `svc` is started with as a user's shell starts it: the bin itself (its first line picks the
 * process's memory settings), the node running this benchmark first on PATH.
 */
export function svcEnv(env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, ...env };
}
const DOCS_SCRIPT = join(ROOT, 'bench/serve-docs-site.sh');

/**
 * Starts nginx with the PostgreSQL manual (installing it if missing) and returns its base URL. BENCH_DOCS_PORT
 * (and SVC_DOCS_SITE_DIR, read by the script) let two benchmarks on one machine serve it side by side; env
 * (SVC_DOCS_SITE_ROOT, SVC_DOCS_SITE_DIR) serves another manual beside it.
 */
export function startDocsSite(
  port = Number(process.env.BENCH_DOCS_PORT ?? 18099),
  env: NodeJS.ProcessEnv = {},
): string {
  return execFileSync('bash', [DOCS_SCRIPT, 'start', String(port)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  }).trim();
}

export const BENCH_TOKEN = 'bench001:eu-north-1';

/** A string as a regular expression that matches exactly it. */
export function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Writes an svc config that crawls the docs site at `site` (full URL) into `dataDir`, links off it excluded
 * (the manual links to ~1,700 external pages; a benchmark stays on loopback); `target` adds or overrides settings.
 */
export function writeDocsConfig(
  path: string,
  site: URL,
  dataDir: string,
  target: Record<string, unknown>,
  logLevel = 'info',
): void {
  writeFileSync(
    path,
    JSON.stringify({
      project: { public_token: BENCH_TOKEN },
      data_dir: dataDir,
      targets: [
        {
          host: site.host,
          scheme: 'http',
          track_links: 'all',
          skip_link_patterns: [`^https?://(?!${escapeRe(site.host)}/)`],
          ...target,
        },
      ],
      log_level: logLevel,
      // The benches measure the service at full load, not its per-client rate limit.
      rate_limits: { enabled: false },
    }),
  );
}

export function docsSiteLog(env: NodeJS.ProcessEnv = {}): string {
  return execFileSync('bash', [DOCS_SCRIPT, 'log'], { encoding: 'utf8', env: { ...process.env, ...env } }).trim();
}

/**
 * Runs a `svc` subcommand to its end without blocking this process (a site the benchmark serves must keep
 * answering while it crawls), SVC_CONFIG unset.
 */
export function svcAsync(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(SVC, args, {
    env: svcEnv({ SVC_CONFIG: '', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

/** Runs a `svc` subcommand to completion and returns its stdout. */
export function svc(args: string[], env: NodeJS.ProcessEnv = {}): string {
  return execFileSync(SVC, args, {
    encoding: 'utf8',
    env: svcEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export interface Served {
  proc: ChildProcess;
  baseUrl: string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts `svc serve` and resolves once its log line gives the listening base_url. */
export function serve(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 60_000): Promise<Served> {
  const proc = spawn(SVC, ['serve', ...args], {
    env: svcEnv(env),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolveServed, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`svc serve did not start in ${timeoutMs} ms:\n${buf}`)), timeoutMs);
    proc.once('exit', (code) => reject(new Error(`svc serve exited with ${code}:\n${buf}`)));
    proc.stderr!.setEncoding('utf8');
    proc.stderr!.on('data', (chunk: string) => {
      buf += chunk;
      if (buf.length > 1e6) buf = buf.slice(-1e5);
      const m = /"base_url":"(http:[^"]+)"/.exec(buf);
      if (m) {
        clearTimeout(timer);
        proc.stderr!.removeAllListeners('data');
        proc.stderr!.resume();
        resolveServed({
          proc,
          baseUrl: m[1]!,
          stop: (signal = 'SIGTERM') =>
            new Promise((done) => {
              if (proc.exitCode !== null || proc.signalCode !== null) return done();
              proc.once('exit', () => done());
              proc.kill(signal);
            }),
        });
      }
    });
  });
}
