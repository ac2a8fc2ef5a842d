// svc serve's operator routes as Prometheus and a load balancer use them: after a crawl, a scrape of /metrics parses
// with a Prometheus text parser and names the crawl, the MCP calls, the search latency, the rate limit's refusal and
// the database's gauges with their labels; metrics.token keeps it from a scrape without the token (401). /readyz is
// 200 while the database answers and 503 while a PostgreSQL server is stopped, and 200 again once it is back.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import parsePrometheusTextFormat, { type PromFamily } from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRIC_NAMES } from '../../src/app/metrics.js';
import { createDatabase, skip as noPostgres, startPostgres, type PgCluster } from '../support/postgres.js';
import { httpClient, makeFixture, spawnServe, type Fixture, type McpServe } from '../support/mcp.js';
import { until } from '../support/wait.js';

const TOKEN = 'metrics-scrape-token-0123456789';

async function scrape(baseUrl: string, token: string | null = TOKEN): Promise<Response> {
  return fetch(`${baseUrl}/metrics`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
}

function family(families: PromFamily[], name: string): PromFamily {
  const f = families.find((x) => x.name === name);
  if (!f) throw new Error(`no ${name} in the scrape; it has ${families.map((x) => x.name).join(', ')}`);
  return f;
}

/**
 * The `_count` of a histogram's series whose labels include `labels`, read from the text itself: the parser folds
 * a histogram's series into one and drops the count and sum of a labelled series.
 */
function histogramCount(text: string, name: string, labels: Record<string, string>): string | undefined {
  for (const line of text.split('\n')) {
    const m = new RegExp(`^${name}_count\\{([^}]*)\\} (\\S+)$`).exec(line);
    if (!m) continue;
    const has = Object.fromEntries([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => has[k] === v)) return m[2];
  }
  return undefined;
}

/** The samples of a family whose labels include `labels`. */
function samples(f: PromFamily, labels: Record<string, string>) {
  return f.metrics.filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
}

async function crawlToEnd(client: Client): Promise<number> {
  const started = (await client.callTool({ name: 'svc-full-crawl', arguments: {} })) as CallToolResult;
  expect(started.isError).toBeFalsy();
  const id = (started.structuredContent as { id: number }).id;
  let status = 'running';
  for (let round = 0; round < 10 && (status === 'queued' || status === 'running'); round++) {
    const r = (await client.callTool({ name: 'svc-get-crawl', arguments: { id, wait_seconds: 30 } }, undefined, {
      timeout: 60_000,
    })) as CallToolResult;
    status = (r.structuredContent as { status: string }).status;
  }
  expect(status).toBe('completed');
  return id;
}

describe('/metrics after a crawl (SQLite)', () => {
  let fx: Fixture;
  let serve: McpServe;
  beforeAll(async () => {
    fx = await makeFixture({
      config: {
        metrics: { enabled: true, token: TOKEN },
        // One search per hour from one address: the second is refused, and counted. Windows are aligned to the clock,
        // so with a minute one the two posts now and then fall on both sides of a window's end (seen in CI).
        rate_limits: { window: '1h', search: 1 },
      },
    });
    serve = await spawnServe(fx);
  }, 180_000);
  afterAll(async () => {
    await serve?.stop();
    await fx?.cleanup();
  });

  it('refuses a scrape without the token, or with another one (401)', async () => {
    const none = await scrape(serve.baseUrl, null);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(((await none.json()) as { error: { message: string } }).error.message).toMatch(/metrics\.token/);
    expect((await scrape(serve.baseUrl, 'not-the-metrics-token-at-all')).status).toBe(401);
  });

  it('parses as Prometheus text and names what happened, with its labels', async () => {
    const client = await httpClient(serve.mcpUrl, fx.tokens.admin);
    try {
      await crawlToEnd(client);
      const found = (await client.callTool({ name: 'svc-search', arguments: { terms: 'quokka' } })) as CallToolResult;
      expect(found.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const search = `${serve.baseUrl}/v1/projects/demo1234:eu-north-1/search`;
    const body = JSON.stringify({ terms: 'quokka' });
    const post = () => fetch(search, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    expect((await post()).status).toBe(200);
    expect((await post()).status).toBe(429);

    const res = await scrape(serve.baseUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    const families = parsePrometheusTextFormat(text);
    for (const name of METRIC_NAMES) family(families, name);

    const project = 'demo1234:eu-north-1';
    const crawls = family(families, 'svc_crawls_total');
    expect(crawls.type).toBe('COUNTER');
    expect(samples(crawls, { project, mode: 'full', status: 'completed' })[0]?.value).toBe('1');
    const duration = family(families, 'svc_crawl_duration_seconds');
    expect(duration.type).toBe('HISTOGRAM');
    expect(histogramCount(text, 'svc_crawl_duration_seconds', { project, mode: 'full' })).toBe('1');
    expect(
      Number(samples(family(families, 'svc_crawl_pages_total'), { project, mode: 'full' })[0]?.value),
    ).toBeGreaterThan(0);

    const calls = family(families, 'svc_mcp_tool_calls_total');
    expect(samples(calls, { tool: 'svc-full-crawl', result: 'ok' })[0]?.value).toBe('1');
    expect(Number(samples(calls, { tool: 'svc-get-crawl', result: 'ok' })[0]?.value)).toBeGreaterThanOrEqual(1);
    const latency = family(families, 'svc_search_duration_seconds');
    expect(latency.type).toBe('HISTOGRAM');
    // The MCP tool's search and the one /v1 let through.
    expect(histogramCount(text, 'svc_search_duration_seconds', { project, result: 'ok' })).toBe('2');
    expect(samples(family(families, 'svc_rate_limited_total'), { group: 'search' })[0]?.value).toBe('1');

    expect(samples(family(families, 'svc_crawl_queue_depth'), { project })[0]?.value).toBe('0');
    expect(samples(family(families, 'svc_webhook_outbox_depth'), { project })[0]?.value).toBe('0');
    expect(Number(samples(family(families, 'svc_pages'), { project })[0]?.value)).toBeGreaterThan(0);
    const problems = family(families, 'svc_problem_links');
    expect(Number(samples(problems, { project, target: fx.site.host, reason: 'not_found' })[0]?.value)).toBeGreaterThan(
      0,
    );
    expect(samples(family(families, 'svc_database_up'), { project })[0]?.value).toBe('1');

    // The process metrics of prom-client's defaults.
    for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes'])
      family(families, name);
  }, 120_000);

  it('/readyz is 200 while the database answers; /healthz stays liveness', async () => {
    const ready = await fetch(`${serve.baseUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });
    expect((await fetch(`${serve.baseUrl}/healthz`)).status).toBe(200);
  });
});

describe('/metrics off by default', () => {
  let fx: Fixture;
  let serve: McpServe;
  beforeAll(async () => {
    fx = await makeFixture();
    serve = await spawnServe(fx);
  }, 180_000);
  afterAll(async () => {
    await serve?.stop();
    await fx?.cleanup();
  });

  it('answers 404 without metrics.enabled, and /readyz all the same', async () => {
    expect((await scrape(serve.baseUrl)).status).toBe(404);
    expect((await fetch(`${serve.baseUrl}/readyz`)).status).toBe(200);
  });
});

describe.skipIf(noPostgres)('/readyz on PostgreSQL', () => {
  let cluster: PgCluster;
  let fx: Fixture;
  let serve: McpServe;
  beforeAll(async () => {
    cluster = startPostgres();
    await createDatabase(cluster, 'ready');
    fx = await makeFixture({ databaseUrl: cluster.connectionString('ready'), config: { metrics: { enabled: true } } });
    serve = await spawnServe(fx);
  }, 120_000);
  afterAll(async () => {
    await serve?.stop();
    await fx?.cleanup();
    cluster?.stop();
  });

  it('is 200 while the server answers, 503 naming why while it is stopped, and 200 once it is back', async () => {
    const readyz = async () => {
      const r = await fetch(`${serve.baseUrl}/readyz`);
      return { status: r.status, body: (await r.json()) as { status: string; problems?: { error: string }[] } };
    };
    await until('ready on PostgreSQL', async () => (await readyz()).status === 200, 20_000);
    const scraped = await scrape(serve.baseUrl, null);
    expect(scraped.status).toBe(200);
    const families = parsePrometheusTextFormat(await scraped.text());
    expect(family(families, 'svc_database_up').metrics[0]?.value).toBe('1');

    cluster.halt();
    try {
      const down = await readyz();
      expect(down.status).toBe(503);
      expect(down.body.status).toBe('not_ready');
      expect(down.body.problems?.[0]?.error).toMatch(/the database does not answer/);
    } finally {
      cluster.resume();
    }
    await until('ready again', async () => (await readyz()).status === 200, 20_000);
  }, 120_000);
});
