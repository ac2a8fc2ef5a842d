// title_selector and content_selector: the page's title and text taken from the elements they select, over the
// DOM the streaming pass built alongside (only when a target sets one). A selector that does not parse selects
// nothing. Pure.
import { selectAll, selectOne } from 'css-select';
import type { AnyNode, Element } from 'domhandler';
import { collapseWhitespace, INLINE, NO_TEXT } from './text.js';

export interface Selectors {
  /** The title comes from the first element matching this selector, when one matches. */
  titleSelector?: string;
  /** Text comes only from elements matching this selector (all of them), when any match. */
  contentSelector?: string;
}

/** The title and text the selectors pick out of root; the streaming pass's own where a selector matches nothing. */
export function selectedText(
  root: AnyNode,
  selectors: Selectors,
  maxText: number,
  streamed: { title: string; text: string },
): { title: string; text: string } {
  let { title, text } = streamed;
  if (selectors.titleSelector) {
    const element = safeSelectOne(selectors.titleSelector, root);
    if (element) title = collapseWhitespace(nodeText(element, maxText)) || title;
  }
  if (selectors.contentSelector) {
    const elements = safeSelectAll(selectors.contentSelector, root);
    if (elements.length) {
      const parts: string[] = [];
      let length = 0;
      for (const element of elements) {
        const part = nodeText(element, maxText - length);
        parts.push(part);
        length += part.length;
        if (length >= maxText) break;
      }
      text = collapseWhitespace(parts.join(' '));
    }
  }
  return { title, text };
}

function safeSelectOne(selector: string, root: AnyNode): Element | null {
  try {
    return selectOne<AnyNode, Element>(selector, root);
  } catch {
    return null;
  }
}

function safeSelectAll(selector: string, root: AnyNode): Element[] {
  try {
    return selectAll<AnyNode, Element>(selector, root);
  } catch {
    return [];
  }
}

/** Text of a DOM subtree with the same rules as the streaming pass. */
function nodeText(node: AnyNode, max: number): string {
  const out: string[] = [];
  let length = 0;
  const walk = (current: AnyNode) => {
    if (length >= max) return;
    if (current.type === 'text') {
      const data = (current as unknown as { data: string }).data;
      out.push(data);
      length += data.length;
      return;
    }
    if (current.type === 'tag' || current.type === 'script' || current.type === 'style') {
      const element = current as Element;
      if (NO_TEXT.has(element.name)) return;
      const separate = !INLINE.has(element.name);
      if (separate) out.push(' ');
      for (const child of element.children) walk(child);
      if (separate) out.push(' ');
      return;
    }
    const children = (current as { children?: AnyNode[] }).children;
    if (children) for (const child of children) walk(child);
  };
  walk(node);
  const s = out.join('');
  return s.length > max ? s.slice(0, max) : s;
}
