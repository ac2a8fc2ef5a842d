// The page meta the crawler indexes: the page's own JSON (svc-page-meta) where present, falling back to
// <title>, <html lang>, Last-Modified and the meta description. PURE.
import type { PageMeta } from '../model/types.js';
import type { ExtractedPage } from './html/extractor.js';

/** ISO 8601 of a date string (HTTP date, W3C datetime…), or null. */
export function toIso(value: string | null | undefined): string | null {
  if (!value) return null;
  const t = Date.parse(value);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

export interface PageFacts {
  url: string;
  /** The target's host[:port] (for the `domain/<host>` tag). */
  host: string;
  extracted: ExtractedPage;
  lastModified?: string | null;
  contentLanguage?: string | null;
  /** The target's `tags` setting. */
  targetTags?: string[];
}

export function buildPageMeta(f: PageFacts): PageMeta {
  const m = f.extracted.embeddedMeta ?? {};
  const tags = [...(m.tags ?? []), ...(f.targetTags ?? []), `domain/${f.host}`];
  const lang = m.language !== undefined ? m.language : (f.extracted.lang ?? firstLanguage(f.contentLanguage));
  const meta: PageMeta = {
    showInSearch: m.showInSearch ?? true,
    title: (m.title ?? '').trim() || f.extracted.title || titleFromUrl(f.url),
    url: f.url,
    created: toIso(m.created ?? null),
    modified: toIso(m.modified ?? null) ?? toIso(f.lastModified ?? null),
    language: lang ? lang.trim() || null : null,
    tags: [...new Set(tags.map((t) => t.trim()).filter(Boolean))],
    customFields: m.customFields ?? {},
    superwords: m.superwords ?? [],
  };
  if (m.contentNoHighlight !== undefined) meta.contentNoHighlight = m.contentNoHighlight;
  const description = m.description ?? f.extracted.description;
  if (description) meta.description = description;
  return meta;
}

function firstLanguage(header: string | null | undefined): string | null {
  const first = (header ?? '').split(',')[0]?.trim();
  return first || null;
}

/** Last path segment, for pages without any title. */
function titleFromUrl(url: string): string {
  try {
    const u = new URL(url);
    const seg = decodeURIComponent(u.pathname.split('/').filter(Boolean).pop() ?? '');
    return seg || u.host;
  } catch {
    return url;
  }
}
