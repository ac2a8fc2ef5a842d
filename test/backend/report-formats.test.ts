// The report formats as pure functions: SARIF checked against the official 2.1.0 schema, JUnit parsed back with an
// XML parser, CSV and Markdown quoting, the HTML's escaping and self-containment, and the --fail-on rule.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { failingReasons } from '../../src/backend/report/fail-on.js';
import { formatLinkReport, REPORT_FORMATS } from '../../src/backend/report/formats/index.js';
import { csvField, formatCsv } from '../../src/backend/report/formats/csv.js';
import { formatHtml } from '../../src/backend/report/formats/html.js';
import { formatJunit } from '../../src/backend/report/formats/junit.js';
import { formatMarkdown, mdCell } from '../../src/backend/report/formats/markdown.js';
import { formatSarif, rfc3986 } from '../../src/backend/report/formats/sarif.js';
import { formatText } from '../../src/backend/report/formats/text.js';
import { ROOT } from '../support/paths.js';
import { emptyReport, HOSTILE_TEXT, SAMPLE_COUNTS, sampleReport, SITE } from '../support/reports.js';

// ajv-formats is CommonJS: its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (a: Ajv) => Ajv;

function sarifValidator() {
  const schema = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/sarif/sarif-schema-2.1.0.json'), 'utf8')) as object;
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  return ajv.compile(schema);
}

const TOTAL = Object.values(SAMPLE_COUNTS).reduce((a, b) => a + b, 0);

describe('SARIF', () => {
  const validate = sarifValidator();

  it('validates against the official SARIF 2.1.0 schema, for a full, an empty and a hostile report', () => {
    const hostile = sampleReport();
    hostile.notFound.pages.push({
      url: `${SITE}/a b|c/ü?q=%zz#x`,
      links: [{ url: `${SITE}/x`, httpStatus: 404, message: 'm\u0000', element: 'a', text: '\uD800 lone' }],
    });
    hostile.notFound.count++;
    for (const r of [sampleReport(), emptyReport(), hostile]) {
      const log = JSON.parse(formatSarif(r, { toolVersion: '1.2.3' }));
      const ok = validate(log);
      expect(validate.errors ?? []).toEqual([]);
      expect(ok).toBe(true);
    }
    // The schema does reject what breaks it: a level it does not know.
    const bad = JSON.parse(formatSarif(sampleReport()));
    bad.runs[0].results[0].level = 'fatal';
    expect(validate(bad)).toBe(false);
    // …and a location that is no URI (formats are checked too).
    const badUri = JSON.parse(formatSarif(sampleReport()));
    badUri.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri = 'https://a b/\\';
    expect(validate(badUri)).toBe(false);
  });

  it('has one result per (page, link): ruleId per reason, error/warning/note levels, the page as location', () => {
    const log = JSON.parse(formatSarif(sampleReport(), { toolVersion: '1.2.3' }));
    const run = log.runs[0];
    expect(log.version).toBe('2.1.0');
    expect(run.tool.driver).toMatchObject({ name: 'svc', version: '1.2.3' });
    expect(run.tool.driver.rules.map((r: { id: string }) => r.id)).toEqual([
      'not_found',
      'forbidden',
      'server_error',
      'redirect',
      'unknown',
    ]);
    expect(run.results).toHaveLength(TOTAL);
    const byRule: Record<string, number> = {};
    for (const res of run.results) byRule[res.ruleId] = (byRule[res.ruleId] ?? 0) + 1;
    expect(byRule).toEqual(SAMPLE_COUNTS);
    for (const res of run.results) expect(run.tool.driver.rules[res.ruleIndex].id).toBe(res.ruleId);
    const level = (url: string) =>
      run.results.find((res: { properties: { link: string } }) => res.properties.link === url).level;
    expect(level(`${SITE}/members`)).toBe('error');
    expect(level('https://linkedin.example/in/x')).toBe('note');
    expect(level(`${SITE}/old`)).toBe('warning');
    expect(level(`${SITE}/later`)).toBe('warning');
    const gone = run.results.filter((res: { properties: { link: string } }) => res.properties.link === `${SITE}/gone`);
    expect(
      gone.map(
        (res: { locations: { physicalLocation: { artifactLocation: { uri: string } } }[] }) =>
          res.locations[0]!.physicalLocation.artifactLocation.uri,
      ),
    ).toEqual([`${SITE}/`, `${SITE}/blog/a,b`]);
    expect(gone[0].message.text).toBe(`Not found: ${SITE}/gone (HTTP 404) — 404 Not Found`);
    expect(gone[0].locations[0].message.text).toBe('in <a> "Gone page"');
    expect(gone[0].properties).toMatchObject({
      element: 'a',
      text: 'Gone page',
      firstSeen: '2026-11-01T10:00:00.000Z',
    });
    // Fingerprints tell results apart and stay the same from run to run.
    const prints = run.results.map(
      (res: { partialFingerprints: Record<string, string> }) => res.partialFingerprints['svcLink/v1'],
    );
    expect(new Set(prints).size).toBe(TOTAL);
    expect(JSON.parse(formatSarif(sampleReport())).runs[0].results[0].partialFingerprints).toEqual(
      run.results[0].partialFingerprints,
    );
    expect(run.properties.counts).toEqual(SAMPLE_COUNTS);
  });

  it('percent-encodes what RFC 3986 does not allow in a URI, and leaves valid URIs alone', () => {
    expect(rfc3986('https://a.example/x?y=1&z=%20#f')).toBe('https://a.example/x?y=1&z=%20#f');
    expect(rfc3986('https://a.example/a b|ü%zz')).toBe('https://a.example/a%20b%7C%C3%BC%25zz');
    expect(rfc3986('https://a.example/\uD800')).toBe('https://a.example/%EF%BF%BD');
  });
});

describe('JUnit', () => {
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    isArray: (name) => ['testsuite', 'testcase', 'property'].includes(name),
  });

  function parse(xml: string) {
    expect(XMLValidator.validate(xml)).toBe(true);
    return parser.parse(xml).testsuites as {
      tests: string;
      failures: string;
      skipped: string;
      testsuite: {
        name: string;
        tests: string;
        failures: string;
        skipped: string;
        testcase?: {
          name: string;
          classname: string;
          failure?: { type: string; message: string; '#text': string };
          skipped?: unknown;
        }[];
      }[];
    };
  }

  it('parses back: one suite per reason, one case per (page, link), failures for broken reasons, blocked skipped', () => {
    const root = parse(formatJunit(sampleReport(), { toolVersion: '1.2.3' }));
    expect(root.testsuite.map((s) => s.name)).toEqual([
      'not_found',
      'forbidden',
      'server_error',
      'redirect',
      'unknown',
    ]);
    expect(Number(root.tests)).toBe(TOTAL);
    for (const s of root.testsuite) {
      expect(s.testcase ?? []).toHaveLength(SAMPLE_COUNTS[s.name as keyof typeof SAMPLE_COUNTS]);
      expect(Number(s.tests)).toBe((s.testcase ?? []).length);
      expect(Number(s.failures)).toBe((s.testcase ?? []).filter((c) => c.failure).length);
      expect(Number(s.skipped)).toBe((s.testcase ?? []).filter((c) => c.skipped !== undefined).length);
    }
    // 3 not found + 1 forbidden (the other is blocked) + 1 server error; redirect and unknown pass.
    expect(Number(root.failures)).toBe(5);
    expect(Number(root.skipped)).toBe(1);
    const forbidden = root.testsuite[1]!.testcase!;
    expect(forbidden.find((c) => c.name === 'https://linkedin.example/in/x')!.skipped).toBeDefined();
    const img = root.testsuite[0]!.testcase!.find((c) => c.name === `${SITE}/img/logo.png`)!;
    expect(img.classname).toBe(`${SITE}/`);
    expect(img.failure!.type).toBe('not_found');
    // Hostile text comes back as text (the control character, which XML cannot carry, dropped).
    expect(img.failure!['#text']).toContain(`found in: <img> "${HOSTILE_TEXT.replace('\u0007', '')}"`);
  });

  it('fails exactly the --fail-on reasons when given', () => {
    const root = parse(formatJunit(sampleReport(), { failOn: ['redirect', 'unknown'] }));
    expect(Number(root.failures)).toBe(2);
    expect(root.testsuite.filter((s) => Number(s.failures) > 0).map((s) => s.name)).toEqual(['redirect', 'unknown']);
    expect(parse(formatJunit(emptyReport())).tests).toBe('0');
  });
});

describe('CSV', () => {
  it('quotes per RFC 4180 and quotes every text field: CRLF lines, quotes doubled, safe with , and ; separators', () => {
    expect(csvField('plain')).toBe('"plain"');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    // A spreadsheet that splits on ; (Excel in many locales) would start a cell at =1+1 were it not quoted.
    expect(csvField('Docs;=1+1')).toBe('"Docs;=1+1"');
    const csv = formatCsv(sampleReport());
    expect(csv.endsWith('\r\n')).toBe(true);
    const lines = csv.split('\r\n');
    expect(lines[0]).toBe('reason,page,link,http_status,message,redirects_to,element,text,blocked,first_seen');
    expect(lines[1]).toBe(
      `"not_found","${SITE}/","${SITE}/gone",404,"404 Not Found","","a","Gone page",,"2026-11-01T10:00:00.000Z"`,
    );
    expect(lines[2]).toBe(
      `"not_found","${SITE}/","${SITE}/img/logo.png",404,"404 Not Found","","img","${HOSTILE_TEXT.replace(/"/g, '""')}",,""`,
    );
    expect(lines[3]).toBe(`"not_found","${SITE}/blog/a,b","${SITE}/gone",404,"404 Not Found","","a","again",,""`);
    expect(csv).toContain(
      ',"https://linkedin.example/in/x",999,"blocked: 999 (bot block)","","a","Profile",true,""\r\n',
    );
    expect(csv).toContain(
      `"redirect","${SITE}/docs","${SITE}/old",301,"301 Moved Permanently","${SITE}/new","a","Old",,""\r\n`,
    );
    // Every data line: text fields quoted, the status and blocked columns bare.
    for (const line of lines.slice(1, -1)) expect(line, line).toMatch(/^"[a-z_]+","/);
    // 1 header + 8 rows + the empty string after the last CRLF (the hostile text's bare LF stays inside its quotes).
    expect(lines.length).toBe(1 + TOTAL + 1);
    expect(formatCsv(emptyReport())).toBe(
      'reason,page,link,http_status,message,redirects_to,element,text,blocked,first_seen\r\n',
    );
  });

  it("neutralizes what a spreadsheet would run as a formula: a leading ' inside quotes, negative numbers included", () => {
    expect(csvField('=HYPERLINK("http://x","y")')).toBe('"\'=HYPERLINK(""http://x"",""y"")"');
    expect(csvField('+1')).toBe('"\'+1"');
    expect(csvField('-5')).toBe('"\'-5"');
    expect(csvField("-2+3+cmd|' /C calc'!A0")).toBe("\"'-2+3+cmd|' /C calc'!A0\"");
    expect(csvField('@SUM(A1)')).toBe('"\'@SUM(A1)"');
    expect(csvField('\t=1')).toBe('"\'\t=1"');
    expect(csvField('\r=1')).toBe('"\'\r=1"');
    // Only the first character counts.
    expect(csvField('a=1')).toBe('"a=1"');
    expect(csvField(' =1')).toBe('" =1"');
    expect(csvField('1-2')).toBe('"1-2"');
  });
});

describe('Markdown', () => {
  it('counts per reason, then one table per reason with a row per (page, link), cells escaped', () => {
    const md = formatMarkdown(sampleReport());
    expect(md).toContain('| Not found | 2 | 3 |');
    expect(md).toContain('| **Total** (3 pages) | **7** | **8** |');
    const sectionOf = (title: string) => md.split(`## ${title}`)[1]!.split('\n## ')[0]!;
    const rowsOf = (title: string) =>
      sectionOf(title)
        .split('\n')
        .filter((l) => l.startsWith('| ') && !l.startsWith('| Page') && !l.startsWith('| ---'));
    expect(rowsOf('Not found (3)')).toHaveLength(3);
    expect(rowsOf('Forbidden (2)')).toHaveLength(2);
    expect(rowsOf('Redirect (1)')[0]).toContain(`301 Moved Permanently → ${mdCell(`${SITE}/new`)}`);
    // Each row has exactly the table's 6 cells: no pipe or line break in the data breaks out.
    for (const row of rowsOf('Not found (3)')) expect(row.split(/(?<!\\)\|/).length - 2).toBe(6);
    expect(md).not.toContain('<script>');
    expect(md).not.toContain('<b>');
    expect(mdCell('a|b <i>x</i>\n[l](u)')).toBe('a\\|b \\<i\\>x\\</i\\> \\[l\\]\\(u\\)');
    expect(formatMarkdown(emptyReport({ targets: sampleReport().targets }))).toContain('No problem links found.');
    // A report of nothing is never an all-clear.
    expect(formatMarkdown(emptyReport({ status: 'not_crawled' }))).toContain('No report: not crawled yet');
    // A target that checks only PDF links says so, in every readable format.
    const pdf = sampleReport();
    pdf.targets.push({ host: 'docs.example', linkTracking: 'pdf', walkLinks: false, lastCrawlError: null, pages: 3 });
    const note =
      'docs.example tracks only links to PDF documents (track_links = pdf); set track_links to "all" to check every link.';
    expect(formatMarkdown(pdf)).toContain(`> Note: ${mdCell(note)}`);
    expect(formatText(pdf)).toContain(`  note: ${note}`);
    expect(formatHtml(pdf)).toContain(note.replace(/"/g, '&quot;'));
    expect(formatMarkdown(sampleReport())).not.toContain('Note:');
  });
});

describe('text and json', () => {
  it('text leads with the counts and the problem links by link (most pages first), then by page, times short', () => {
    const text = formatText(sampleReport());
    const counts = text.indexOf('7 problem links (8 occurrences) on 3 pages:');
    const links = text.indexOf('Problem links, most pages first:');
    const pages = text.indexOf('By page:');
    expect(counts).toBeGreaterThan(0);
    expect(links).toBeGreaterThan(counts);
    expect(pages).toBeGreaterThan(links);
    // /gone is on two pages: it comes first, with its count and its pages.
    expect(text.slice(links)).toMatch(
      new RegExp(
        `^Problem links, most pages first:\n  404  ${SITE}/gone  Not found · on 2 pages\n {9}${SITE}/, ${SITE}/blog/a,b\n`,
      ),
    );
    expect(text).toContain(`    404  ${SITE}/gone  (404 Not Found)  in <a> "Gone page"  since 2026-11-01 10:00 UTC`);
    expect(text).not.toMatch(/\d\d:\d\d:\d\d\.\d{3}Z/);
    expect(text).toContain('Unknown — 1 occurrence');
    expect(JSON.parse(formatLinkReport('json', sampleReport()))).toEqual(sampleReport());
    expect(REPORT_FORMATS).toEqual(['text', 'json', 'csv', 'markdown', 'junit', 'sarif', 'html']);
  });

  it('text counts pages per link from the whole report: "and N more", and the links left out in one line', () => {
    const r = sampleReport();
    // The report lists the favicon on one page, but the store counts it on 243 (the limit cut the rest).
    r.topLinks = [
      { url: `${SITE}/favicon.ico`, reason: 'not_found', httpStatus: 404, pages: 243 },
      ...Array.from({ length: 24 }, (_, i) => ({
        url: `${SITE}/x${i}`,
        reason: 'not_found' as const,
        httpStatus: 404,
        pages: 1,
      })),
    ];
    r.notFound.pages[0]!.links.push({
      url: `${SITE}/favicon.ico`,
      httpStatus: 404,
      message: '',
      element: 'link',
      text: '',
    });
    r.counts = { ...r.counts, problemLinks: 30 };
    const text = formatText(r);
    expect(text).toContain(`  404  ${SITE}/favicon.ico  Not found · on 243 pages\n         ${SITE}/ and 242 more\n`);
    expect(text).toContain('  and 10 more problem links (--format html or json lists them all)');
    // 1000 occurrences of one missing asset are one line, not 1000.
    expect(text.split('\n').filter((l) => l.includes('favicon.ico')).length).toBe(2);
  });
});

describe('HTML', () => {
  it('is one file that loads nothing: inline style and script allowed by hash, no external resource', () => {
    const html = formatHtml(sampleReport(), { toolVersion: '1.2.3' });
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)![1]!;
    expect(csp).toContain("default-src 'none'");
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
    const hash = (s: string) => `'sha256-${createHash('sha256').update(s).digest('base64')}'`;
    expect(csp).toContain(`style-src ${hash(style)}`);
    expect(csp).toContain(`script-src ${hash(script)}`);
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).not.toMatch(/<(link|img|iframe|object|embed)\b/i);
    expect(html).not.toMatch(/\bsrc=/i);
    expect(html).not.toMatch(/url\(/i);
  });

  it('escapes everything taken from the report', () => {
    const html = formatHtml(sampleReport());
    expect(html).not.toContain('<b>now</b>');
    expect(html).toContain(
      'Read &quot;more&quot;, &lt;b&gt;now&lt;/b&gt; | &amp; &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;',
    );
    expect(html).not.toContain('\u0007');
    const r = sampleReport();
    r.forbidden.pages[0]!.links[0]!.url = 'javascript:alert(1)';
    expect(formatHtml(r)).not.toContain('href="javascript:');
    expect(formatHtml(r)).toContain('<td>javascript:alert(1)</td>');
  });

  it('renders the counts per reason and a row per link and per page; an empty report says so', () => {
    const html = formatHtml(sampleReport());
    // Each card: problem links, with their occurrences; the total card the same as every surface.
    const links = { not_found: 2, forbidden: 2, server_error: 1, redirect: 1, unknown: 1 };
    for (const [reason, n] of Object.entries(SAMPLE_COUNTS))
      expect(html).toMatch(
        new RegExp(
          `data-reason="${reason}"[^>]*><span class="n">${links[reason as keyof typeof links]}</span><span class="label">[^<]+</span><span class="label">${n} occurrences?</span>`,
        ),
      );
    expect(html).toContain(
      '<span class="n">7</span><span class="label">Problem links</span><span class="label">8 occurrences on 3 pages</span>',
    );
    // 7 distinct links (one found on two pages), 3 pages.
    expect(
      /<table class="sortable" id="links-table">[\s\S]*?<\/table>/.exec(html)![0].match(/<tr data-reason/g),
    ).toHaveLength(7);
    expect(/<table class="sortable" id="pages-table">[\s\S]*?<\/table>/.exec(html)![0].match(/<tr><td>/g)).toHaveLength(
      3,
    );
    const empty = formatHtml(emptyReport());
    expect(empty).toContain('No problem links found.');
    expect(empty).not.toContain('<script');
  });
});

describe('--fail-on', () => {
  it('fails on listed reasons that hold a link, never on blocked ones; unlisted links of a truncated report count', () => {
    const r = sampleReport();
    expect(failingReasons(r, ['not_found', 'redirect'])).toEqual([
      { reason: 'not_found', links: 3 },
      { reason: 'redirect', links: 1 },
    ]);
    expect(failingReasons(r, ['forbidden'])).toEqual([{ reason: 'forbidden', links: 1 }]);
    r.forbidden.pages[0]!.links.shift();
    r.forbidden.count = 1;
    expect(failingReasons(r, ['forbidden'])).toEqual([]);
    expect(failingReasons(emptyReport(), ['not_found', 'forbidden', 'server_error', 'redirect', 'unknown'])).toEqual(
      [],
    );
    r.forbidden.count = 3;
    expect(failingReasons(r, ['forbidden'])).toEqual([{ reason: 'forbidden', links: 2 }]);
  });
});
