// Rows of spent_request_states: the hashes of confirmations' requestStates that have deleted once.
import type { Sql } from './sql.js';

/**
 * Marks a state spent until `expiresAt` (ms); false when it already was. Spent states past their expiry are
 * forgotten on the way (an expired state is refused by its signature's expiry anyway).
 */
export async function spendRequestStateHash(
  sql: Sql,
  stateHash: string,
  expiresAt: number,
  now: number,
): Promise<boolean> {
  return sql.tx(async (t) => {
    await t.run('DELETE FROM spent_request_states WHERE expires_at <= ?', [now]);
    const res = await t.run(
      'INSERT INTO spent_request_states (state_hash, expires_at) VALUES (?, ?) ON CONFLICT (state_hash) DO NOTHING',
      [stateHash, expiresAt],
    );
    return res.changes > 0;
  });
}
