// Deleting pages from the store and the index by exact URL, without crawling them.
import { DELETE_URLS_MAX } from '../model/limits.js';
import type { TargetConfig } from '../model/config.js';
import { BackendError } from '../model/errors.js';
import { removePageByUrl } from '../store/pages.js';
import type { Sql } from '../store/sql.js';
import type { DeletePagesResult } from '../model/types.js';
import { checkSiteUrl } from '../model/site-urls.js';

/**
 * Removes the pages stored under the given URLs (1–50), with their tags, links and index entries, in one
 * transaction. A URL matches its page exactly as given or in its normalized form (`new URL(u).href`).
 */
export async function deletePages(sql: Sql, targets: TargetConfig[], urls: string[]): Promise<DeletePagesResult> {
  if (!Array.isArray(urls)) throw new BackendError('invalid_input', 'urls: must be an array of URLs');
  if (urls.length < 1 || urls.length > DELETE_URLS_MAX) {
    throw new BackendError('invalid_input', `urls: must hold 1 to ${DELETE_URLS_MAX} URLs (got ${urls.length})`);
  }
  const problems: string[] = [];
  const parsed = urls.map((u, i) => {
    const r = checkSiteUrl(u, targets);
    if (typeof r === 'string') problems.push(`urls[${i}]: ${r}`);
    return r;
  });
  if (problems.length) throw new BackendError('invalid_input', problems.join('; '));

  const deleted: string[] = [];
  const notFound: string[] = [];
  await sql.tx(async (t) => {
    const seen = new Set<string>();
    for (const [i, raw] of urls.entries()) {
      if (seen.has(raw)) continue;
      seen.add(raw);
      const href = (parsed[i] as URL).href;
      // Both forms go, when they differ: a page may be stored under either.
      const asGiven = await removePageByUrl(t, raw);
      const normalized = href !== raw && (await removePageByUrl(t, href));
      (asGiven || normalized ? deleted : notFound).push(raw);
    }
  });
  return { deleted, notFound };
}
