// The page meta JSON a page may embed (`<script id="svc-page-meta">`): read as written by the site, so every
// field is type-checked and a wrong one dropped rather than trusted. Pure.
import type { PageMeta } from '../../model/types.js';

/** The fields a `<script id="svc-page-meta">` may carry, type-checked; unknown or mistyped ones are dropped. */
export type EmbeddedMeta = Partial<PageMeta>;

/** The id of the script element that holds it. */
export const META_SCRIPT_ID = 'svc-page-meta';
/** Characters of it read. */
export const MAX_META_JSON = 256 * 1024;

function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

/** Keeps the fields of a page meta JSON object that have the right types. */
export function parseEmbeddedMeta(json: string): EmbeddedMeta | null {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return null;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const fields = value as Record<string, unknown>;
  const meta: EmbeddedMeta = {};
  if (typeof fields.showInSearch === 'boolean') meta.showInSearch = fields.showInSearch;
  if (typeof fields.title === 'string') meta.title = fields.title;
  if (typeof fields.url === 'string') meta.url = fields.url;
  if (typeof fields.created === 'string' || fields.created === null) meta.created = fields.created;
  if (typeof fields.modified === 'string' || fields.modified === null) meta.modified = fields.modified;
  if (typeof fields.language === 'string' || fields.language === null) meta.language = fields.language;
  if (isStringArray(fields.tags)) meta.tags = fields.tags;
  if (isStringArray(fields.superwords)) meta.superwords = fields.superwords;
  if (typeof fields.contentNoHighlight === 'string') meta.contentNoHighlight = fields.contentNoHighlight;
  if (typeof fields.description === 'string') meta.description = fields.description;
  if (fields.customFields && typeof fields.customFields === 'object' && !Array.isArray(fields.customFields)) {
    const customFields: PageMeta['customFields'] = {};
    for (const [name, field] of Object.entries(fields.customFields as Record<string, unknown>)) {
      if (!field || typeof field !== 'object') continue;
      const { type, value } = field as { type?: unknown; value?: unknown };
      if (
        (type === 'keyword' || type === 'number' || type === 'date') &&
        (typeof value === 'string' || typeof value === 'number')
      )
        customFields[name] = { type, value };
    }
    meta.customFields = customFields;
  }
  return meta;
}
