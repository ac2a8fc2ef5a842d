// Worker threads for the CPU-heavy parts of a crawl (HTML parsing, SQLite writes), so they run beside the
// network work instead of after it. A worker script exists only in the compiled build (dist/): where it does
// not (tests running the TypeScript sources), callers fall back to doing the same work in this thread.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

/**
 * The compiled worker script `./<name>.js` beside the calling module (`from`: its import.meta.url), or null when
 * there is none (the caller runs as TypeScript source).
 */
export function workerScript(name: string, from: string): URL | null {
  if (process.env.SVC_CRAWL_WORKERS === '0') return null;
  const url = new URL(`./${name}.js`, from);
  return url.protocol === 'file:' && from.endsWith('.js') && existsSync(fileURLToPath(url)) ? url : null;
}

/** Parser threads worth starting: the cores left after the main thread and the writer (0: parse in the main thread). */
export function parserThreads(): number {
  return Math.max(0, Math.min(4, availableParallelism() - 2));
}

/** A small young generation per worker: a little more GC, a lot less resident memory per thread. */
export const WORKER_LIMITS = { maxYoungGenerationSizeMb: 8 };
