// svc-search: full-text search over the local index (svc/search). Each hit also comes as a resource_link to the
// page, so a client can offer or fetch it.
import type { ContentBlock } from '@modelcontextprotocol/server';
import { defineTool } from './define.js';

interface Hit {
  url: string;
  title: string;
  highlight: string;
}

export const svcSearch = defineTool({
  ability: 'svc/search',
  // Queries this service's own index; no request leaves it.
  openWorldHint: false,
  content(output): ContentBlock[] {
    const hits = ((output.results as { hits?: Hit[] } | undefined)?.hits ?? []) as Hit[];
    return hits.map((h) => ({
      type: 'resource_link',
      uri: h.url,
      name: h.title || h.url,
      description: h.highlight.replace(/<\/?em>/g, ''),
      mimeType: 'text/html',
    }));
  },
});
