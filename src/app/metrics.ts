// svc serve's /metrics: a Prometheus registry (prom-client) of what this process did — crawls it ended, searches and
// MCP tool calls it answered, requests its rate limit refused, heard on the observation channels — and, read when
// Prometheus scrapes, what each project's database holds now: the crawl queue, the webhook outbox, the stored pages
// and the problem links per target. Counters are this process's (on PostgreSQL each instance counts its own; sum
// them); the database gauges read the shared database, so every instance reports the same (take max, not sum).
import client from 'prom-client';
import { packageVersion } from '../lib/package-version.js';
import { onObservation } from '../model/observations.js';
import { problemLinkCounts, queuedCrawlCount, storedPageCount, webhookOutboxDepth } from '../store/operator-reads.js';
import { withinLimit } from '../store/readiness.js';
import type { App } from './open-app.js';

/** A scrape gives up on a database that has not answered its counts in this long (the gauges are left out). */
const SCRAPE_READ_MS = 3000;

export interface Metrics {
  /** The Prometheus text of everything now, and its content type. */
  render(): Promise<{ contentType: string; body: string }>;
  /** Stops listening to the observation channels. */
  close(): void;
}

/** The metric names, for the docs and the tests. */
export const METRIC_NAMES = [
  'svc_build_info',
  'svc_crawls_total',
  'svc_crawl_duration_seconds',
  'svc_crawl_pages_total',
  'svc_search_duration_seconds',
  'svc_mcp_tool_calls_total',
  'svc_rate_limited_total',
  'svc_crawl_queue_depth',
  'svc_webhook_outbox_depth',
  'svc_pages',
  'svc_problem_links',
  'svc_database_up',
] as const;

export function createMetrics(app: App): Metrics {
  const register = new client.Registry();
  client.collectDefaultMetrics({ register });
  const build = new client.Gauge({
    name: 'svc_build_info',
    help: 'svc version and the Node.js running it (always 1)',
    labelNames: ['version', 'node'],
    registers: [register],
  });
  build.set({ version: packageVersion(), node: process.versions.node }, 1);

  const crawls = new client.Counter({
    name: 'svc_crawls_total',
    help: 'Crawls this process ended, by mode and final status',
    labelNames: ['project', 'mode', 'status'],
    registers: [register],
  });
  const crawlSeconds = new client.Histogram({
    name: 'svc_crawl_duration_seconds',
    help: 'How long the crawls this process ended ran, from start to finish',
    labelNames: ['project', 'mode'],
    buckets: [1, 5, 15, 60, 300, 900, 1800, 3600, 10800],
    registers: [register],
  });
  const crawlPages = new client.Counter({
    name: 'svc_crawl_pages_total',
    help: 'Pages fetched by the crawls this process ended',
    labelNames: ['project', 'mode'],
    registers: [register],
  });
  const searchSeconds = new client.Histogram({
    name: 'svc_search_duration_seconds',
    help: 'Search latency (every surface: /v1, abilities, MCP), by outcome',
    labelNames: ['project', 'result'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [register],
  });
  const toolCalls = new client.Counter({
    name: 'svc_mcp_tool_calls_total',
    help: 'MCP tool calls answered, by tool and result (ok, error, internal_error, task, input_required)',
    labelNames: ['tool', 'result'],
    registers: [register],
  });
  const refused = new client.Counter({
    name: 'svc_rate_limited_total',
    help: 'Requests refused with 429 by the rate limit, by group (search, mcp, api)',
    labelNames: ['group'],
    registers: [register],
  });

  // The database gauges: read per project when scraped; a database that does not answer in time leaves its
  // project's gauges out and says so in svc_database_up.
  const queue = new client.Gauge({
    name: 'svc_crawl_queue_depth',
    help: 'Crawls waiting in the queue',
    labelNames: ['project'],
    registers: [register],
  });
  const outbox = new client.Gauge({
    name: 'svc_webhook_outbox_depth',
    help: 'Webhook deliveries waiting to be sent (or being sent)',
    labelNames: ['project'],
    registers: [register],
  });
  const pages = new client.Gauge({
    name: 'svc_pages',
    help: 'Pages stored and searchable',
    labelNames: ['project'],
    registers: [register],
  });
  const problems = new client.Gauge({
    name: 'svc_problem_links',
    help: "Problem links in the link report now, by target host and reason (the report's sections)",
    labelNames: ['project', 'target', 'reason'],
    registers: [register],
  });
  const dbUp = new client.Gauge({
    name: 'svc_database_up',
    help: "1 when the project's database answered this scrape's reads, else 0",
    labelNames: ['project'],
    registers: [register],
  });

  async function readDatabases(): Promise<void> {
    queue.reset();
    outbox.reset();
    pages.reset();
    problems.reset();
    await Promise.all(
      app.projects.map(async (p) => {
        const project = p.token;
        try {
          const sql = p.store.sql;
          const [q, o, n, links] = await withinLimit(
            Promise.all([
              queuedCrawlCount(sql, project),
              webhookOutboxDepth(sql, project),
              storedPageCount(sql),
              problemLinkCounts(sql),
            ]),
            SCRAPE_READ_MS,
          );
          queue.set({ project }, q);
          outbox.set({ project }, o);
          pages.set({ project }, n);
          for (const l of links) problems.set({ project, target: l.host, reason: l.reason }, l.count);
          dbUp.set({ project }, 1);
        } catch (err) {
          app.logger.warn({ err, project }, 'metrics: the database did not answer; its gauges are left out');
          dbUp.set({ project }, 0);
        }
      }),
    );
  }

  const stops = [
    onObservation('crawlEnded', (e) => {
      crawls.inc({ project: e.project, mode: e.mode, status: e.status });
      crawlPages.inc({ project: e.project, mode: e.mode }, e.pages);
      if (e.seconds !== null) crawlSeconds.observe({ project: e.project, mode: e.mode }, e.seconds);
    }),
    onObservation('searchAnswered', (e) =>
      searchSeconds.observe({ project: e.project, result: e.ok ? 'ok' : 'error' }, e.seconds),
    ),
    onObservation('mcpCallAnswered', (e) => toolCalls.inc({ tool: e.tool, result: e.result })),
    onObservation('rateLimited', (e) => refused.inc({ group: e.group })),
  ];

  return {
    async render() {
      await readDatabases();
      return { contentType: register.contentType, body: await register.metrics() };
    },
    close() {
      for (const stop of stops) stop();
      register.clear();
    },
  };
}
