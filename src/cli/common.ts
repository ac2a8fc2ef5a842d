// What every command shares: option parsing, config loading with readable errors, opening the app (its logs on the
// caller's stderr).
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { App } from '../app/open-app.js';
import { UserError } from '../auth/users.js';
import { createLogger, type LogSink } from '../lib/log.js';
import { BackendError } from '../model/errors.js';
import { nothingChecked } from '../backend/report/fail-on.js';
import type { LinkReport } from '../model/types.js';
import { ConfigError, loadConfig } from './load-config.js';
import { forProject, type Config } from '../model/config.js';
import { CliError } from './cli-error.js';
import type { Terminal } from './terminal.js';

export { CliError } from './cli-error.js';

export const CONFIG_OPTIONS = {
  config: { type: 'string' },
  site: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

/** For the commands that act on one project: which one (default: the first of the config). */
export const PROJECT_OPTION = {
  project: { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

/** The options that pick the config and, for the commands that take it, the project. */
export interface ConfigValues {
  config?: string | boolean;
  site?: string | boolean;
  project?: string | boolean;
}

export function parse<O extends NonNullable<ParseArgsConfig['options']>>(
  argv: string[],
  options: O,
  allowPositionals = true,
) {
  try {
    return parseArgs({ args: argv, options: { ...CONFIG_OPTIONS, ...options }, allowPositionals, strict: true });
  } catch (err) {
    throw new CliError((err as Error).message);
  }
}

/** The config of --config (else the caller's SVC_CONFIG) or --site, with the caller's environment over it. */
export function readConfig(values: ConfigValues, io: Pick<Terminal, 'env'>): Config {
  try {
    return loadConfig({
      configPath: typeof values.config === 'string' ? values.config : undefined,
      site: typeof values.site === 'string' ? values.site : undefined,
      env: io.env,
    });
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message, 2);
    throw err;
  }
}

/**
 * The config as the project of --project sees it (forProject), or the first project's without --project. An unknown
 * token is a one-line error listing the configured ones.
 */
export function readProjectConfig(values: ConfigValues, io: Pick<Terminal, 'env'>): Config {
  const config = readConfig(values, io);
  const picked = forProject(config, typeof values.project === 'string' ? values.project : undefined);
  if (typeof picked === 'string') throw new CliError(`--project: ${picked}`, 2);
  return picked;
}

/** Errors of opening a data directory this process may not write. */
const CANNOT_WRITE = /^(SQLITE_READONLY|SQLITE_CANTOPEN|EACCES|EROFS|EPERM)/;

/**
 * The app of the config the options name, with only the project of --project (default: the first) open.
 * `readOnlyOk`: a read command, which still works (read only) on a data directory it may not write; any other
 * command gets one line naming the directory.
 */
export async function openAppFrom(
  values: ConfigValues,
  io: Terminal,
  opts: { readOnlyOk?: boolean; logSink?: LogSink; needsTarget?: string } = {},
): Promise<App> {
  const config = readProjectConfig(values, io);
  if (opts.needsTarget) requireTarget(config, opts.needsTarget);
  // The app (store, backend, crawler wiring) loads once the options are read: help and bad input answer at once.
  const { loadApp } = await import('../app/open-app.js');
  const logger = createLogger(config.log_level, opts.logSink ?? io.stderr);
  const opened = { logger, passwordCost: io.passwordCost, env: io.env };
  try {
    return await loadApp(config, opened);
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    if (!CANNOT_WRITE.test(code)) throw err;
    if (opts.readOnlyOk) return loadApp(config, { ...opened, readonly: true });
    throw new CliError(
      `cannot write the data directory ${resolve(config.data_dir)} (${code}): it is read-only for this user; svc report and svc search still read it, or point --config / SVC_DATA_DIR at a writable directory`,
      1,
    );
  }
}

/**
 * The commands that read what a crawl of a target found (report, search, changes) refuse a config that names no
 * target: with none, the answer would be about nothing, and an empty answer reads as an all-clear. A remote backend
 * has its targets on the other side.
 */
export function requireTarget(config: Config, command: string): void {
  if (config.targets.length || config.api.base_url) return;
  const demo = join(config.data_dir, 'demo-config.json');
  const hint = existsSync(demo) ? `; the data of svc serve's demo: --config ${demo}` : '';
  throw new CliError(
    `${command}: no target: give the site with --site URL (the URL you crawled, e.g. svc ${command} --site https://example.org/), or a config naming "targets" with --config FILE or SVC_CONFIG${hint}`,
    2,
  );
}

/** "not crawled yet: …; run svc crawl full …" with the options the user gave, so the next command is right there. */
export function notCrawledHint(report: LinkReport, values: { config?: unknown; site?: unknown }): string {
  const given =
    typeof values.site === 'string'
      ? ` --site ${values.site}`
      : typeof values.config === 'string'
        ? ` --config ${values.config}`
        : '';
  return `${nothingChecked(report) ?? 'not crawled yet'}; crawl it first: svc crawl full${given}`;
}

/** Parses a whole number option, naming the option when it is not one. */
export function intOption(
  name: string,
  value: string | boolean | undefined,
  min: number,
  max: number,
): number | undefined {
  if (value === undefined) return undefined;
  const n = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < min || n > max)
    throw new CliError(`--${name}: must be a whole number from ${min} to ${max}`);
  return n;
}

/** Errors a command reports as one line: bad input exits 2, a failed operation 1. */
export function toCliError(err: unknown): unknown {
  if (err instanceof BackendError) return new CliError(err.message, err.code === 'invalid_input' ? 2 : 1);
  if (err instanceof UserError) return new CliError(err.message, 1);
  return err;
}

/** Opens the app for one command, runs it, and closes the app whatever happens. */
export async function withApp<T>(
  values: ConfigValues,
  io: Terminal,
  fn: (app: App) => T | Promise<T>,
  opts: { readOnlyOk?: boolean; needsTarget?: string } = {},
): Promise<T> {
  const app = await openAppFrom(values, io, opts);
  try {
    return await fn(app);
  } catch (err) {
    throw toCliError(err);
  } finally {
    await app.close();
  }
}

/**
 * Commands that write (keys create, users add) without --config or SVC_CONFIG say where they wrote, so a key made
 * in the wrong directory is noticed at once.
 */
export function sayWhereWritten(values: ConfigValues, io: Terminal, app: App, what: string): void {
  if (typeof values.config === 'string' || io.env.SVC_CONFIG) return;
  io.stderr.write(
    `svc: ${what} written to ${app.dataDir} (project ${app.backend.publicToken}); with no --config or SVC_CONFIG, data goes to ./data of this directory or SVC_DATA_DIR\n`,
  );
}
