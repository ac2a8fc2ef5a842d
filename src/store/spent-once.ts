// One-use tokens spent in the database, so every process on the store refuses a second use alike: a confirmation's
// requestState (by its hash) and a sign-in form (by its random id: worthless without the server's signature over it).
// A row is kept until its token would have expired anyway, then forgotten by the next spend.
import type { Sql } from './sql.js';

/** Each kind of one-use token: its table and the column that names a token. */
const SPENT = {
  requestState: { table: 'spent_request_states', column: 'state_hash' },
  signInForm: { table: 'spent_sign_in_forms', column: 'form_id' },
} as const;

export type OneUseToken = keyof typeof SPENT;

/** Marks a token spent until `expiresAt` (ms); false when it already was. */
export async function spendOnce(
  sql: Sql,
  kind: OneUseToken,
  id: string,
  expiresAt: number,
  now: number,
): Promise<boolean> {
  const { table, column } = SPENT[kind];
  return sql.tx(async (t) => {
    await t.run(`DELETE FROM ${table} WHERE expires_at <= ?`, [now]);
    const res = await t.run(
      `INSERT INTO ${table} (${column}, expires_at) VALUES (?, ?) ON CONFLICT (${column}) DO NOTHING`,
      [id, expiresAt],
    );
    return res.changes > 0;
  });
}
