// A secret the server makes once and then shares with every process on the database (PostgreSQL's server_keys
// table): the first process to ask inserts its candidate, every later one (and any that raced it) reads the winner.
// Kept in clear: a signing key must be usable, not only comparable; whoever can read it can already change the rows
// it guards.
import type { Sql } from './sql.js';

/** The secret stored under `name`, made by `make` (and stored) if there is none yet. Always the one stored. */
export async function sharedServerKey(sql: Sql, name: string, make: () => string): Promise<string> {
  const read = () => sql.get<{ secret: string }>('SELECT secret FROM server_keys WHERE name = @name', { name });
  const found = await read();
  if (found) return found.secret;
  await sql.run(
    'INSERT INTO server_keys (name, secret, created_at) VALUES (@name, @secret, @at) ON CONFLICT (name) DO NOTHING',
    {
      name,
      secret: make(),
      at: new Date().toISOString(),
    },
  );
  return (await read())!.secret;
}
