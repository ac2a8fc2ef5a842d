// Bundles the compiled CLI (dist/src) into dist/svc: a start-up reads a few files instead of resolving and
// compiling some 300 ES modules (about a third of `svc mcp`'s time to its first answer). The worker scripts are
// entry points of their own, in the same folder, where src/crawler/workers.ts looks for them. better-sqlite3 stays
// outside (a native addon, loaded from node_modules).
import { build } from 'esbuild';
import { chmodSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist/svc');
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: ['server', 'crawler/writer-worker', 'crawler/parse-worker'].map((p) => join(root, 'dist/src', `${p}.js`)),
  outdir,
  entryNames: '[name]',
  bundle: true,
  splitting: true, // each subcommand stays a chunk of its own, loaded when it runs
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['better-sqlite3'],
  // CommonJS dependencies inside an ES module bundle still call require().
  banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
chmodSync(join(outdir, 'server.js'), 0o755);
