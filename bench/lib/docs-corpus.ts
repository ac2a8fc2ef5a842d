// A manual's pages as the crawler's own extractor reads them, fetched from the docs site on loopback
// (serve-docs-site.sh, the PostgreSQL manual) or read from disk (any manual): what a crawl of it would index.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { extractHtml } from '../../src/crawler/html/extractor.js';
import type { PageWrite } from '../../src/model/crawl-writes.js';

const DOCS_DIR = '/usr/share/doc/postgresql-doc-15/html';

export interface Doc {
  /** File name, relative to the site's root. */
  path: string;
  title: string;
  text: string;
  lang: string | null;
  headings: string[];
}

export async function fetchCorpus(base: string): Promise<Doc[]> {
  const files = readdirSync(DOCS_DIR)
    .filter((f) => f.endsWith('.html'))
    .sort();
  const docs: Doc[] = [];
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const f = files[next++]!;
      const url = new URL(f, base).href;
      const res = await fetch(url);
      if (!res.ok) throw new Error(`${f}: HTTP ${res.status}`);
      const { title, text, lang, headings } = extractHtml(await res.text(), { url });
      docs.push({ path: f, title, text, lang, headings });
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return docs.sort((a, b) => a.path.localeCompare(b.path));
}

/**
 * The pages of a manual read from disk (the files under `root` that `pages` accepts, paths relative to it), each
 * read by the crawler's extractor as if served under `base`: what a crawl of the manual served there would index.
 */
export function readManual(root: string, pages: (path: string) => boolean, base: string): Doc[] {
  const files = (readdirSync(root, { recursive: true }) as string[]).filter((f) => pages(f)).sort();
  return files.map((f) => {
    const url = new URL(f, base).href;
    const { title, text, lang, headings } = extractHtml(readFileSync(join(root, f), 'utf8'), { url });
    return { path: f, title, text, lang, headings };
  });
}

/** A page of the manual as the crawler would store it: indexed, shown, no links; `over` sets the rest. */
export function docPage(doc: Doc, url: string, over: Partial<PageWrite> = {}): PageWrite {
  return {
    url,
    host: new URL(url).host,
    httpStatus: 200,
    contentType: 'text/html',
    indexed: true,
    showInSearch: true,
    title: doc.title,
    language: doc.lang,
    tags: [],
    superwords: [],
    content: doc.text,
    meta: null,
    created: null,
    modified: null,
    sitemapLastmod: null,
    crawlId: 1,
    links: [],
    headings: doc.headings,
    ...over,
  };
}
