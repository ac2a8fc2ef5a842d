// `svc demo-site [--port N] [--host H] [--partner-port N] [--posts-out FILE]`: serves the bundled demo site alone,
// for trying crawls by hand, until interrupted.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { demoPostsFile } from '../demo/content.js';
import { DemoSiteError, startDemoSite } from '../demo/site.js';
import { CliError, intOption, parse } from './common.js';
import type { Terminal } from './terminal.js';

const USAGE = `usage: svc demo-site [--port N] [--host H] [--partner-port N] [--posts-out FILE]

Serves the bundled demo site (an allotment association: ~45 posts and pages in English and Swedish, a
sitemap, robots.txt, PDFs, and known broken links) on a loopback address, plus a second loopback host it
links to. --posts-out writes the site's posts file (for \`svc posts import\`) for the port it runs on.
`;

export async function run(argv: string[], io: Terminal): Promise<number> {
  const { values } = parse(
    argv,
    {
      port: { type: 'string' },
      host: { type: 'string' },
      'partner-port': { type: 'string' },
      'posts-out': { type: 'string' },
    },
    false,
  );
  if (values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  if (values.config !== undefined || values.site !== undefined)
    throw new CliError('svc demo-site takes no --config or --site: it is the site');
  const port = intOption('port', values.port, 0, 65535) ?? 0;
  const partnerPort = intOption('partner-port', values['partner-port'], 0, 65535) ?? 0;
  let site: Awaited<ReturnType<typeof startDemoSite>>;
  try {
    site = await startDemoSite({
      host: typeof values.host === 'string' ? values.host : '127.0.0.1',
      port,
      partnerPort,
    });
  } catch (err) {
    if (err instanceof DemoSiteError) throw new CliError(err.message, err.code ? 1 : 2);
    throw err;
  }
  const lines = [
    `demo site:    ${site.origin}/`,
    `partner site: ${site.partnerOrigin}/ (a second loopback host the demo site links to)`,
  ];
  if (typeof values['posts-out'] === 'string') {
    const file = resolve(values['posts-out']);
    writeFileSync(file, demoPostsFile(site.origin));
    lines.push(`posts file:   ${file} (svc posts import ${values['posts-out']})`);
  }
  lines.push(`try:          svc crawl full --site ${site.origin}/`, 'Ctrl-C stops it.');
  io.stderr.write(lines.join('\n') + '\n');
  await new Promise<void>((done) => {
    const stop = () => void site.close().then(done);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return 0;
}
