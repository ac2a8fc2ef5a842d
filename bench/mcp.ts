// npm run bench:mcp — what the MCP transports add on top of the abilities themselves. Seeds a store (pages with
// text and links, problem-link outcomes) in a temp dir, then times the same sequence of calls three ways:
//   in-process  host.registry.execute('svc/search' | 'svc/link-report', …) in this process
//   stdio       tools/call through `svc mcp` (the built process) with the SDK's Client
//   HTTP        tools/call through `svc serve` /mcp (stateless Streamable HTTP, SSE answers) with the SDK's Client
// and prints p50/p95 per tool and transport, the overhead over in-process, and stdio start → first tools/list.
//   BENCH_PAGES=2000  BENCH_CALLS=300  BENCH_STARTS=10
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { loadApp, type App } from '../src/app/open-app.js';
import { addUser } from '../src/auth/users.js';
import { saveOutcomes, savePages } from '../src/store/sqlite/writes.js';
import { parseConfig } from '../src/cli/load-config.js';
import { TOOLS } from '../src/tools/index.js';
import { silentLogger } from '../src/lib/log.js';
import { printTable, summarize } from './lib/measure.js';
import { mulberry32 } from './lib/random.js';
import { serve, SVC } from './lib/services.js';
import { openAbilityHost } from '../src/app/ability-host.js';
import type { OutcomeWrite, PageWrite } from '../src/model/crawl-writes.js';

const PAGES = Number(process.env.BENCH_PAGES ?? 2000);
const CALLS = Number(process.env.BENCH_CALLS ?? 300);
const STARTS = Number(process.env.BENCH_STARTS ?? 10);
const WARMUP = 30;
const HOST = '127.0.0.1:18199'; // never fetched: no crawl runs here
const ORIGIN = `http://${HOST}`;

// ---------- data ----------

const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ra',
  'ten',
  'sul',
  'vor',
  'pe',
  'dan',
  'qui',
  'bel',
  'nor',
  'fi',
  'gas',
  'tro',
  'zen',
];
const rand = mulberry32(42);
const VOCAB = Array.from({ length: 800 }, () =>
  Array.from({ length: 2 + Math.floor(rand() * 2) }, () => SYLLABLES[Math.floor(rand() * SYLLABLES.length)]).join(''),
);
const word = () => VOCAB[Math.floor(rand() * VOCAB.length)]!;

function seed(app: App): void {
  const pages: PageWrite[] = [];
  const outcomes: OutcomeWrite[] = [];
  for (let i = 0; i < PAGES; i++) {
    const links = Array.from({ length: 20 }, (_, j) => ({
      url: `${ORIGIN}/page/${(i * 7 + j * 13) % (PAGES * 1.1)}`,
      element: 'a',
      text: '',
    }));
    pages.push({
      url: `${ORIGIN}/page/${i}`,
      host: HOST,
      httpStatus: 200,
      contentType: 'text/html',
      indexed: true,
      showInSearch: true,
      title: `${word()} ${word()} ${word()}`,
      language: 'en',
      tags: ['public', 'post_type/post'],
      superwords: [],
      content: Array.from({ length: 250 }, word).join(' '),
      meta: null,
      created: null,
      modified: null,
      sitemapLastmod: null,
      crawlId: null,
      links,
    });
  }
  // Links past the last page are the site's broken ones; a few redirect.
  for (let k = PAGES; k < PAGES * 1.1; k++) {
    const redirect = k % 5 === 0;
    outcomes.push({
      url: `${ORIGIN}/page/${k}`,
      httpStatus: redirect ? 301 : 404,
      reason: redirect ? 'redirect' : 'not_found',
      message: redirect ? 'Moved Permanently' : 'Not Found',
      redirectsTo: redirect ? `${ORIGIN}/page/0` : null,
      crawlId: null,
    });
  }
  for (let n = 0; n < pages.length; n += 500) savePages(app.sqlite, pages.slice(n, n + 500));
  saveOutcomes(app.sqlite, outcomes);
}

const QUERIES = Array.from({ length: 50 }, () => (rand() < 0.5 ? word() : `${word()} ${word()}`));

type Call = { tool: 'svc-search' | 'svc-link-report'; args: Record<string, unknown> };
const SEQUENCES: Record<string, (i: number) => Call> = {
  'svc-search': (i) => ({
    tool: 'svc-search',
    args: { terms: QUERIES[i % QUERIES.length]!, search_params: { size: 10 } },
  }),
  // The default path: served from the 15-minute cache after the first call, as an assistant would hit it.
  'svc-link-report': () => ({ tool: 'svc-link-report', args: { limit: 100 } }),
};

async function timeCalls(run: (c: Call) => Promise<void>, seq: (i: number) => Call): Promise<number[]> {
  for (let i = 0; i < WARMUP; i++) await run(seq(i));
  const samples: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const c = seq(i);
    const t = performance.now();
    await run(c);
    samples.push(performance.now() - t);
  }
  return samples;
}

function checked(r: CallToolResult, c: Call): void {
  if (r.isError) throw new Error(`${c.tool} failed: ${JSON.stringify(r.content)}`);
}

// ---------- main ----------

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-mcp-'));
  const configPath = join(dir, 'config.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      data_dir: join(dir, 'data'),
      targets: [{ host: HOST, scheme: 'http', track_links: 'all' }],
      server: { host: '127.0.0.1', port: 0 },
      // Measures the calls, not the limiter: 300 timed calls a cell are over the default 300 a minute.
      rate_limits: { enabled: false },
      log_level: 'warn',
    }),
  );
  const app = await loadApp(
    parseConfig({
      data_dir: join(dir, 'data'),
      targets: [{ host: HOST, scheme: 'http', track_links: 'all' }],
      log_level: 'silent',
    }),
    { logger: silentLogger },
  );
  const t0 = performance.now();
  seed(app);
  const token = await addUser(app.store.sql, 'admin', 'administrator');
  console.log(
    `seeded ${PAGES} pages, ${Math.round(PAGES * 0.1)} problem links in ${((performance.now() - t0) / 1000).toFixed(1)} s; ${CALLS} timed calls per cell after ${WARMUP} warm-up calls`,
  );

  const host = await openAbilityHost(app);
  const user = (await host.userByLogin('admin'))!;
  const results: Record<string, Record<string, number[]>> = { 'in-process': {}, stdio: {}, HTTP: {} };

  for (const [name, seq] of Object.entries(SEQUENCES)) {
    results['in-process']![name] = await timeCalls(async (c) => {
      await host.registry.execute(c.tool.replace('-', '/'), c.args, { user });
    }, seq);
  }

  const env = { ...process.env, SVC_USER: 'admin', SVC_LOG_LEVEL: 'warn' } as Record<string, string>;
  const stdio = new Client({ name: 'bench', version: '1' });
  await stdio.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [SVC, 'mcp', '--config', configPath],
      env,
      stderr: 'ignore',
    }),
  );
  for (const [name, seq] of Object.entries(SEQUENCES)) {
    results.stdio![name] = await timeCalls(
      async (c) => checked((await stdio.callTool({ name: c.tool, arguments: c.args })) as CallToolResult, c),
      seq,
    );
  }
  await stdio.close();

  const served = await serve(['--config', configPath], { SVC_LOG_LEVEL: 'info' }); // info: the listening line carries base_url
  const http = new Client({ name: 'bench', version: '1' });
  await http.connect(
    new StreamableHTTPClientTransport(new URL(`${served.baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  for (const [name, seq] of Object.entries(SEQUENCES)) {
    results.HTTP![name] = await timeCalls(
      async (c) => checked((await http.callTool({ name: c.tool, arguments: c.args })) as CallToolResult, c),
      seq,
    );
  }
  await http.close();
  await served.stop();

  // stdio start → first tools/list answered (spawn, initialize handshake, tools/list), one fresh process each.
  const starts: number[] = [];
  for (let i = 0; i < STARTS + 1; i++) {
    const t = performance.now();
    const c = new Client({ name: 'bench-start', version: '1' });
    await c.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [SVC, 'mcp', '--config', configPath],
        env,
        stderr: 'ignore',
      }),
    );
    const { tools } = await c.listTools();
    const ms = performance.now() - t;
    if (tools.length !== TOOLS.length) throw new Error(`expected ${TOOLS.length} tools, got ${tools.length}`);
    if (i > 0) starts.push(ms); // the first start warms the OS file cache
    await c.close();
  }
  // Bare Node start, for scale: what no server can go below.
  const bare: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    await new Promise<void>((r) => spawn(process.execPath, ['-e', '0']).once('exit', () => r()));
    bare.push(performance.now() - t);
  }

  console.log('\ntools/call latency (ms, client side, sequential)\n');
  const rows: (string | number)[][] = [];
  for (const name of Object.keys(SEQUENCES)) {
    const base = summarize(results['in-process']![name]!);
    for (const transport of ['in-process', 'stdio', 'HTTP']) {
      const s = summarize(results[transport]![name]!);
      const over = (d: number) => (transport === 'in-process' ? '' : `${d >= 0 ? '+' : '−'}${Math.abs(d).toFixed(2)}`);
      rows.push([name, transport, s.p50, s.p95, over(s.p50 - base.p50), over(s.p95 - base.p95)]);
    }
  }
  printTable(['tool', 'transport', 'p50', 'p95', 'overhead p50', 'overhead p95'], rows);

  const s = summarize(starts);
  const b = summarize(bare);
  console.log('\nstdio start → first tools/list answered (ms)\n');
  printTable(
    ['what', 'runs', 'p50', 'p95'],
    [
      ['svc mcp: spawn, initialize, tools/list', s.n, s.p50, s.p95],
      ['node -e 0 (bare Node start, for scale)', b.n, b.p50, b.p95],
    ],
  );
  console.log('\ntargets: overhead p50 < 2 ms (stdio), < 5 ms (HTTP); start well under 500 ms');

  host.close();
  await app.close();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  console.error(err);
  // The svc processes it started would keep the bench alive: a failed bench ends, and takes them with it.
  process.exit(1);
});
