#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=8 --heap-growing-percent=50
// The `svc` command: a short table of subcommands, each in its own file under src/cli. Its first line starts node
// with a small young generation, a tighter heap growth and two malloc arenas: a crawl's resident memory is mostly
// V8 and malloc slack otherwise (docs/crawling.md, "Memory"); flags only take effect when given at process start.
// It imports nothing that loads a library: what loads before useCompileCache() is compiled without the cache.
import { CliError } from './cli/cli-error.js';
import { useCompileCache } from './lib/compile-cache.js';
import { nodeVersionProblem, packageVersion } from './lib/package-version.js';

type Run = (argv: string[]) => Promise<number>;

const COMMANDS: Record<string, { summary: string; load: () => Promise<{ run: Run }> }> = {
  serve: { summary: 'HTTP: /v1 REST API, ability routes, MCP at /mcp, /healthz', load: () => import('./cli/serve.js') },
  worker: {
    summary: 'run queued crawls, schedules and webhooks with no HTTP server (beside svc serve)',
    load: () => import('./cli/worker.js'),
  },
  mcp: { summary: 'MCP over stdio (current user from SVC_USER)', load: () => import('./cli/mcp.js') },
  crawl: { summary: 'crawl full|partial|manual [URL…] in the foreground', load: () => import('./cli/crawl.js') },
  report: { summary: 'print the link report', load: () => import('./cli/report.js') },
  links: {
    summary: 'links <DIR|URL>: check every link of a built folder or a site, print the report (for CI)',
    load: () => import('./cli/links.js'),
  },
  changes: {
    summary: 'changes [ID]: problems new and fixed by a crawl (default: the latest)',
    load: () => import('./cli/changes.js'),
  },
  search: { summary: 'search the index', load: () => import('./cli/search.js') },
  'search-stats': {
    summary: 'search analytics: top queries, queries with no results, searches per day',
    load: () => import('./cli/search-stats.js'),
  },
  keys: { summary: 'keys create [--name N]: make a /v1 API key', load: () => import('./cli/keys.js') },
  users: {
    summary: 'users add|list|reset-token|set-password|revoke-tokens: users, tokens, sign-in passwords',
    load: () => import('./cli/users.js'),
  },
  posts: {
    summary: "posts import FILE | delete ID…: change the host's posts (live update queues a crawl)",
    load: () => import('./cli/posts.js'),
  },
  schedule: {
    summary: 'crawl schedules: what runs next and last; crawls queued for svc serve and svc worker',
    load: () => import('./cli/schedule.js'),
  },
  check: {
    summary: 'check the database: tables, search index, report rows',
    load: () => import('./cli/database.js').then((m) => ({ run: (a: string[]) => m.run(a, 'check') })),
  },
  repair: {
    summary: 'rebuild the search index and report rows from the stored data',
    load: () => import('./cli/database.js').then((m) => ({ run: (a: string[]) => m.run(a, 'repair') })),
  },
  backup: {
    summary: 'backup FILE: a consistent copy of the database, safe while serving',
    load: () => import('./cli/database.js').then((m) => ({ run: (a: string[]) => m.run(a, 'backup') })),
  },
  'demo-site': { summary: 'serve the bundled demo site alone', load: () => import('./cli/demo-site.js') },
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
