#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=8 --heap-growing-percent=50
// The `svc` command: the table of subcommands (src/cli/dispatch.ts) run with the process's I/O, each command in its
// own file under src/cli. Its first line starts node with a small young generation, a tighter heap growth and two
// malloc arenas: a crawl's resident memory is mostly V8 and malloc slack otherwise (docs/crawling.md, "Memory");
// flags only take effect when given at process start.
// It imports nothing that loads a library: what loads before useCompileCache() is compiled without the cache.
// A command loads bundled (dist/commands/, built by `npm run build`) where the build has a current bundle of it.
import { statSync } from 'node:fs';
import { endsProcess, runSvcCommand, type CommandModule } from './cli/dispatch.js';
import { processTerminal } from './cli/terminal.js';
import { useCompileCache } from './lib/compile-cache.js';

/**
 * A command's module: its bundle in dist/commands/ (scripts/bundle-commands.ts: a few files where tsc's output is
 * ~400 modules, each costing the loader CPU) when that is at least as new as tsc's output of the same module, else
 * the module tsc compiled (the bundle is stale or absent, or SVC_UNBUNDLED=1 asks for the modules one by one).
 */
function command(name: string): Promise<CommandModule> {
  useCompileCache();
  const compiled = new URL(`./cli/${name}.js`, import.meta.url);
  const bundled = new URL(`../commands/${name}.js`, import.meta.url);
  const b = process.env.SVC_UNBUNDLED === '1' ? undefined : statSync(bundled, { throwIfNoEntry: false });
  const c = statSync(compiled, { throwIfNoEntry: false });
  return import((b && (!c || b.mtimeMs >= c.mtimeMs) ? bundled : compiled).href) as Promise<CommandModule>;
}

const argv = process.argv.slice(2);
runSvcCommand(argv, processTerminal(), command).then((code) => {
  // svc serve and svc worker return after a signal's shutdown: the process was asked to end, so it does.
  if (endsProcess(argv)) process.exit(code);
  process.exitCode = code;
});
