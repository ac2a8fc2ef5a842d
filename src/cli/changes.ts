// `svc changes [ID] [--json]`: what a crawl (default: the latest ended one) changed since the previous completed full
// crawl — problems new in the report and problems gone from it.
import type { Backend } from '../backend/backend.js';
import { describeSource } from '../backend/report/formats/shared.js';
import type { ChangeLink, CrawlChanges } from '../model/history.js';
import { crawlEnded, type CrawlRecord } from '../model/types.js';
import { CliError, intOption, parse, PROJECT_OPTION, withApp } from './common.js';
import type { Terminal } from './terminal.js';

const USAGE = `usage: svc changes [ID] [--json] [--config F | --site URL] [--project TOKEN]
  ID       the crawl (default: the latest crawl that has ended)
  --json   the REST form of GET /v1/projects/<token>/crawls/<ID>/changes

New: problems in the report after the crawl that were not in it after the previous completed full crawl.
Fixed: problems that were in it then and are gone now.

Exit status: 0 answered, 1 no such crawl, 2 bad input, no target, or nothing crawled yet.
`;

function line(l: ChangeLink, when: string): string {
  let s = `    ${l.reason.padEnd(12)} ${String(l.httpStatus || '—').padStart(3)}  ${l.url}`;
  if (l.redirectsTo) s += ` → ${l.redirectsTo}`;
  if (l.message) s += `  (${l.message})`;
  const source = describeSource(l);
  s += `\n      on ${l.page}${source ? ` in ${source}` : ''}; ${when}`;
  return s;
}

/** The readable form: a heading with the counts, then the new problems and the fixed ones. */
export function formatChanges(crawl: CrawlRecord, c: CrawlChanges): string {
  const out = [
    `crawl ${crawl.id} (${crawl.mode}, ${crawl.status} ${crawl.finishedAt ?? ''}) since ${c.since ? `the full crawl of ${c.since}` : 'the start (no completed full crawl before it)'}: ${c.new.length} new, ${c.fixed.length} fixed`,
  ];
  out.push('', `New (${c.new.length})`);
  if (!c.new.length) out.push('    none');
  for (const l of c.new) out.push(line(l, `first seen ${l.firstSeen}`));
  out.push('', `Fixed (${c.fixed.length})`);
  if (!c.fixed.length) out.push('    none');
  for (const l of c.fixed) out.push(line(l, `had been there since ${l.firstSeen}`));
  return `${out.join('\n')}\n`;
}

/** The latest crawl that has ended, or a one-line error saying there is none. */
async function latestEnded(backend: Backend): Promise<CrawlRecord> {
  for (let offset = 0; offset < 1000; offset += 100) {
    const page = await backend.listCrawls({ limit: 100, offset });
    const ended = page.find((c) => crawlEnded(c.status));
    if (ended) return ended;
    if (page.length < 100) break;
  }
  throw new CliError('changes: not crawled yet: no crawl has ended; crawl first: svc crawl full', 2);
}

export async function run(argv: string[], io: Terminal): Promise<number> {
  const { values, positionals } = parse(argv, { json: { type: 'boolean' }, ...PROJECT_OPTION });
  if (values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  if (positionals.length > 1) throw new CliError('give at most one crawl id');
  const id = intOption('ID', positionals[0], 1, Number.MAX_SAFE_INTEGER);
  const text = await withApp(
    values,
    io,
    async (app) => {
      const crawl = id === undefined ? await latestEnded(app.backend) : await app.backend.getCrawl(id);
      if (!crawl) throw new CliError(`no crawl ${id} in this project (svc crawl lists none by that id)`, 1);
      const changes = await app.backend.crawlChanges(crawl.id);
      return values.json ? `${JSON.stringify(changes)}\n` : formatChanges(crawl, changes);
    },
    { readOnlyOk: true, needsTarget: 'changes' },
  );
  io.stdout.write(text);
  return 0;
}
