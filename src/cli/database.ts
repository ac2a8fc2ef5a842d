// `svc check` · `svc repair` · `svc backup FILE`: the database file's integrity, rebuilding what is derived from
// it, and a consistent copy while the server runs.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { backupTo, derivedProblems, rebuildDerived, tableProblems } from '../store/sqlite/maintenance.js';
import { Store } from '../store/sqlite/store.js';
import { CliError, parse, PROJECT_OPTION, readProjectConfig, type ConfigValues } from './common.js';
import { projectDatabaseFile } from '../app/project.js';
import { describeDatabaseUrl } from '../model/database-url.js';
import type { Terminal } from './terminal.js';

const USAGE = `usage: svc check            integrity of the database: tables, search index, report rows (exit 1 on a problem)
       svc repair           rebuild the search index and the report rows from the stored pages and links
       svc backup FILE      write a consistent copy of the database to FILE (safe while svc serve runs)
options: --config F, --site URL, --project TOKEN (whose database; default: the first project)
`;

function openDb(values: ConfigValues, io: Terminal, command: string): Store {
  const config = readProjectConfig(values, io);
  if (config.database_url) {
    throw new CliError(
      `${command}: works on the SQLite store only, and this config keeps its data in PostgreSQL (database_url / SVC_DATABASE_URL: ${describeDatabaseUrl(config.database_url)}): use PostgreSQL's own tools (pg_dump, amcheck, REINDEX)`,
      1,
    );
  }
  const path = projectDatabaseFile(config, config.project.public_token);
  if (!existsSync(path))
    throw new CliError(`no database at ${path}: check --config / SVC_DATA_DIR (nothing has been stored there yet)`, 1);
  return new Store(path, { migrate: false });
}

export async function run(argv: string[], io: Terminal, command = 'check'): Promise<number> {
  const { values, positionals } = parse(argv, PROJECT_OPTION);
  if (values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  if (command === 'backup') {
    if (positionals.length !== 1) throw new CliError('backup: give the file to write, e.g. svc backup svc-backup.db');
    const file = resolve(positionals[0]!);
    if (existsSync(file)) throw new CliError(`backup: ${file} exists; give a new file name`);
    const store = openDb(values, io, command);
    try {
      await backupTo(store, file);
    } catch (err) {
      throw new CliError(`backup: cannot write ${file}: ${(err as Error).message}`, 1);
    } finally {
      store.close();
    }
    io.stderr.write(`svc: database copied to ${file}\n`);
    return 0;
  }
  if (positionals.length) throw new CliError(`${command}: unexpected argument "${positionals[0]}"`);
  const store = openDb(values, io, command);
  try {
    const tables = tableProblems(store);
    if (command === 'check') {
      const problems = [...tables.map((p) => `tables: ${p}`), ...(tables.length ? [] : derivedProblems(store))];
      for (const p of problems) io.stderr.write(`svc check: ${p}\n`);
      if (problems.length) {
        io.stderr.write(
          `svc check: ${problems.length} problem(s) in ${store.path}: ${tables.length ? 'the base tables are damaged: restore a backup (svc backup)' : 'run svc repair'}\n`,
        );
        return 1;
      }
      io.stderr.write(`svc check: ${store.path} is sound\n`);
      return 0;
    }
    if (tables.length) {
      for (const p of tables) io.stderr.write(`svc repair: tables: ${p}\n`);
      throw new CliError(
        `repair: the base tables of ${store.path} are damaged and cannot be rebuilt from anything: restore a backup (svc backup), or crawl again into a new data directory`,
        1,
      );
    }
    for (const what of rebuildDerived(store)) io.stderr.write(`svc repair: rebuilt ${what}\n`);
    const left = derivedProblems(store);
    if (left.length) throw new CliError(`repair: still damaged after rebuilding: ${left.join('; ')}`, 1);
    return 0;
  } finally {
    store.close();
  }
}
