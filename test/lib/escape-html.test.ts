// The one HTML escape every page, report and highlight uses: its exact entities, and the way back.
import { describe, expect, it } from 'vitest';
import { escapeHtml, unescapeHtml } from '../../src/lib/escape-html.js';

describe('escapeHtml', () => {
  it('writes the five markup characters as the entities svc has always written', () => {
    expect(escapeHtml(`<a href="x?a=1&b='2'">`)).toBe('&lt;a href=&quot;x?a=1&amp;b=&#39;2&#39;&quot;&gt;');
    expect(escapeHtml('plain  text\n')).toBe('plain  text\n');
  });

  it('unescapeHtml gives back what escapeHtml was given, and leaves other entities alone', () => {
    const s = `&amp; <b>"it's"</b>`;
    expect(unescapeHtml(escapeHtml(s))).toBe(s);
    expect(unescapeHtml('&nbsp;&amp;amp;')).toBe('&nbsp;&amp;');
  });
});
