// svc-get-page: one stored page as Markdown, in chunks or by section (svc/get-page).
import { defineTool } from './define.js';

export const svcGetPage = defineTool({
  ability: 'svc/get-page',
  // Reads what the crawl stored: no request leaves the service.
  openWorldHint: false,
});
