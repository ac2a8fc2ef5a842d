// svc-partial-crawl: starts a crawl of the sitemap pages changed since the last crawl (svc/partial-crawl).
import { defineTool } from './define.js';

export const svcPartialCrawl = defineTool({
  ability: 'svc/partial-crawl',
  // Fetches sitemaps and pages of the site, and checks the links on them.
  openWorldHint: true,
});
