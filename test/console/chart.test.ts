// The console's server-drawn charts: labelled axes and accessible text when there is a history to draw, nothing
// (the page says why in a sentence) with one point or none, and round steps on the value axis.
import { describe, expect, it } from 'vitest';
import { lineChart, niceStep, sparkline } from '../../src/http/console/chart.js';

const chart = (points: string[], values: number[]) =>
  lineChart({
    id: 'c',
    title: 'Problem links per reason, by crawl',
    desc: 'not_found 3, 1',
    xLabel: 'Completed full crawl (id)',
    yLabel: 'Problem links',
    points,
    series: [{ name: 'not_found <x>', colour: '#b32d2e', values }],
  });

describe('console charts', () => {
  it('draw a history with a title, a description, both axis labels, a value scale and an escaped legend', () => {
    const svg = chart(['1', '2', '3'], [3, 1, 7])!;
    expect(svg).toContain('role="img"');
    expect(svg).toContain('<title id="c-title">Problem links per reason, by crawl</title>');
    expect(svg).toContain('<desc id="c-desc">not_found 3, 1</desc>');
    expect(svg).toContain('>Completed full crawl (id)</text>');
    expect(svg).toContain('>Problem links</text>');
    expect(svg).toMatch(/>0<\/text>.*>2<\/text>.*>8<\/text>/s);
    expect(svg.match(/<circle /g)).toHaveLength(3);
    expect(svg).toContain('not_found &lt;x&gt;');
    expect(svg).not.toContain('style=');
  });

  it('draw nothing for one crawl or none', () => {
    expect(chart(['1'], [3])).toBeNull();
    expect(chart([], [])).toBeNull();
    expect(sparkline('s', 'x', [4])).toBeNull();
    expect(sparkline('s', 'Problem links: 4, 2', [4, 2])).toContain('aria-label="Problem links: 4, 2"');
  });

  it('step the value axis by 1, 2 or 5 times a power of ten', () => {
    expect([1, 4, 7, 20, 130, 999].map(niceStep)).toEqual([1, 1, 2, 5, 50, 500]);
  });
});
