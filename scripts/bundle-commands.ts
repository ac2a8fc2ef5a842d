// `npm run build`'s last step: every `svc` command (each module of dist/src/cli/) and the worker threads' scripts
// bundled into dist/commands/, what they share in chunks beside them. Node's loader costs about a millisecond of CPU
// per module even with the compile cache hit, and a command loads ~400 (zod alone is 95): one file per command
// and its dynamic imports took a third off every short command's CPU (bench/results/2026-11-28-crawl-start-up.md).
// src/server.ts loads a command from here when this is at least as new as tsc's output, from dist/src/cli/ otherwise.
import { readdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

// Built to dist/scripts/: the repository is two folders up.
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = join(ROOT, 'dist/src');
export const COMMANDS_DIR = join(ROOT, 'dist/commands');

/**
 * Packages left to Node: better-sqlite3 loads its native addon by path, pg requires pg-native only if present, and
 * pino's transports start worker files by path.
 */
const EXTERNAL_PACKAGES = ['better-sqlite3', 'pg', 'pino'];
/** The one class the entry (src/server.ts, not bundled) and the commands share by identity: kept as its own file. */
const CLI_ERROR = join(SRC, 'cli/cli-error.js');
/** The files of src/cli that are the entry's (its table, its I/O), not commands: never loaded from a bundle. */
const ENTRY_SIDE = new Set(['cli-error.js', 'dispatch.js', 'terminal.js']);

export async function bundleCommands(): Promise<void> {
  rmSync(COMMANDS_DIR, { recursive: true, force: true });
  const input: Record<string, string> = {
    'writer-worker': join(SRC, 'store/sqlite/writer-worker.js'),
    'parse-worker': join(SRC, 'crawler/parse-worker.js'),
  };
  for (const f of readdirSync(join(SRC, 'cli')))
    if (f.endsWith('.js') && !ENTRY_SIDE.has(f)) input[f.slice(0, -3)] = join(SRC, 'cli', f);
  const bundle = await rolldown({
    input,
    platform: 'node',
    external: (id) => EXTERNAL_PACKAGES.some((p) => id === p || id.startsWith(`${p}/`)) || id.startsWith('node:'),
    plugins: [
      {
        name: 'cli-error-outside',
        // Imported from its compiled file, by a path relative to each chunk.
        resolveId: (source, importer) =>
          importer && resolve(dirname(importer), source) === CLI_ERROR ? { id: CLI_ERROR, external: 'absolute' } : null,
      },
    ],
    logLevel: 'warn',
  });
  await bundle.write({
    dir: COMMANDS_DIR,
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: '[name]-[hash].js',
    // Every chunk is in dist/commands/, beside dist/src/.
    paths: (id) => (id === CLI_ERROR ? '../src/cli/cli-error.js' : id),
  });
  await bundle.close();
}

await bundleCommands();
