// svc-search: full-text search over the local index (svc/search).
import { defineTool } from './define.js';

export const svcSearch = defineTool({
  ability: 'svc/search',
  // Queries this service's own index; no request leaves it.
  openWorldHint: false,
});
