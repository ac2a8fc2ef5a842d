// One source of each limit a caller can run into, whatever surface it comes through (/v1, abilities, CLI).

/** The link report's `limit`: links returned across all sections. */
export const REPORT_LIMIT = { min: 1, max: 5000, default: 1000 } as const;
/** Links svc/link-report answers when not told: a page of the report sized for an assistant's context. */
export const REPORT_TOOL_LIMIT_DEFAULT = 25;
/** URLs one page deletion may list. */
export const DELETE_URLS_MAX = 50;
/** Characters of an API key's name. */
export const API_KEY_NAME_MAX = 200;
/** URLs one manual crawl may list. */
export const MANUAL_URLS_MAX = 1000;
/** How long a fixed problem's history, and a finished webhook delivery, are kept (days). */
export const HISTORY_KEEP_DAYS = 180;
export const DELIVERIES_KEEP_DAYS = 30;

/**
 * Search terms: characters and words. 32 words is more than any query a person or an agent writes (the index ANDs
 * them, so each extra word only narrows), and 1,000 characters holds 32 long words with room for quotes; beyond that
 * a query only costs time to tokenize and stem, which is how huge terms once slowed every other request.
 */
export const SEARCH_TERMS_MAX_CHARS = 1000;
export const SEARCH_TERMS_MAX_WORDS = 32;
/**
 * The body of a search request (/v1 search, the svc/search ability route), refused unread above this: the longest
 * terms JSON-escaped (6 bytes a character at worst) plus search_params fit in it with room to spare.
 */
export const SEARCH_BODY_MAX_BYTES = 16 * 1024;

/** The words of search terms as the limit counts them: runs of characters between spaces (quotes included). */
export function termsWordCount(terms: string): number {
  const t = terms.trim();
  return t ? t.split(/\s+/).length : 0;
}

/** Why search terms are over a limit ("must be at most …"), or null when they are within both. */
export function termsLimitProblem(terms: string): string | null {
  if (terms.length > SEARCH_TERMS_MAX_CHARS)
    return `must be at most ${SEARCH_TERMS_MAX_CHARS} characters (got ${terms.length})`;
  const words = termsWordCount(terms);
  if (words > SEARCH_TERMS_MAX_WORDS) return `must be at most ${SEARCH_TERMS_MAX_WORDS} words (got ${words})`;
  return null;
}
/** Characters of Markdown one read of a stored page answers (svc/get-page, GET …/pages/content). */
export const PAGE_CHUNK = { min: 100, max: 50_000, default: 8000 } as const;
/** Pages one answer of the page list holds (svc/list-pages, GET …/pages?prefix=). */
export const PAGE_LIST_LIMIT = { min: 1, max: 200, default: 50 } as const;
