// svc-delete-pages: removes pages from the search index by exact URL, without crawling (svc/delete-pages).
import { defineTool } from './define.js';

export const svcDeletePages = defineTool({
  ability: 'svc/delete-pages',
  // Changes only this service's index; the site itself is neither fetched nor changed.
  openWorldHint: false,
});
