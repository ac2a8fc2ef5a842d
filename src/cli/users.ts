// `svc users add LOGIN --role R` (prints the new bearer token alone on one stdout line), `svc users list`,
// `svc users reset-token LOGIN` (a new token; the old one stops working), `svc users set-password LOGIN` (the
// sign-in password of the OAuth page, read from stdin), `svc users revoke-tokens LOGIN` (ends its OAuth tokens),
// `svc users remove LOGIN` (the user with their sessions, tokens and grants). A changed password or token, revoked
// tokens and a removal all end the user's console sessions.
import { revokeUserTokens } from '../auth/oauth/authorization-server.js';
import { addUser, getUser, listUsers, removeUser, resetUserToken } from '../auth/users.js';
import { ROLES } from '../model/users.js';
import { CliError, parse, sayWhereWritten, withApp } from './common.js';
import type { Terminal } from './terminal.js';

const USAGE = `usage: svc users add LOGIN --role ROLE    add a user; prints its bearer token once
       svc users list                    logins and roles
       svc users reset-token LOGIN       replace a user's token; prints the new one once
       svc users set-password LOGIN      set the password of the OAuth sign-in page, read from stdin
       svc users revoke-tokens LOGIN     end every OAuth token the user's sign-ins issued
       svc users remove LOGIN            remove a user with their console sessions and OAuth tokens
roles: ${ROLES.join(', ')}
`;

export async function run(argv: string[], io: Terminal): Promise<number> {
  const { values, positionals } = parse(argv, { role: { type: 'string' } });
  if (values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  const [sub, login, ...extra] = positionals;
  if (extra.length) throw new CliError(`unexpected argument "${extra[0]}"\n${USAGE}`);
  if (sub === 'add') {
    if (!login) throw new CliError(`users add: LOGIN is required\n${USAGE}`);
    if (typeof values.role !== 'string')
      throw new CliError(`users add: --role is required (one of ${ROLES.join(', ')})`);
    const role = values.role;
    await withApp(values, io, async (app) => {
      io.stdout.write(`${await addUser(app.store.sql, login, role)}\n`);
      sayWhereWritten(values, io, app, `user ${login}`);
      io.stderr.write(`added ${role} "${login}"; the token above is shown only once\n`);
    });
    return 0;
  }
  if (sub === 'reset-token') {
    if (!login) throw new CliError(`users reset-token: LOGIN is required\n${USAGE}`);
    await withApp(values, io, async (app) => {
      io.stdout.write(`${await resetUserToken(app.store.sql, login)}\n`);
    });
    return 0;
  }
  if (sub === 'set-password') {
    if (!login) throw new CliError(`users set-password: LOGIN is required\n${USAGE}`);
    const password = await readPassword(io);
    await withApp(values, io, async (app) => {
      await app.passwords.set(app.store.sql, login, password);
      io.stderr.write(`password of "${login}" set\n`);
    });
    return 0;
  }
  if (sub === 'revoke-tokens') {
    if (!login) throw new CliError(`users revoke-tokens: LOGIN is required\n${USAGE}`);
    await withApp(values, io, async (app) => {
      if (!(await getUser(app.store.sql, login))) throw new CliError(`login "${login}": no such user`, 1);
      const n = await revokeUserTokens(app.store.sql, login);
      io.stderr.write(`${n} OAuth token(s) of "${login}" revoked\n`);
    });
    return 0;
  }
  if (sub === 'remove') {
    if (!login) throw new CliError(`users remove: LOGIN is required\n${USAGE}`);
    await withApp(values, io, async (app) => {
      const ended = await removeUser(app.store.sql, login);
      io.stderr.write(
        `removed "${login}" with ${ended.sessions} console session(s) and ${ended.tokens} OAuth token(s)\n`,
      );
    });
    return 0;
  }
  if (sub === 'list') {
    if (login) throw new CliError(`unexpected argument "${login}"\n${USAGE}`);
    await withApp(values, io, async (app) => {
      for (const u of await listUsers(app.store.sql)) io.stdout.write(`${u.login}\t${u.role}\n`);
    });
    return 0;
  }
  throw new CliError(sub ? `users: unknown subcommand "${sub}"\n${USAGE}` : USAGE);
}

/**
 * The password: the first line of stdin (piped: `printf '%s' "$PW" | svc users set-password LOGIN`); on a
 * terminal, typed without echo.
 */
async function readPassword(io: Terminal): Promise<string> {
  const stdin = io.stdin;
  if (stdin.isTTY) {
    io.stderr.write('password (not shown): ');
    stdin.setRawMode?.(true);
    stdin.resume();
    stdin.setEncoding('utf8');
    try {
      return await new Promise<string>((resolve, reject) => {
        let typed = '';
        stdin.on('data', (chunk: string) => {
          for (const ch of chunk) {
            if (ch === '\r' || ch === '\n') return resolve(typed);
            if (ch === '\u0003') return reject(new CliError('cancelled', 1));
            if (ch === '\u007f' || ch === '\b') typed = typed.slice(0, -1);
            else typed += ch;
          }
        });
      });
    } finally {
      stdin.setRawMode?.(false);
      stdin.pause();
      io.stderr.write('\n');
    }
  }
  const chunks: Buffer[] = [];
  for await (const c of stdin) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  const line = text.split(/\r?\n/)[0] ?? '';
  if (!line) throw new CliError('users set-password: no password on stdin', 2);
  return line;
}
