// Which elements hold a page's text and which break words apart, and how white space is collapsed: shared by the
// streaming pass and the pass over selected elements, so both read a page's text alike. Pure.

/** Elements whose text is not page content. */
export const NO_TEXT = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'math',
  'canvas',
  'iframe',
  'object',
  'title',
  'select',
  'textarea',
  'button',
]);
/** Elements that do not break words apart (everything else adds a separator). */
export const INLINE = new Set([
  'a',
  'abbr',
  'b',
  'bdi',
  'bdo',
  'cite',
  'code',
  'data',
  'dfn',
  'em',
  'i',
  'kbd',
  'mark',
  'q',
  's',
  'samp',
  'small',
  'span',
  'strong',
  'sub',
  'sup',
  'time',
  'u',
  'var',
  'wbr',
  'font',
  'tt',
  'big',
  'acronym',
  'strike',
  'del',
  'ins',
  'label',
  'abbr',
  'nobr',
]);

/**
 * Every run of white space as one space, trimmed. The pattern leaves a lone ' ' alone (most runs are one): it
 * matches only runs that change, which makes this about twice as fast as replacing every /\s+/.
 */
export function collapseWhitespace(s: string): string {
  return s.replace(/(?: \s|[^\S ])\s*/g, ' ').trim();
}
