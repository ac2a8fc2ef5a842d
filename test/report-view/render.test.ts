// The report view's pure parts: times and URLs as people read them, the App's shipped renderer being the very
// code the server renders with, and the App API bundle made an inline script.
import { describe, expect, it } from 'vitest';
import { inlineBundle, linkReportAppDocument } from '../../src/report-view/app-document.js';
import { browserSource, relativeTime, reportHtml, shortUrl } from '../../src/report-view/render.js';
import { REASON_TEXT, viewOfReport } from '../../src/report-view/view-data.js';
import { toAbilityLinkReport } from '../../src/abilities/rest-to-ability.js';
import { sampleReport, SITE } from '../support/reports.js';

const NOW = Date.parse('2026-11-25T12:00:00Z');

describe('relativeTime', () => {
  it('says how long ago (or until) as a person would', () => {
    expect(relativeTime('2026-11-25T11:59:40Z', NOW)).toBe('just now');
    expect(relativeTime('2026-11-25T11:59:00Z', NOW)).toBe('1 minute ago');
    expect(relativeTime('2026-11-25T09:00:00Z', NOW)).toBe('3 hours ago');
    expect(relativeTime('2026-11-23T12:00:00Z', NOW)).toBe('2 days ago');
    expect(relativeTime('2026-11-01T10:00:00.000Z', NOW)).toBe('3 weeks ago');
    expect(relativeTime('2025-11-20T12:00:00Z', NOW)).toBe('1 year ago');
    expect(relativeTime('2026-11-25T12:10:00Z', NOW)).toBe('in 10 minutes');
    expect(relativeTime('not a time', NOW)).toBe('not a time');
  });
});

describe('shortUrl', () => {
  it('shows URLs on the one target as paths, and everything else in full', () => {
    expect(shortUrl(`${SITE}/docs?x=1#top`, 'site.example')).toBe('/docs?x=1#top');
    expect(shortUrl(`${SITE}`, 'SITE.example')).toBe('/');
    expect(shortUrl('https://other.example/a', 'site.example')).toBe('https://other.example/a');
    expect(shortUrl('https://site.example.evil/a', 'site.example')).toBe('https://site.example.evil/a');
    expect(shortUrl('javascript:alert(1)', 'site.example')).toBe('javascript:alert(1)');
    expect(shortUrl(`${SITE}/a`, null)).toBe(`${SITE}/a`);
  });
});

describe('one renderer', () => {
  it("the App's shipped source renders the ability form exactly as the server renders the REST form", () => {
    const shipped = new Function(`${browserSource()}\nreturn { reportHtml, fromAbilityReport };`)() as {
      reportHtml: typeof reportHtml;
      fromAbilityReport: (out: unknown, reasons: unknown) => ReturnType<typeof viewOfReport>;
    };
    const server = reportHtml(viewOfReport(sampleReport()), NOW, true);
    const app = shipped.reportHtml(
      shipped.fromAbilityReport(toAbilityLinkReport(sampleReport()), REASON_TEXT),
      NOW,
      true,
    );
    expect(app).toBe(server);
    expect(server).toContain(
      '<time datetime="2026-11-01T10:00:00.000Z" title="2026-11-01 10:00:00 UTC">3 weeks ago</time>',
    );
  });
});

describe('the App document', () => {
  it('turns the bundle export list into bindings of one inline module script', () => {
    const code = inlineBundle('var qB=1,QU=2;export{QU as PostMessageTransport,qB as App};', [
      'App',
      'PostMessageTransport',
    ]);
    expect(code).not.toContain('export');
    expect(new Function(`${code}\nreturn [App, PostMessageTransport];`)()).toEqual([1, 2]);
    expect(() => inlineBundle('var a;export{a as Other};', ['App'])).toThrow(/does not export App/);
    expect(() => inlineBundle('var a="</script>";export{a as App};', ['App'])).toThrow(/<\/script/);
    const doc = linkReportAppDocument('var qB=1,QU=2;export{QU as PostMessageTransport,qB as App};', '9.9.9');
    expect(doc.match(/<script\b/g)).toHaveLength(1);
    expect(doc).toContain('const APP_VERSION = "9.9.9";');
  });
});

describe('escaping', () => {
  it('escapes every value it puts into HTML, numbers included (the App renders data a client passed along)', () => {
    const view = viewOfReport(sampleReport());
    const evil = '<img src=x onerror=alert(1)>';
    // A view whose number fields were replaced on the way: as the App's renderer may receive it.
    const hostile = {
      ...view,
      reasons: view.reasons.map((r) => ({ ...r, count: evil as unknown as number })),
      rows: view.rows.map((r) => ({ ...r, http_status: evil as unknown as number })),
    };
    for (const html of [reportHtml(hostile, NOW, false), reportHtml(hostile, NOW, true)]) {
      expect(html).not.toContain('<img');
      expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    }
  });
});
