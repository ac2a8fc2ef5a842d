// Text in HTML (or XML): the five characters that could end an element or a quoted attribute, as entities. One
// table for every page, report and highlight svc writes, and for reading a highlight back as text.

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const CHARS: Record<string, string> = Object.fromEntries(Object.entries(ENTITIES).map(([c, e]) => [e, c]));

/** Text safe in element content and in a quoted attribute. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** The text escapeHtml was given: its five entities back as characters (any other stays as it is). */
export function unescapeHtml(s: string): string {
  return s.replace(/&(?:amp|lt|gt|quot|#39);/g, (e) => CHARS[e]!);
}
