// `svc keys create [--name N]` · `svc keys list` · `svc keys revoke ID`: API keys of this service's /v1 project.
import { createApiKey, listApiKeys, revokeApiKey } from '../auth/keys.js';
import { API_KEY_NAME_MAX } from '../model/limits.js';
import { CliError, intOption, parse, PROJECT_OPTION, sayWhereWritten, withApp } from './common.js';
import type { Terminal } from './terminal.js';

const USAGE = `usage: svc keys create [--name N]   make a /v1 API key; prints it once, alone on one line
       svc keys list                list keys (id, created, name, first characters, last used) — never the keys
       svc keys revoke ID           revoke a key (refused by /v1 from then on)
options: --config F, --site URL, --project TOKEN (the project the key is for; default: the first)
`;

export async function run(argv: string[], io: Terminal): Promise<number> {
  const { values, positionals } = parse(argv, { name: { type: 'string' }, ...PROJECT_OPTION });
  const [action, ...rest] = positionals;
  if (values.help || !action) {
    io.stdout.write(USAGE);
    return values.help ? 0 : 2;
  }
  if (!['create', 'list', 'revoke'].includes(action))
    throw new CliError(`keys: unknown action "${action}" (create, list or revoke)`);
  if (action !== 'revoke' && rest.length) throw new CliError(`keys ${action}: unexpected argument "${rest[0]}"`);
  if (action !== 'create' && values.name !== undefined) throw new CliError(`keys ${action}: --name is only for create`);
  await withApp(values, io, async (app) => {
    const project = app.backend.publicToken;
    if (action === 'create') {
      const name = typeof values.name === 'string' ? values.name.trim() : '';
      if (name.length > API_KEY_NAME_MAX) throw new CliError(`--name: must be at most ${API_KEY_NAME_MAX} characters`);
      const { key, info } = await createApiKey(app.store.sql, project, name);
      app.logger.info(
        { id: info.id, name: info.name, project },
        'API key created; it is printed once and only its hash is stored',
      );
      io.stdout.write(`${key}\n`);
      sayWhereWritten(values, io, app, 'API key');
    } else if (action === 'list') {
      const keys = await listApiKeys(app.store.sql, project);
      if (!keys.length) io.stdout.write(`no API keys for ${project}\n`);
      for (const k of keys)
        io.stdout.write(
          `${k.id}\t${k.createdAt}\t${k.name}\t${k.prefix ? `${k.prefix}…` : '-'}\t${k.lastUsedAt ?? 'never used'}\n`,
        );
    } else {
      if (rest.length !== 1) throw new CliError('keys revoke: give exactly one key id (see svc keys list)');
      const id = intOption('id', rest[0], 1, Number.MAX_SAFE_INTEGER)!;
      const done = await revokeApiKey(app.store.sql, project, id);
      if (done === 'not_found') throw new CliError(`keys revoke: no key ${id} for ${project}`, 1);
      if (done === 'already_revoked') throw new CliError(`keys revoke: key ${id} was already revoked`, 1);
      app.logger.info({ id, project }, 'API key revoked');
    }
  });
  return 0;
}
