// svc-get-page-meta: the page meta of one post, as the crawler indexes it (svc/get-page-meta).
import { defineTool } from './define.js';

export const svcGetPageMeta = defineTool({
  ability: 'svc/get-page-meta',
  // Reads the host's own post store; no request leaves the service.
  openWorldHint: false,
});
