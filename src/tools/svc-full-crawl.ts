// svc-full-crawl: starts a full crawl of every target and returns at once with the crawl record (svc/full-crawl).
import { defineTool } from './define.js';

export const svcFullCrawl = defineTool({
  ability: 'svc/full-crawl',
  // Fetches the site's pages and, with track_links = all, checks every link on them, external ones too.
  openWorldHint: true,
});
