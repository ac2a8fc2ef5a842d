// Small helpers every benchmark shares: percentiles, a printed table, a child process's wall time and peak RSS.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export function summarize(samples: number[]): { p50: number; p95: number; p99: number; n: number } {
  const s = [...samples].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p95: percentile(s, 95), p99: percentile(s, 99), n: s.length };
}

/** Prints rows as a Markdown table (so it pastes into a closing note as is). */
export function printTable(headers: string[], rows: (string | number)[][]): void {
  const cells = [headers, ...rows.map((r) => r.map((c) => (typeof c === 'number' ? fmt(c) : c)))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => String(r[i] ?? '').length)));
  const line = (r: (string | number)[]) => `| ${r.map((c, i) => String(c ?? '').padEnd(widths[i]!)).join(' | ')} |`;
  console.log(line(cells[0]!));
  console.log(`| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`);
  for (const r of cells.slice(1)) console.log(line(r));
}

function fmt(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Number.isInteger(n)) return String(n);
  return n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2);
}

/** Peak resident set (VmHWM) of a live process in MB, or NaN when it is gone. */
export function peakRssMb(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/**
 * The pid of the process `/usr/bin/time` (pid `timePid`) runs, once it has forked it, or undefined before: the
 * kernel lists a thread's children in /proc (time runs one thread and one child).
 */
export function timedChildPid(timePid: number): number | undefined {
  try {
    const first = readFileSync(`/proc/${timePid}/task/${timePid}/children`, 'utf8').trim().split(' ')[0];
    return first ? Number(first) : undefined;
  } catch {
    return undefined;
  }
}

/** Polls a process's peak RSS until stop() is called; returns the highest value seen (MB). */
export function watchPeakRss(pid: number, everyMs = 100): { stop(): number } {
  let peak = 0;
  const sample = () => {
    const v = peakRssMb(pid);
    if (Number.isFinite(v) && v > peak) peak = v;
  };
  sample();
  const t = setInterval(sample, everyMs);
  return {
    stop() {
      sample();
      clearInterval(t);
      return peak;
    },
  };
}

/** A whole process as a user waits for it, and what the kernel counted for it. */
export interface TimedRun {
  stdout: string;
  stderr: string;
  code: number | null;
  /** Wall seconds from exec to exit, as `/usr/bin/time` counts them (%e). */
  wallS: number;
  /** Peak resident set in MiB, the kernel's ru_maxrss of the process (%M). */
  peakMb: number;
  /** User + system CPU seconds of the process, all its threads (%U + %S). */
  cpuS: number;
  /** Date.now() just before the process started (to set a record's timestamps against). */
  startMs: number;
}

/**
 * Runs `command args` under `/usr/bin/time` and resolves when it exits: its wall time and peak RSS are the kernel's
 * (wait4's rusage of the child), not a poll of /proc, which misses peaks shorter than its interval.
 */
export function runTimed(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  onStart?: (timePid: number) => void,
): Promise<TimedRun> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-time-'));
  const out = join(dir, 'time');
  return new Promise((resolve, reject) => {
    const startMs = Date.now();
    const child = spawn('/usr/bin/time', ['-o', out, '-f', '%e %M %U %S', command, ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr = (stderr + c).slice(-20_000)));
    child.on('error', reject);
    if (child.pid !== undefined) onStart?.(child.pid);
    child.on('close', (code) => {
      try {
        // time writes "Command exited with non-zero status N" before the figures when the command failed.
        const line = readFileSync(out, 'utf8').trim().split('\n').at(-1)!;
        const [e, m, u, s] = line.split(' ').map(Number);
        resolve({ stdout, stderr, code, wallS: e!, peakMb: m! / 1024, cpuS: u! + s!, startMs });
      } catch (err) {
        reject(err);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
