// What an assistant reads of a stored page (svc/get-page): its Markdown and outline (headings with their anchors
// and where each starts in the Markdown), as the crawl's extractor built them. A table of its own, like
// page_headings: the pages table's rows stay small for the reads that scan them, and only reading a page pays for
// its Markdown. Pages stored before have none until next crawled (the extraction version moved with it).
import type { Migration } from './index.js';

export const migration: Migration = {
  version: 35,
  name: 'page content for reading',
  sql: `
CREATE TABLE page_content (
  page_id  INTEGER PRIMARY KEY REFERENCES pages(id) ON DELETE CASCADE,
  markdown TEXT NOT NULL,
  outline  TEXT NOT NULL  -- JSON: [{level, text, anchor, start}]
);
`,
};
