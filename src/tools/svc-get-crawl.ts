// svc-get-crawl: a crawl record, the latest by default; with wait_seconds it waits for the crawl's end and sends
// progress notifications meanwhile (svc/get-crawl).
import { defineTool } from './define.js';

export const svcGetCrawl = defineTool({
  ability: 'svc/get-crawl',
  // Reads this service's own crawl records; waiting sends no request anywhere.
  openWorldHint: false,
});
