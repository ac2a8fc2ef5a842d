import { describe, expect, it } from 'vitest';
import { makeHighlight, MARK_END as E, MARK_START as S, withoutRegion } from '../../src/backend/search/highlight.js';

const visible = (html: string) => html.replace(/<\/?em>/g, '').replace(/&(amp|lt|gt|quot|#39);/g, 'x');

describe('highlight', () => {
  it('wraps matches in <em> and keeps short text whole', () => {
    expect(makeHighlight(`the ${S}vacuum${E} command`, 200)).toBe('the <em>vacuum</em> command');
  });

  it('cuts about `length` characters around the densest run of matches, at word boundaries', () => {
    const filler = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');
    const text = `${filler(100)} ${S}alpha${E} once. ${filler(50)} ${S}beta${E} and ${S}alpha${E} again ${S}beta${E}. ${filler(100)}`;
    const h = makeHighlight(text, 120);
    expect(h.startsWith('…')).toBe(true);
    expect(h.endsWith('…')).toBe(true);
    expect(h.match(/<em>/g)).toHaveLength(3);
    const shown = visible(h).length;
    expect(shown).toBeGreaterThan(60);
    expect(shown).toBeLessThanOrEqual(125);
    expect(h).not.toMatch(/…\S*word\d+[a-z]/); // no word cut in two at the start
  });

  it('starts at the beginning of the text when nothing in it matched (a title-only match)', () => {
    const h = makeHighlight('Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor', 30);
    expect(h).toMatch(/^Lorem ipsum dolor sit amet,?…$/);
    expect(h).not.toContain('<em>');
  });

  it('escapes HTML in the text so only <em> is markup', () => {
    const h = makeHighlight(`if a < b && c > d then ${S}<script>${E} "x" 'y'`, 200);
    expect(h).toBe('if a &lt; b &amp;&amp; c &gt; d then <em>&lt;script&gt;</em> &quot;x&quot; &#39;y&#39;');
  });

  it('keeps <em> balanced even with stray marks in the text', () => {
    const h = makeHighlight(`a ${E} b ${S}c${E} d ${S}e`, 200);
    expect(h.split('<em>').length).toBe(h.split('</em>').length);
  });

  it('collapses whitespace', () => {
    expect(makeHighlight(`a\n\n\t ${S}b${E}   c`, 200)).toBe('a <em>b</em> c');
  });

  it('leaves out text that is searchable but must not be shown (contentNoHighlight)', () => {
    const marked = `visible ${S}alpha${E} text. secret ${S}alpha${E} words. tail`;
    const cut = withoutRegion(marked, 'secret alpha words.');
    expect(cut).toBe(`visible ${S}alpha${E} text.  tail`);
    expect(makeHighlight(cut, 200)).toBe('visible <em>alpha</em> text. tail');
    // A region that starts inside a match keeps the marks balanced.
    expect(withoutRegion(`x ${S}alpha${E} y`, 'pha y')).toBe(`x ${S}al${E}`);
    expect(withoutRegion(marked, 'not there')).toBe(marked);
  });

  it('answers an empty string for empty content', () => {
    expect(makeHighlight('', 200)).toBe('');
  });
});
