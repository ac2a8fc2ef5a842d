// The command table and what every run of `svc` shares around a command: usage, --version, the Node check, and
// errors turned into one stderr line and an exit code. One implementation for both callers: the `svc` entry
// (src/server.ts, loading each command bundled or compiled) and the tests' in-process runner (test/support/cli.ts,
// loading it from src/). It imports nothing that loads a library: the entry runs it before the compile cache is on.
import { CliError } from './cli-error.js';
import { nodeVersionProblem, packageVersion } from '../lib/package-version.js';
import type { Terminal } from './terminal.js';

/** A command's module under src/cli: `run` with its arguments, its caller's I/O and, for `database`, which command. */
export interface CommandModule {
  run(argv: string[], io: Terminal, which?: string): Promise<number>;
}

/** Loads the module of src/cli/<name>.ts, however the caller builds it. */
export type LoadCommand = (name: string) => Promise<CommandModule>;

/**
 * Each command: its one line of usage, its module, what it passes that module as `which` (database's three), and
 * whether it runs until a signal (its return is the end of the process: see endsProcess).
 */
const COMMANDS: Record<string, { summary: string; module: string; which?: string; untilSignal?: true }> = {
  serve: { summary: 'HTTP: /v1 REST API, ability routes, MCP at /mcp, /healthz', module: 'serve', untilSignal: true },
  worker: {
    summary: 'run queued crawls, schedules and webhooks with no HTTP server (beside svc serve)',
    module: 'worker',
    untilSignal: true,
  },
  mcp: { summary: 'MCP over stdio (current user from SVC_USER)', module: 'mcp' },
  crawl: { summary: 'crawl full|partial|manual [URL…] in the foreground', module: 'crawl' },
  report: { summary: 'print the link report', module: 'report' },
  links: {
    summary: 'links <DIR|URL>: check every link of a built folder or a site, print the report (for CI)',
    module: 'links',
  },
  changes: { summary: 'changes [ID]: problems new and fixed by a crawl (default: the latest)', module: 'changes' },
  search: { summary: 'search the index', module: 'search' },
  'search-stats': {
    summary: 'search analytics: top queries, queries with no results, searches per day',
    module: 'search-stats',
  },
  keys: { summary: 'keys create [--name N]: make a /v1 API key', module: 'keys' },
  users: {
    summary: 'users add|list|reset-token|set-password|revoke-tokens: users, tokens, sign-in passwords',
    module: 'users',
  },
  posts: {
    summary: "posts import FILE | delete ID…: change the host's posts (live update queues a crawl)",
    module: 'posts',
  },
  schedule: {
    summary: 'crawl schedules: what runs next and last; crawls queued for svc serve and svc worker',
    module: 'schedule',
  },
  check: { summary: 'check the database: tables, search index, report rows', module: 'database', which: 'check' },
  repair: {
    summary: 'rebuild the search index and report rows from the stored data',
    module: 'database',
    which: 'repair',
  },
  backup: {
    summary: 'backup FILE: a consistent copy of the database, safe while serving',
    module: 'database',
    which: 'backup',
  },
  'demo-site': { summary: 'serve the bundled demo site alone', module: 'demo-site' },
};

function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  svc ${name.padEnd(12)} ${c.summary}`);
  return `usage: svc <command> [options]\n\ncommands:\n${lines.join('\n')}\n\nCommon options: --config FILE (or SVC_CONFIG), --site URL\nsvc --version (or -v) prints the version.\n`;
}

/**
 * Whether the `svc` process ends when this command returns, whatever it left open: svc serve and svc worker return
 * once a signal has shut them down (and a test running them in its own process goes on), but the process that ran
 * one was asked to stop, so it exits with the command's code.
 */
export function endsProcess(argv: readonly string[]): boolean {
  return COMMANDS[argv[0] ?? '']?.untilSignal === true;
}

/** Runs `svc <argv>` with the caller's I/O and returns its exit code; an error is one line on stderr. */
export async function runSvcCommand(argv: string[], io: Terminal, load: LoadCommand): Promise<number> {
  try {
    return await dispatch(argv, io, load);
  } catch (err) {
    if (err instanceof CliError) {
      io.stderr.write(`svc: ${err.message}\n`);
      return err.exitCode;
    }
    // One line, no stack trace (SVC_DEBUG=1 shows it): what failed, and the log above says where.
    const message = err instanceof Error ? err.message : String(err);
    io.stderr.write(`svc: ${io.env.SVC_DEBUG && err instanceof Error ? err.stack : message}\n`);
    return 1;
  }
}

async function dispatch(argv: string[], io: Terminal, load: LoadCommand): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(usage());
    return name ? 0 : 2;
  }
  if (name === '--version' || name === '-v') {
    io.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  const cmd = COMMANDS[name];
  // Before any command loads its native modules: an older Node would crash in them instead of saying why.
  const tooOld = nodeVersionProblem(process.versions.node);
  if (tooOld) {
    io.stderr.write(`svc: ${tooOld}\n`);
    return 1;
  }
  if (!cmd) {
    io.stderr.write(`svc: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  const mod = await load(cmd.module);
  return cmd.which === undefined ? mod.run(rest, io) : mod.run(rest, io, cmd.which);
}
