// Small helpers every benchmark shares: percentiles, a printed table, peak RSS of a child process.
import { readFileSync } from 'node:fs';

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
