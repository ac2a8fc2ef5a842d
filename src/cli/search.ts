// `svc search TERMS [--lang L] [--tag T]… [--path P] [--facet F]… [--size N] [--from N] [--json]`: searches the index (embedded or remote).
import { unescapeHtml } from '../lib/escape-html.js';
import { SEARCH_FACETS, SEARCH_SIZE_MAX, type SearchFacetName } from '../model/search-params.js';
import { SEARCH_TERMS_MAX_CHARS, SEARCH_TERMS_MAX_WORDS, termsLimitProblem } from '../model/limits.js';
import type { SearchParams, SearchResults } from '../model/types.js';
import { CliError, intOption, notCrawledHint, parse, PROJECT_OPTION, withApp } from './common.js';
import type { Terminal } from './terminal.js';

const USAGE = `usage: svc search TERMS… [--lang L] [--tag T]… [--path P] [--facet F]… [--size N] [--from N] [--json] [--config F | --site URL] [--project TOKEN]
  TERMS        words (all must match); "quoted phrases"; the last word also matches as a prefix
               (at most ${SEARCH_TERMS_MAX_CHARS} characters and ${SEARCH_TERMS_MAX_WORDS} words)
  --lang L     only pages in language L ("en" also matches "en-US")
  --tag T      only pages carrying tag T; repeat for more (all must match)
  --path P     only pages whose address path starts with P (e.g. /docs/)
  --facet F    count the matches by F: ${SEARCH_FACETS.join(', ')}; repeat for more
  --size N     hits to show, 1 to ${SEARCH_SIZE_MAX} (default 10)
  --from N     skip the first N hits (paging)
  --json       print the results object {total, duration, hits}

Exit status: 0 answered (hits or none), 2 bad input, no target, or a target never crawled ("not crawled yet").
`;

/** A highlight (HTML with <em> around matches) as terminal text: matches bold on a TTY, *starred* otherwise. */
export function highlightForTerminal(html: string, tty: boolean): string {
  const [on, off] = tty ? ['\x1b[1m', '\x1b[22m'] : ['*', '*'];
  return unescapeHtml(html.replace(/<em>/g, on).replace(/<\/em>/g, off));
}

export function formatResults(terms: string, r: SearchResults, from: number, tty = false): string {
  const out: string[] = [];
  const shown = r.hits.length ? `, showing ${from + 1}–${from + r.hits.length}` : '';
  out.push(`${r.total} result${r.total === 1 ? '' : 's'} for ${JSON.stringify(terms)}${shown} (${r.duration} ms)`);
  if (r.corrected_terms?.length)
    out.push(`Showing results for: ${r.corrected_terms.map((c) => `${c.to} (not ${c.from})`).join(', ')}`);
  if (r.did_you_mean) out.push(`Did you mean: ${r.did_you_mean}`);
  r.hits.forEach((h, i) => {
    out.push('', `${from + i + 1}. ${h.title || '(no title)'}`, `   ${h.url}`);
    const facts = [
      `score ${h.score}`,
      h.language ? `lang ${h.language}` : '',
      h.modified ? `modified ${h.modified}` : '',
      h.tags.length ? `tags ${h.tags.join(', ')}` : '',
      h.matched_terms ? `matches only ${h.matched_terms.join(' ')}` : '',
    ]
      .filter(Boolean)
      .join(' · ');
    out.push(`   ${facts}`);
    if (h.highlight) out.push(`   ${highlightForTerminal(h.highlight, tty)}`);
  });
  for (const [name, counts] of Object.entries(r.facets ?? {}))
    out.push('', `${name}: ${counts.map((c) => `${c.value} (${c.count})`).join(', ') || 'none'}`);
  if (!r.total) out.push('', 'No page matches any of the words. Fewer or shorter words find more.');
  else if (from + r.hits.length < r.total && r.hits.length) out.push('', `More: --from ${from + r.hits.length}`);
  return `${out.join('\n')}\n`;
}

export async function run(argv: string[], io: Terminal): Promise<number> {
  const { values, positionals } = parse(argv, {
    lang: { type: 'string' },
    tag: { type: 'string', multiple: true },
    path: { type: 'string' },
    facet: { type: 'string', multiple: true },
    size: { type: 'string' },
    from: { type: 'string' },
    json: { type: 'boolean' },
    ...PROJECT_OPTION,
  });
  if (values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  const terms = positionals.join(' ');
  if (!terms.trim()) throw new CliError(`TERMS: give the words to search for\n${USAGE}`);
  const over = termsLimitProblem(terms);
  if (over) throw new CliError(`TERMS: ${over}`);
  const params: SearchParams = {};
  const size = intOption('size', values.size, 1, SEARCH_SIZE_MAX);
  const from = intOption('from', values.from, 0, Number.MAX_SAFE_INTEGER);
  if (size !== undefined) params.size = size;
  if (from !== undefined) params.from = from;
  if (typeof values.lang === 'string') params.lang = values.lang;
  if (values.tag?.length) params.tags = values.tag.filter((t): t is string => typeof t === 'string');
  if (typeof values.path === 'string') params.path_prefix = values.path;
  if (values.facet?.length) {
    const bad = values.facet.find((f) => !(SEARCH_FACETS as readonly unknown[]).includes(f));
    if (bad !== undefined)
      throw new CliError(`--facet: must be one of ${SEARCH_FACETS.join(', ')} (not ${JSON.stringify(bad)})`);
    params.facets = values.facet as SearchFacetName[];
  }

  await withApp(
    values,
    io,
    async (app) => {
      const results = await app.backend.search(terms, params);
      // No hit from a target nothing has crawled is not an answer: say so (exit 2) rather than "no match".
      if (results.total === 0) {
        const report = await app.backend.linkReport({ limit: 1 }).catch(() => null);
        if (report?.status === 'not_crawled') throw new CliError(`search: ${notCrawledHint(report, values)}`, 2);
      }
      io.stdout.write(
        values.json
          ? `${JSON.stringify(results, null, 2)}\n`
          : formatResults(terms, results, from ?? 0, io.stdout.isTTY === true),
      );
    },
    { readOnlyOk: true, needsTarget: 'search' },
  );
  return 0;
}
