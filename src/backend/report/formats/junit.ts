// JUnit XML, the form CI systems show as tests: one testsuite per reason, one testcase per (page, link). A reason
// that fails CI (--fail-on, else the broken ones) is a <failure>; a blocked answer is <skipped>; other problems
// pass with their description in <system-out>.
import type { LinkReport } from '../../../model/types.js';
import {
  describeLink,
  describeSource,
  escapeMarkup as x,
  failingSet,
  type FormatOptions,
  reasonCounts,
  reportRows,
  type Row,
} from './shared.js';

type Verdict = 'failure' | 'skipped' | 'passed';

function verdict(row: Row, failing: ReadonlySet<string>): Verdict {
  if (row.link.blocked) return 'skipped';
  return failing.has(row.reason.reason) ? 'failure' : 'passed';
}

function details(row: Row): string {
  const l = row.link;
  const lines = [`page: ${row.page}`, `link: ${l.url}`, `reason: ${row.reason.reason}`, `http_status: ${l.httpStatus}`];
  if (l.message) lines.push(`message: ${l.message}`);
  if (l.redirectsTo) lines.push(`redirects_to: ${l.redirectsTo}`);
  const source = describeSource(l);
  if (source) lines.push(`found in: ${source}`);
  if (l.firstSeen) lines.push(`first_seen: ${l.firstSeen}`);
  return lines.join('\n');
}

function testcase(row: Row, v: Verdict): string {
  const head = `    <testcase name="${x(row.link.url)}" classname="${x(row.page)}" time="0">`;
  const summary = x(describeLink(row.reason, row.link));
  const body = x(details(row));
  if (v === 'failure')
    return `${head}\n      <failure message="${summary}" type="${row.reason.reason}">${body}</failure>\n    </testcase>`;
  if (v === 'skipped')
    return `${head}\n      <skipped message="${summary}"/>\n      <system-out>${body}</system-out>\n    </testcase>`;
  return `${head}\n      <system-out>${body}</system-out>\n    </testcase>`;
}

export function formatJunit(r: LinkReport, o: FormatOptions = {}): string {
  const failing = failingSet(o);
  const rows = reportRows(r);
  const suites: string[] = [];
  let tests = 0;
  let failures = 0;
  let skipped = 0;
  for (const c of reasonCounts(r)) {
    const mine = rows.filter((row) => row.reason.reason === c.reason.reason);
    const verdicts = mine.map((row) => verdict(row, failing));
    const nFail = verdicts.filter((v) => v === 'failure').length;
    const nSkip = verdicts.filter((v) => v === 'skipped').length;
    tests += mine.length;
    failures += nFail;
    skipped += nSkip;
    const props = [
      `      <property name="description" value="${x(c.reason.description)}"/>`,
      `      <property name="count" value="${c.count}"/>`,
      `      <property name="not_shown" value="${c.count - c.shown}"/>`,
    ];
    suites.push(
      [
        `  <testsuite name="${c.reason.reason}" tests="${mine.length}" failures="${nFail}" errors="0" skipped="${nSkip}" time="0">`,
        '    <properties>',
        ...props,
        '    </properties>',
        ...mine.map((row, i) => testcase(row, verdicts[i]!)),
        '  </testsuite>',
      ].join('\n'),
    );
  }
  const name = `svc link report${o.toolVersion ? ` (svc ${o.toolVersion})` : ''}`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${x(name)}" tests="${tests}" failures="${failures}" errors="0" skipped="${skipped}" time="0">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
