// Every tool's default answer fits an assistant's context: on the Apache HTTP Server manual (Debian's apache2-doc,
// its English pages served on loopback; the other languages it links answer 404, so the link report is long), each
// read tool called as a model would, with only the arguments it needs, answers under 10,000 tokens (o200k, counted
// over the whole result: the JSON text and structuredContent both). The sizes are printed for the record.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, normalize } from 'node:path';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { countTokens } from 'gpt-tokenizer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/open-app.js';
import type { AbilityHost } from '../../src/abilities/runtime.js';
import { callTool } from '../../src/tools/define.js';
import { TOOLS } from '../../src/tools/index.js';
import type { Role, User } from '../../src/model/users.js';
import { addRoleUsers, makeApp, makeHost, ONE_HOST } from '../support/app.js';

const MANUAL = '/usr/share/doc/apache2-doc/manual';
const BUDGET = 10_000;
const SERVED = /^\/(en|style|images)\//;

let server: Server;
let app: App;
let host: AbilityHost;
let users: Record<Role, { user: User; token: string }>;
let origin = '';

describe.skipIf(!existsSync(join(MANUAL, 'en/index.html')))('tool answers on the Apache manual', () => {
  beforeAll(async () => {
    server = createServer((req, res) => {
      const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
      let file = normalize(join(MANUAL, path));
      if (SERVED.test(path) && file.startsWith(`${MANUAL}/`) && existsSync(file) && statSync(file).isDirectory())
        file = join(file, 'index.html');
      if (!SERVED.test(path) || !file.startsWith(`${MANUAL}/`) || !existsSync(file) || statSync(file).isDirectory())
        return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      const type = file.endsWith('.html')
        ? 'text/html; charset=utf-8'
        : file.endsWith('.css')
          ? 'text/css'
          : 'application/octet-stream';
      res.writeHead(200, { 'content-type': type }).end(readFileSync(file));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const hostPort = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    origin = `http://${hostPort}`;
    app = await makeApp(
      {
        targets: [
          {
            host: hostPort,
            scheme: 'http',
            track_links: 'all',
            start_paths: ['/en/index.html'],
            use_sitemap: false,
            respect_robots_txt: false,
            skip_link_patterns: [`^https?://(?!${hostPort.replaceAll('.', '\\.')}/)`],
          },
        ],
      },
      ONE_HOST,
    );
    users = await addRoleUsers(app);
    ({ host } = await makeHost(app));
    const rec = await app.backend.startCrawl({ mode: 'full' });
    expect((await app.backend.waitForCrawl(rec.id, { timeoutMs: 280_000 })).status).toBe('completed');
  }, 300_000);

  afterAll(async () => {
    host?.close();
    await app?.close();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('answers every read tool under 10,000 tokens by default, and says how to page', async () => {
    const defaults: Record<string, Record<string, unknown>> = {
      'svc-search': { terms: 'rewrite rule' },
      'svc-get-page': { url: `${origin}/en/mod/core.html` },
      'svc-list-pages': {},
      'svc-link-report': {},
      'svc-get-crawl': {},
    };
    const sizes: Record<string, number> = {};
    for (const [name, args] of Object.entries(defaults)) {
      const spec = TOOLS.find((t) => t.name === name)!;
      const result = await callTool(spec, host.registry, args, { user: users.administrator.user });
      expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
      sizes[name] = countTokens(JSON.stringify(result));
    }
    // What the link report answered before it was paged (its old default of 1,000 links), for the record.
    const spec = TOOLS.find((t) => t.name === 'svc-link-report')!;
    const old = await callTool(spec, host.registry, { limit: 1000 }, { user: users.administrator.user });
    console.log(
      'o200k tokens per default answer:',
      JSON.stringify(sizes),
      'link report at limit 1000:',
      countTokens(JSON.stringify(old)),
    );
    for (const [name, n] of Object.entries(sizes)) expect(n, name).toBeLessThan(BUDGET);
    // The answers that page say how to read on.
    const report = (await callTool(spec, host.registry, {}, { user: users.administrator.user }))
      .structuredContent as Record<string, unknown>;
    expect(report.next_cursor).toEqual(expect.any(String));
    const page = (
      await callTool(TOOLS.find((t) => t.name === 'svc-get-page')!, host.registry, defaults['svc-get-page'], {
        user: users.subscriber.user,
      })
    ).structuredContent as Record<string, unknown>;
    expect(page.next_start_index).toBe(8000);
    const list = (
      await callTool(
        TOOLS.find((t) => t.name === 'svc-list-pages')!,
        host.registry,
        {},
        { user: users.subscriber.user },
      )
    ).structuredContent as Record<string, unknown>;
    expect(list.total as number).toBeGreaterThan(200);
    expect(list.next_cursor).toEqual(expect.any(String));
  });
});
