// `svc users add LOGIN --role R` (prints the new bearer token alone on one stdout line), `svc users list`,
// `svc users reset-token LOGIN` (a new token; the old one stops working).
import { addUser, listUsers, resetUserToken } from '../auth/users.js';
import { ROLES } from '../model/users.js';
import { CliError, parse, sayWhereWritten, withApp } from './common.js';

const USAGE = `usage: svc users add LOGIN --role ROLE    add a user; prints its bearer token once
       svc users list                    logins and roles
       svc users reset-token LOGIN       replace a user's token; prints the new one once
roles: ${ROLES.join(', ')}
`;

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { role: { type: 'string' } });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const [sub, login, ...extra] = positionals;
  if (extra.length) throw new CliError(`unexpected argument "${extra[0]}"\n${USAGE}`);
  if (sub === 'add') {
    if (!login) throw new CliError(`users add: LOGIN is required\n${USAGE}`);
    if (typeof values.role !== 'string') throw new CliError(`users add: --role is required (one of ${ROLES.join(', ')})`);
    const role = values.role;
    await withApp(values, (app) => {
      process.stdout.write(`${addUser(app.store, login, role)}\n`);
      sayWhereWritten(values, app, `user ${login}`);
      process.stderr.write(`added ${role} "${login}"; the token above is shown only once\n`);
    });
    return 0;
  }
  if (sub === 'reset-token') {
    if (!login) throw new CliError(`users reset-token: LOGIN is required\n${USAGE}`);
    await withApp(values, (app) => {
      process.stdout.write(`${resetUserToken(app.store, login)}\n`);
    });
    return 0;
  }
  if (sub === 'list') {
    if (login) throw new CliError(`unexpected argument "${login}"\n${USAGE}`);
    await withApp(values, (app) => {
      for (const u of listUsers(app.store)) process.stdout.write(`${u.login}\t${u.role}\n`);
    });
    return 0;
  }
  throw new CliError(sub ? `users: unknown subcommand "${sub}"\n${USAGE}` : USAGE);
}

