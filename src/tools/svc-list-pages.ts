// svc-list-pages: the stored pages under a prefix, paged by cursor (svc/list-pages).
import { defineTool } from './define.js';

export const svcListPages = defineTool({
  ability: 'svc/list-pages',
  // Reads what the crawl stored: no request leaves the service.
  openWorldHint: false,
});
