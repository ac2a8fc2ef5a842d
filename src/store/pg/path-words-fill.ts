// The words of each stored page's address (search-index/path-words.ts), filled at open for the pages that have none
// yet: the pages a store held when migration 13 added the column. Computed here, in JS, so both stores index the
// same words. The vector's trigger swaps only its B part, so this is cheap; several processes opening the store at
// once fill the same rows to the same value.
import type { Sql } from '../sql.js';
import { pathWords } from '../search/path-words.js';

/** Pages filled per statement. */
const FILL_CHUNK = 1000;

/** Fills path_words of every page (and pending row) without; returns how many pages were filled. */
export async function fillPathWords(sql: Sql): Promise<number> {
  let filled = 0;
  for (let after = 0; ; ) {
    const rows = await sql.all<{ id: number; url: string }>(
      'SELECT id, url FROM pages WHERE path_words IS NULL AND id > ? ORDER BY id LIMIT ?',
      [after, FILL_CHUNK],
    );
    if (!rows.length) break;
    await sql.run(
      `UPDATE pages p SET path_words = x.w FROM json_to_recordset(?::json) AS x(id bigint, w text)
       WHERE p.id = x.id AND p.path_words IS NULL`,
      [JSON.stringify(rows.map((r) => ({ id: r.id, w: pathWords(r.url) })))],
    );
    filled += rows.length;
    after = rows.at(-1)!.id;
  }
  await sql.run(
    'UPDATE page_index_pending q SET path_words = p.path_words FROM pages p WHERE p.id = q.page_id AND q.path_words IS NULL',
  );
  return filled;
}
