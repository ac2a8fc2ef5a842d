// The crawl engine as the rest of the service sees it: run a crawl, and the pure fragment rule its tests check.
export { CrawlEngine, runCrawl, type CrawlResult } from './engine.js';
export type { CrawlEngineOptions } from './context.js';
export { fragmentOutcome } from './fragments.js';
