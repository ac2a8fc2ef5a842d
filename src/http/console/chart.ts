// Charts of the console, drawn on the server as SVG: readable without script, with labelled axes, a <title> and
// <desc> for assistive technology, and a table or a sentence beside them for those who do not see them. A chart
// of one point or none is not drawn: a sentence says why (an axis with nothing on it tells nobody anything).
import { escapeHtml as e } from '../../lib/escape-html.js';

export interface Series {
  name: string;
  colour: string;
  values: readonly number[];
}

const W = 640;
const H = 260;
const PAD = { left: 48, right: 12, top: 12, bottom: 44 };

/** A round step for the value axis: 1, 2 or 5 times a power of ten, giving about four ticks. */
export function niceStep(max: number): number {
  if (max <= 4) return 1;
  const raw = max / 4;
  const pow = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw)!;
}

/** A line chart of several series over the same points (crawls), or null when there are fewer than two points. */
export function lineChart(o: {
  id: string;
  title: string;
  desc: string;
  xLabel: string;
  yLabel: string;
  points: readonly string[];
  series: readonly Series[];
}): string | null {
  const n = o.points.length;
  if (n < 2) return null;
  const max = Math.max(1, ...o.series.flatMap((s) => s.values));
  const step = niceStep(max);
  const top = Math.ceil(max / step) * step;
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const x = (i: number) => PAD.left + (plotW * i) / (n - 1);
  const y = (v: number) => PAD.top + plotH - (plotH * v) / top;
  const ticks: string[] = [];
  for (let v = 0; v <= top; v += step)
    ticks.push(
      `<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${y(v)}" y2="${y(v)}" stroke="#dcdcde"/><text x="${PAD.left - 6}" y="${y(v) + 4}" text-anchor="end">${v}</text>`,
    );
  // At most about eight labels on the crawl axis, always the first and the last.
  const every = Math.max(1, Math.ceil(n / 8));
  const xs = o.points
    .map((p, i) =>
      i % every === 0 || i === n - 1
        ? `<text x="${x(i)}" y="${H - PAD.bottom + 16}" text-anchor="middle">${e(p)}</text>`
        : '',
    )
    .join('');
  const lines = o.series
    .map(
      (s) =>
        `<polyline fill="none" stroke="${s.colour}" stroke-width="2" points="${s.values.map((v, i) => `${x(i)},${y(v)}`).join(' ')}"><title>${e(s.name)}: ${s.values.join(', ')}</title></polyline>${s.values.map((v, i) => `<circle cx="${x(i)}" cy="${y(v)}" r="3" fill="${s.colour}"/>`).join('')}`,
    )
    .join('');
  return `<svg id="${e(o.id)}" class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="${e(o.id)}-title ${e(o.id)}-desc" font-size="12" font-family="system-ui,sans-serif">
<title id="${e(o.id)}-title">${e(o.title)}</title><desc id="${e(o.id)}-desc">${e(o.desc)}</desc>
${ticks.join('')}<line x1="${PAD.left}" x2="${PAD.left}" y1="${PAD.top}" y2="${H - PAD.bottom}" stroke="#50575e"/><line x1="${PAD.left}" x2="${W - PAD.right}" y1="${H - PAD.bottom}" y2="${H - PAD.bottom}" stroke="#50575e"/>
${xs}<text x="${PAD.left + plotW / 2}" y="${H - 6}" text-anchor="middle" font-weight="600">${e(o.xLabel)}</text>
<text transform="translate(12 ${PAD.top + plotH / 2}) rotate(-90)" text-anchor="middle" font-weight="600">${e(o.yLabel)}</text>
${lines}</svg>
<ul class="legend">${o.series.map((s) => `<li><svg class="swatch" width="12" height="12" aria-hidden="true"><rect width="12" height="12" fill="${s.colour}"/></svg> ${e(s.name)}</li>`).join('')}</ul>`;
}

/** A small line of one series (no axes: the sentence beside it carries the figures), or null below two points. */
export function sparkline(id: string, label: string, values: readonly number[]): string | null {
  if (values.length < 2) return null;
  const w = 160;
  const h = 32;
  const max = Math.max(1, ...values);
  const pts = values.map((v, i) => `${(w - 4) * (i / (values.length - 1)) + 2},${h - 2 - ((h - 4) * v) / max}`);
  return `<svg id="${e(id)}" class="sparkline" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" role="img" aria-label="${e(label)}"><title>${e(label)}</title><polyline fill="none" stroke="#2271b1" stroke-width="2" points="${pts.join(' ')}"/></svg>`;
}
