// One MCP server definition for every transport and both protocol eras: the tools of the host's ability
// registry, the current user of the connection (or of the HTTP request), resources and prompts, and the logging
// capability (logging/setLevel, or on 2026-07-28 the level in the request's _meta, filters the notifications
// sent to the client; the server's own logs go to stderr through pino). The SDK's serving entries build one
// from this factory per HTTP request or stdio connection and frame its answers for the request's era.
import {
  LOG_LEVEL_META_KEY,
  McpServer,
  type CacheHint,
  type LoggingLevel,
  type Server,
  type ServerContext,
  type jsonSchemaValidator,
} from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import type { User } from '../model/users.js';
import type { Logger } from '../lib/log.js';
import { packageVersion } from '../lib/package-version.js';
import { registerTools, type ToolCallStep } from '../tools/index.js';
import type { AbilityHost } from '../abilities/runtime.js';
import { registerLinkReportApp } from './link-report-app.js';
import { registerResourcesAndPrompts } from './resources.js';
import { hostToolSteps } from './tool-steps.js';
import { observe } from '../model/observations.js';

const LEVELS: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];
/** Until a 2025 client sets a level, only problems are sent as notifications (a 2026-07-28 request without one gets none). */
const DEFAULT_LEVEL: LoggingLevel = 'warning';

export const SERVER_NAME = 'svc';
export const SERVER_VERSION = packageVersion();

const INSTRUCTIONS = [
  'svc indexes one website for full-text search and records the outcome of every link its crawls find.',
  'Use svc-search to find pages by words and svc-get-page-meta for what is indexed about one post.',
  'Use svc-link-report for broken (not_found), forbidden, failing (server_error) and redirected links; it reads',
  'what crawls recorded and is cached for 15 minutes (pass refresh: true after a crawl).',
  'svc-full-crawl, svc-partial-crawl and svc-manual-crawl start a crawl and return at once with its record;',
  'follow it with svc-get-crawl and wait_seconds (up to 60 s per call) until it is completed, stopped or failed.',
  'Over stdio the crawl runs inside this process: exiting stops it.',
  'A 2026-07-28 request that declares the io.modelcontextprotocol/tasks extension gets a task from those three',
  'tools instead: poll tasks/get until it is completed (its result is the final crawl record), or tasks/cancel it.',
  'svc-delete-pages removes pages from the index (at most 50 URLs); a client that can show a form is asked to',
  'confirm first, and nothing is deleted without an accepted confirm: true. Reports, crawls and deletions need a',
  'user with manage_options; an ability_invalid_permissions error means the current user may not run it.',
  'Resources: svc://crawls/{id} and svc://link-report/{target}; prompt audit-broken-links.',
].join(' ');

export interface McpServerOptions {
  host: AbilityHost;
  /** The current user (null: none; every tool then answers ability_invalid_permissions). */
  user: User | null;
  /** How a client of this transport sets a current user (stdio: SVC_USER; HTTP: the Authorization header). */
  signInHint?: string;
  logger: Logger;
  /** A step before each tool call that may answer instead of the tool; by default crawls as tasks and confirmed deletes. */
  beforeToolCall?: ToolCallStep;
  /** The clock of delete confirmations (ms); tests move it. */
  now?: () => number;
  /** The protocol era this instance serves (the SDK's serving entries say); tasks are served to `modern` only. */
  era?: 'legacy' | 'modern';
}

/** The instructions an initialize or server/discover answer carries: how to use the tools, or why there are none. */
export function serverInstructions(host: AbilityHost): string {
  if (host.abilitiesEnabled) return INSTRUCTIONS;
  return `This server lists no tools: ${host.disabledReason ?? `host version ${host.version} has no abilities (they need 6.9 or newer)`}.`;
}

// The server validates only what it asks of clients (elicitation), never on our paths, yet builds an Ajv for it
// in its constructor. One lazily made instance spares `svc mcp` its start-up cost and every stateless HTTP
// request a new Ajv (~0.5 ms).
let ajv: AjvJsonSchemaValidator | undefined;
const lazyValidator: jsonSchemaValidator = {
  getValidator: (schema) => (ajv ??= new AjvJsonSchemaValidator()).getValidator(schema),
};

const HOUR_MS = 3_600_000;
/**
 * How long a 2026-07-28 client may keep each list or read, and for whom. The tool, prompt and template lists and
 * the discover answer are the same for every user of this process (they depend on the host only); the resource
 * list and reads follow the user's capability and the crawls, so they are the user's own and not kept.
 */
export const CACHE_HINTS = {
  'server/discover': { ttlMs: HOUR_MS, cacheScope: 'public' },
  'tools/list': { ttlMs: HOUR_MS, cacheScope: 'public' },
  'prompts/list': { ttlMs: HOUR_MS, cacheScope: 'public' },
  'resources/templates/list': { ttlMs: HOUR_MS, cacheScope: 'public' },
  'resources/list': { ttlMs: 0, cacheScope: 'private' },
  'resources/read': { ttlMs: 0, cacheScope: 'private' },
} as const satisfies Record<string, CacheHint>;

function isLevel(v: unknown): v is LoggingLevel {
  return typeof v === 'string' && (LEVELS as readonly string[]).includes(v);
}

export function createMcpServer(opts: McpServerOptions): Server {
  const mcp = new McpServer(
    { name: SERVER_NAME, title: 'svc site search and link report', version: SERVER_VERSION },
    {
      capabilities: { tools: { listChanged: false }, logging: {} },
      instructions: serverInstructions(opts.host),
      jsonSchemaValidator: lazyValidator,
      cacheHints: CACHE_HINTS,
    },
  );
  // Tools go on the low-level server (their schemas are the abilities' own); resources, prompts and completions
  // use the SDK's registrations.
  const server = mcp.server;
  if (opts.host.abilitiesEnabled) {
    registerResourcesAndPrompts(mcp, { host: opts.host, user: opts.user, signInHint: opts.signInHint });
    // The lists are fixed for the life of a connection (the SDK's registration says otherwise by default).
    server.registerCapabilities({ resources: { listChanged: false }, prompts: { listChanged: false } });
  }
  // A 2025 connection sets its level once with logging/setLevel; a 2026-07-28 request carries it in _meta.
  let connectionLevel = LEVELS.indexOf(DEFAULT_LEVEL);
  // Replaces the SDK's own handler so this server knows the level it must honour.
  server.setRequestHandler('logging/setLevel', (req) => {
    connectionLevel = LEVELS.indexOf(req.params.level);
    return {};
  });
  // A 2026-07-28 request that names no level gets no notifications at all (the revision's rule).
  const minLevel = (ctx: ServerContext): number => {
    const envelope = ctx.mcpReq.envelope;
    if (envelope === undefined) return connectionLevel;
    const asked = envelope[LOG_LEVEL_META_KEY as keyof typeof envelope];
    return isLevel(asked) ? LEVELS.indexOf(asked) : LEVELS.length;
  };
  const log = opts.logger.child({ mcp: true, user: opts.user?.login ?? null });
  registerTools(server, {
    registry: opts.host.registry,
    user: opts.user,
    signInHint: opts.signInHint,
    before: opts.beforeToolCall ?? hostToolSteps(server, opts),
    onCall: async ({ tool, ms, result, error }, ctx) => {
      observe('mcpCallAnswered', {
        tool,
        result: error !== undefined ? 'internal_error' : result.isError ? 'error' : 'ok',
      });
      const duration_ms = Math.round(ms * 100) / 100;
      let level: LoggingLevel;
      let text: string;
      if (error !== undefined) {
        log.error({ err: error, tool, duration_ms }, 'tool call failed unexpectedly');
        level = 'error';
        text = `${tool} failed unexpectedly`;
      } else if (result.isError) {
        text = result.content[0]?.type === 'text' ? result.content[0].text : 'error';
        log.info({ tool, duration_ms, error: text }, 'tool call answered an error');
        level = 'warning';
      } else {
        log.debug({ tool, duration_ms }, 'tool call');
        level = 'info';
        text = `${tool} answered`;
      }
      if (LEVELS.indexOf(level) < minLevel(ctx)) return;
      // Sent on the request's own stream, so it reaches stateless HTTP clients too.
      await ctx.mcpReq
        .notify({
          method: 'notifications/message',
          params: { level, logger: 'svc', data: { tool, duration_ms, message: text } },
        })
        .catch(() => {});
    },
  });
  // The link report App, for clients that declare the MCP Apps extension (after the lists it answers for).
  if (opts.host.abilitiesEnabled) registerLinkReportApp(mcp, opts.host.registry);
  return server;
}
