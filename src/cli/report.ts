// `svc report [--target H] [--limit N] [--format F] [--output FILE] [--fail-on REASONS]`: the link report from the
// backend (embedded or remote), in one of the report formats; exits 1 when a --fail-on reason is present.
import { writeFileSync } from 'node:fs';
import { failingReasons, nothingChecked } from '../backend/report/fail-on.js';
import {
  formatLinkReport,
  isReportFormat,
  REPORT_FORMATS,
  type ReportFormat,
} from '../backend/report/formats/index.js';
import { packageVersion } from '../lib/package-version.js';
import { REPORT_REASONS, type LinkReason } from '../model/link-reasons.js';
import type { LinkReport } from '../model/types.js';
import { REPORT_LIMIT } from '../model/limits.js';
import { normalizeSince, SINCE_RULE } from '../model/history.js';
import { CliError, intOption, notCrawledHint, parse, PROJECT_OPTION, withApp } from './common.js';
import type { Terminal } from './terminal.js';

const USAGE = `usage: svc report [--target H] [--limit N] [--since TIME] [--format F] [--output FILE] [--fail-on REASONS] [--config F | --site URL] [--project TOKEN]
  --target H          only pages of this configured target host
  --limit N           most links shown, 1 to 5000 (default 1000); counts are always complete
  --since TIME        only problems first seen after TIME (ISO 8601, e.g. 2026-11-23T08:00:00Z); counts too
  --format F          ${REPORT_FORMATS.join(', ')} (default text)
  --json              the same as --format json (the REST form of /v1/…/link-report)
  --output FILE       write the report to FILE instead of standard output
  --fail-on REASONS   exit 1 when the report holds a link of one of these reasons (comma-separated:
                      ${REPORT_REASONS.join(', ')}); blocked answers never fail; a report of nothing (no
                      page of the targets stored) fails too

Exit status: 0 report written, 1 a --fail-on reason (or nothing checked), 2 bad input, no target, or a target
never crawled ("not crawled yet").
`;

export function parseFormat(value: string | undefined, json: boolean): ReportFormat {
  if (value === undefined) return json ? 'json' : 'text';
  if (!isReportFormat(value))
    throw new CliError(`--format: unknown format "${value}" (allowed: ${REPORT_FORMATS.join(', ')})`);
  if (json && value !== 'json') throw new CliError(`--json: means --format json, but --format ${value} was given`);
  return value;
}

export function parseFailOn(value: string | undefined): LinkReason[] {
  if (value === undefined) return [];
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!names.length) throw new CliError(`--fail-on: give at least one reason (allowed: ${REPORT_REASONS.join(', ')})`);
  for (const n of names) {
    if (!(REPORT_REASONS as readonly string[]).includes(n)) {
      throw new CliError(`--fail-on: unknown reason "${n}" (allowed: ${REPORT_REASONS.join(', ')})`);
    }
  }
  return [...new Set(names)] as LinkReason[];
}

export async function run(argv: string[], io: Terminal): Promise<number> {
  const { values } = parse(
    argv,
    {
      target: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean' },
      format: { type: 'string' },
      output: { type: 'string' },
      'fail-on': { type: 'string' },
      since: { type: 'string' },
      ...PROJECT_OPTION,
    },
    false,
  );
  if (values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  const limit = intOption('limit', values.limit, REPORT_LIMIT.min, REPORT_LIMIT.max) ?? REPORT_LIMIT.default;
  const target = typeof values.target === 'string' ? values.target : undefined;
  const format = parseFormat(typeof values.format === 'string' ? values.format : undefined, values.json === true);
  const failOn = parseFailOn(typeof values['fail-on'] === 'string' ? values['fail-on'] : undefined);
  const output = typeof values.output === 'string' ? values.output : undefined;
  if (output === '') throw new CliError('--output: give a file name');
  const since = typeof values.since === 'string' ? values.since : undefined;
  if (since !== undefined && normalizeSince(since) === null) throw new CliError(`--since: ${SINCE_RULE}`);
  const report = await withApp(
    values,
    io,
    (app) => app.backend.linkReport({ target, limit, ...(since ? { since } : {}) }),
    { readOnlyOk: true, needsTarget: 'report' },
  );
  // Never an empty report of a site nothing has checked: that would read as an all-clear.
  if (report.status === 'not_crawled') throw new CliError(`report: ${notCrawledHint(report, values)}`, 2);
  writeReport(io, report, { format, output, failOn });
  return failOnStatus(io, report, failOn, 'svc report');
}

/** Writes the report in its format to --output or stdout. `svc report` and `svc links` write through it. */
export function writeReport(
  io: Terminal,
  report: LinkReport,
  opts: { format: ReportFormat; output: string | undefined; failOn: LinkReason[] },
): void {
  const { format, output, failOn } = opts;
  const text = formatLinkReport(format, report, {
    toolVersion: packageVersion(),
    ...(failOn.length ? { failOn } : {}),
  });
  if (output === undefined) io.stdout.write(text);
  else {
    try {
      writeFileSync(output, text);
    } catch (err) {
      throw new CliError(`--output: cannot write ${output}: ${(err as Error).message}`, 1);
    }
  }
}

/** 1 when the report holds a --fail-on reason or checked nothing (said on stderr, after `command`), else 0. */
export function failOnStatus(io: Terminal, report: LinkReport, failOn: LinkReason[], command: string): number {
  const nothing = failOn.length ? nothingChecked(report) : null;
  if (nothing) {
    io.stderr.write(`${command}: failing: ${nothing}\n`);
    return 1;
  }
  const failing = failingReasons(report, failOn);
  if (!failing.length) return 0;
  const list = failing.map((f) => `${f.reason} (${f.links} link${f.links === 1 ? '' : 's'})`).join(', ');
  io.stderr.write(`${command}: failing on ${list}\n`);
  return 1;
}
