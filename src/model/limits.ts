// One source of each limit a caller can run into, whatever surface it comes through (/v1, abilities, CLI).

/** The link report's `limit`: links returned across all sections. */
export const REPORT_LIMIT = { min: 1, max: 5000, default: 1000 } as const;
/** URLs one page deletion may list. */
export const DELETE_URLS_MAX = 50;
/** URLs one manual crawl may list. */
export const MANUAL_URLS_MAX = 1000;
/** How long a fixed problem's history, and a finished webhook delivery, are kept (days). */
export const HISTORY_KEEP_DAYS = 180;
export const DELIVERIES_KEEP_DAYS = 30;
