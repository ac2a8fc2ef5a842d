// svc-manual-crawl: starts a crawl of the listed URLs only (svc/manual-crawl).
import { defineTool } from './define.js';

export const svcManualCrawl = defineTool({
  ability: 'svc/manual-crawl',
  // Fetches the listed pages from the site and checks the links on them.
  openWorldHint: true,
});
