#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=8 --heap-growing-percent=50
// The `svc` command: a short table of subcommands, each in its own file under src/cli. Its first line starts node
// with a small young generation, a tighter heap growth and two malloc arenas: a crawl's resident memory is mostly
// V8 and malloc slack otherwise (docs/crawling.md, "Memory"); flags only take effect when given at process start.
// It imports nothing that loads a library: what loads before useCompileCache() is compiled without the cache.
// A command loads bundled (dist/commands/, built by `npm run build`) where the build has a current bundle of it.
import { statSync } from 'node:fs';
import { CliError } from './cli/cli-error.js';
import { useCompileCache } from './lib/compile-cache.js';
import { nodeVersionProblem, packageVersion } from './lib/package-version.js';

type Run = (argv: string[]) => Promise<number>;

/**
 * A command's module: its bundle in dist/commands/ (scripts/bundle-commands.ts: a few files where tsc's output is
 * ~400 modules, each costing the loader CPU) when that is at least as new as tsc's output of the same module, else
 * the module tsc compiled (the bundle is stale or absent, or SVC_UNBUNDLED=1 asks for the modules one by one).
 */
function command<M = { run: Run }>(name: string): Promise<M> {
  const compiled = new URL(`./cli/${name}.js`, import.meta.url);
  const bundled = new URL(`../commands/${name}.js`, import.meta.url);
  const b = process.env.SVC_UNBUNDLED === '1' ? undefined : statSync(bundled, { throwIfNoEntry: false });
  const c = statSync(compiled, { throwIfNoEntry: false });
  return import((b && (!c || b.mtimeMs >= c.mtimeMs) ? bundled : compiled).href) as Promise<M>;
}

const COMMANDS: Record<string, { summary: string; load: () => Promise<{ run: Run }> }> = {
  serve: { summary: 'HTTP: /v1 REST API, ability routes, MCP at /mcp, /healthz', load: () => command('serve') },
  worker: {
    summary: 'run queued crawls, schedules and webhooks with no HTTP server (beside svc serve)',
    load: () => command('worker'),
  },
  mcp: { summary: 'MCP over stdio (current user from SVC_USER)', load: () => command('mcp') },
  crawl: { summary: 'crawl full|partial|manual [URL…] in the foreground', load: () => command('crawl') },
  report: { summary: 'print the link report', load: () => command('report') },
  links: {
    summary: 'links <DIR|URL>: check every link of a built folder or a site, print the report (for CI)',
    load: () => command('links'),
  },
  changes: {
    summary: 'changes [ID]: problems new and fixed by a crawl (default: the latest)',
    load: () => command('changes'),
  },
  search: { summary: 'search the index', load: () => command('search') },
  'search-stats': {
    summary: 'search analytics: top queries, queries with no results, searches per day',
    load: () => command('search-stats'),
  },
  keys: { summary: 'keys create [--name N]: make a /v1 API key', load: () => command('keys') },
  users: {
    summary: 'users add|list|reset-token|set-password|revoke-tokens: users, tokens, sign-in passwords',
    load: () => command('users'),
  },
  posts: {
    summary: "posts import FILE | delete ID…: change the host's posts (live update queues a crawl)",
    load: () => command('posts'),
  },
  schedule: {
    summary: 'crawl schedules: what runs next and last; crawls queued for svc serve and svc worker',
    load: () => command('schedule'),
  },
  check: {
    summary: 'check the database: tables, search index, report rows',
    load: () =>
      command<typeof import('./cli/database.js')>('database').then((m) => ({
        run: (a: string[]) => m.run(a, 'check'),
      })),
  },
  repair: {
    summary: 'rebuild the search index and report rows from the stored data',
    load: () =>
      command<typeof import('./cli/database.js')>('database').then((m) => ({
        run: (a: string[]) => m.run(a, 'repair'),
      })),
  },
  backup: {
    summary: 'backup FILE: a consistent copy of the database, safe while serving',
    load: () =>
      command<typeof import('./cli/database.js')>('database').then((m) => ({
        run: (a: string[]) => m.run(a, 'backup'),
      })),
  },
  'demo-site': { summary: 'serve the bundled demo site alone', load: () => command('demo-site') },
};

function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  svc ${name.padEnd(12)} ${c.summary}`);
  return `usage: svc <command> [options]\n\ncommands:\n${lines.join('\n')}\n\nCommon options: --config FILE (or SVC_CONFIG), --site URL\nsvc --version (or -v) prints the version.\n`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage());
    return name ? 0 : 2;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  const cmd = COMMANDS[name];
  // Before any command loads its native modules: an older Node would crash in them instead of saying why.
  const tooOld = nodeVersionProblem(process.versions.node);
  if (tooOld) {
    process.stderr.write(`svc: ${tooOld}\n`);
    return 1;
  }
  if (!cmd) {
    process.stderr.write(`svc: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  useCompileCache();
  return (await cmd.load()).run(rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof CliError) {
      process.stderr.write(`svc: ${err.message}\n`);
      process.exitCode = err.exitCode;
    } else {
      // One line, no stack trace (SVC_DEBUG=1 shows it): what failed, and the log above says where.
      const message = err instanceof Error ? err.message : String(err);
      process.stderr.write(`svc: ${process.env.SVC_DEBUG && err instanceof Error ? err.stack : message}\n`);
      process.exitCode = 1;
    }
  },
);
