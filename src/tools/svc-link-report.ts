// svc-link-report: the broken, forbidden, failing and redirected links found by crawls (svc/link-report).
import { defineTool } from './define.js';

export const svcLinkReport = defineTool({
  ability: 'svc/link-report',
  // The report is built from what crawls recorded: reading it sends no request to the crawled site.
  // `refresh` only re-reads this service's own /v1 report, past the 15-minute cache.
  openWorldHint: false,
});
